// Network: one replica of a Graph on one device — its kernels, parameters, gradients and
// activations. Forward and backward run the nodes in topological order; only the thread that
// owns the device calls it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/op_interface/op_schema.h"
#include "engine/project/graph.h"

namespace netsmith {

class StepTimer;

// Note [Device memory]
// Kernels read and write tensors in the memory of their device: DeviceContext::deviceAllocator()
// is null for the CPU (plain host memory, the path the engine always had) and a memory pool for a
// GPU. Network allocates every tensor a kernel sees (parameters, gradients, activations, their
// gradients, the loss target) from it, and touches them only through the context's copies
// (upload, download, fill, accumulate), whose host versions are the former loops, so the CPU path
// is unchanged bit for bit. The host world — the trainer's checkpoints and fingerprints, metrics,
// the reproducible mode's chunk tree — keeps seeing host tensors:
//   - forward() takes the batch gathered on the host (gatherBatch into the context's staging
//     memory: pinned on a GPU) and copies it once, asynchronously, into the Input node; the copy
//     is ordered before the kernels that read it. The staging buffer is written again only by the
//     next gatherBatch, after forward() has returned the loss, which waits for the device.
//   - forward() returns the per-sample loss in host memory: on a GPU that download is the one
//     wait of a training iteration. After an inference forward, prediction() is on the host too.
//   - parameters() is the host view. On a GPU it downloads every blob into host mirrors and hands
//     those out; since the caller may write them (a checkpoint restore, a test's fault), the next
//     forward() uploads them again. Until then the mirrors are the newer copy: asking again
//     hands out the same mirrors without downloading (a restore followed by the replicas' check
//     once trained on from the initialisers: issue 25). Code that trains (Replica) uses
//     kernelParameters(), the tensors themselves, which first uploads a host view still out.
//     On the CPU both are the same tensors and nothing is copied.
// One GPU iteration thus copies the batch in and the loss out, and nothing else; everything the
// optimizer and the all-reduce touch stays on the device (DeviceSolver, NCCL).

// A named parameter blob of the replica: "conv1/W". `grad` is null for blobs that are not
// trainable (BatchNormalization's running statistics) and for those of a layer that does not
// learn (Note [Frozen layers], engine/project/graph.h), which are also `held`: training leaves
// them as they are (a frozen BatchNormalization's running statistics too).
struct ParameterRef {
  std::string name;
  Tensor* value = nullptr;
  Tensor* grad = nullptr;
  bool held = false;
  float lrMult = 1.0f;  // the layer's lr_mult
};

class Network {
 public:
  // fuse: let layers write their ReLU's output themselves (Note [Fused ReLU]); off to check that
  // fused and unfused compute the same, and to measure what it saves (NETSMITH_FUSION=off).
  Network(const Graph& graph, DeviceContext& device, bool fuse = fusionWanted());
  // False when the environment has NETSMITH_FUSION=off.
  static bool fusionWanted();
  ~Network();
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  // Neural Network Console's initialisers. Each blob draws from its own stream keyed by
  // (seed, "node/blob"), so replicas on any device start bitwise identical.
  void initializeParameters(uint64_t seed);

  // x: (N, input shape). labels: (N, label width) from the dataset, turned into the loss's
  // target (Note [Loss targets]). Returns the per-sample loss (N, 1).
  const Tensor& forward(const Tensor& x, const Tensor& labels, bool training, const RandomKey& random);
  // forward() in two halves, so that the host can queue more (backward, the optimizer) before it
  // waits for the device (Note [Loss read after the step is queued], engine/train/replica.cpp):
  // queueForward() queues the layers and the per-sample loss's copy to the host and returns;
  // queuedLoss() waits for that copy and returns the loss (N, 1), as forward() does. On the CPU
  // the first computes and the second returns the loss at once.
  void queueForward(const Tensor& x, const Tensor& labels, bool training, const RandomKey& random);
  const Tensor& queuedLoss();
  // Note [CUDA graphs of a step] (engine/train/replica.cpp): the host's share of a training
  // queueForward() whose device work is replayed from a graph — the host view uploaded when it
  // was handed out, the batch's shapes, the loss target written into its staging memory.
  void prepareReplay(const Tensor& x, const Tensor& labels);
  // Allocates the host buffers forward() uses for batches of up to `rows` samples with labels of
  // `labelWidth` values, so that no forward allocates them (Note [Staging memory sized before the
  // first step], engine/train/replica.cpp).
  void reserveBatch(int64_t rows, int64_t labelWidth);
  // Gradients of sum_i(weight * loss_i) for the last forward: every trainable blob's grad is
  // overwritten. weight is 1 / logical batch, so summing over workers gives the batch mean.
  // onNodeDone(i), when given, is called as soon as node i's parameter gradients are final (in
  // reverse graph order), so their all-reduce can start while backward goes on.
  void backward(float weight, const std::function<void(int node)>& onNodeDone = {});

  // The network's output before the loss (N, prediction shape), after forward(); in host memory
  // after an inference forward (Note [Device memory]).
  const Tensor& prediction() const;
  // Every blob, in graph order then blob order (the canonical order is name-sorted; see
  // parametersSha256()), in host memory: the host view of Note [Device memory].
  std::vector<ParameterRef> parameters();
  // The same blobs as the kernels use them, in the device's memory (the host view's tensors on
  // the CPU). Pointers stay valid for the network's life.
  std::vector<ParameterRef> kernelParameters();
  DeviceContext& device() { return m_device; }
  const Graph& graph() const { return m_graph; }
  // Layers that write their ReLU's output themselves (Note [Fused ReLU]).
  int fusedRelus() const;
  // The node whose forward writes `node`'s output (Note [Fused ReLU]); -1 when `node` runs its own.
  int forwardDoneBy(int node) const;
  // Whether backward() runs node `node`: false when no layer at or before it learns (Note [Frozen
  // layers]: a frozen first block costs no backward work).
  bool runsBackward(int node) const { return m_needsGrad[static_cast<size_t>(node)]; }
  // Note [Divergence diagnosis] (engine/train/divergence_diagnosis.h): node `node`'s output, or
  // with `gradient` the gradient of the loss by it, from the last forward (backward), as float32
  // values in host memory in the tensor's own layout (a wait for the device). Empty when the node
  // keeps none: its output is written by the layer before it (Note [Fused ReLU]), or backward did
  // not reach it. The loss node's gradient is the one backward started from.
  std::vector<float> valuesOf(int node, bool gradient);
  // Bytes of the replica's tensors: parameters, gradients, activations and their gradients.
  int64_t tensorBytes() const;
  // The storage and layout of `node`'s output and output gradient (Note [16-bit activations],
  // network.cpp; Note [Channels last], engine/core/channels_last.h).
  Storage storageOf(int node) const;
  Layout layoutOf(int node) const;
  // What a device does with activations: its activationStorage(), channelsLast() and backend.
  struct ActivationRules {
    Storage narrow = Storage::Float32;
    bool channelsLast = false;
    std::string backend;
    static ActivationRules of(const DeviceContext& device) {
      return {device.activationStorage(), device.channelsLast(), device.backend()};
    }
  };
  // The format a node keeps its activations in on such a device: the rule Network follows, for
  // plans made before any device.
  static TensorFormat formatFor(const GraphNode& node, const ActivationRules& rules);
  // Bytes of one sample's activations on such a device: every node's output (with the copies made
  // for readers of another format) and every node's gradient, each in its format. Outputs and
  // gradients apart: a validation block resizes the outputs only (Note [Memory before launch]).
  struct ActivationBytes {
    int64_t outputs = 0;
    int64_t gradients = 0;
    int64_t total() const { return outputs + gradients; }
  };
  static ActivationBytes activationBytesPerSample(const Graph& graph, const ActivationRules& rules);

  // Note [Layer profile] (engine/train/profiler.h): the replica's profiler (a StepTimer), null unless the run
  // profiles. While timeNodes(true) (the profiler's training steps), forward and backward time
  // every node; otherwise they test a null pointer once per node.
  void attachProfiler(StepTimer* profiler) {
    m_profiler = profiler;
    m_timing = nullptr;
  }
  StepTimer* profiler() const { return m_profiler; }
  void timeNodes(bool on) { m_timing = on ? m_profiler : nullptr; }

 private:
  struct NodeRuntime;
  void makeTarget(const Tensor& labels);
  void fuseRelus();  // Note [Fused ReLU]
  const Shape& outputShapeOf(int node) const;  // (batch of the last forward, node's output shape)
  void setBatch(int64_t batch);                 // m_batch and every node's batchShape
  bool onDevice() const { return m_deviceMemory != nullptr; }
  void uploadHostView();
  // m_scratch's nth tensor of that shape and format (one per deferred port of a call), made on
  // first use.
  Tensor& scratchFor(const Shape& shape, TensorFormat format, int nth);
  // `producer`'s output as a reader whose activations are in `format` takes it: the output
  // itself, or its copy in that format made once per forward pass (Note [16-bit activations]).
  const Tensor& inputFor(TensorFormat format, int producer);
  // onNodeDone(node), when given; timed as the profile's "buckets" (Note [Layer profile]).
  void handOff(const std::function<void(int node)>& onNodeDone, int node);

  const Graph& m_graph;
  DeviceContext& m_device;
  std::vector<std::unique_ptr<NodeRuntime>> m_nodes;
  std::vector<bool> m_needsGrad;  // per node: is d(loss)/d(output) needed by some parameter?
  TensorAllocator* m_deviceMemory;  // DeviceContext::deviceAllocator(): null for host memory
  Tensor m_target;        // host (the context's staging memory: pinned on a GPU, so its upload is queued)
  Tensor m_targetDevice;  // device memory only: the target the loss kernel reads
  Tensor m_lossGrad;
  // A second contribution to a fanned-out node's gradient: one tensor per shape that needs one,
  // so that a network whose fan-outs differ in shape (ResNet's stages) does not resize a shared
  // one, and allocate its shape, at every step (Note [No allocation per step], network.cpp).
  std::vector<std::unique_ptr<Tensor>> m_scratch;
  std::vector<std::pair<int, Tensor*>> m_callDeferred;  // backward(): (port, scratch) per deferred port
  // Device memory only: host copies of the loss (staging memory, for queueDownload) and
  // prediction, and the host view's blobs.
  Tensor m_lossHost;
  Tensor m_predictionHost;
  bool m_hostViewOut = false;  // parameters() handed out host mirrors since the last upload
  // Per-call argument lists, kept so that an iteration allocates nothing (Note [No allocation
  // per step], network.cpp).
  std::vector<const Tensor*> m_callInputs;
  std::vector<Tensor*> m_callInputGrads;
  RandomKey m_random;
  int64_t m_batch = 0;  // of the last forward
  uint64_t m_forwardPass = 0;  // counts queueForward() calls: outputAs is converted once in each
  int64_t m_shapesBatch = -1;  // the batch the nodes' batchShape was computed for
  bool m_lastForwardTraining = false;
  StepTimer* m_profiler = nullptr;
  StepTimer* m_timing = nullptr;  // m_profiler during a profiled training step, else null
};

// SHA-256 over all blob values in name-sorted order, little-endian float32: two runs that end
// with the same value trained bit for bit the same parameters.
std::string parametersSha256(std::vector<ParameterRef> params);

}  // namespace netsmith
