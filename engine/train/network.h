// Network: one replica of a Graph on one device — its kernels, parameters, gradients and
// activations. Forward and backward run the nodes in topological order; only the thread that
// owns the device calls it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/ops/op_schema.h"
#include "engine/project/graph.h"

namespace netsmith {

// A named parameter blob of the replica: "conv1/W". `grad` is null for blobs that are not
// trainable (BatchNormalization's running statistics).
struct ParameterRef {
  std::string name;
  Tensor* value = nullptr;
  Tensor* grad = nullptr;
};

class Network {
 public:
  Network(const Graph& graph, DeviceContext& device);
  ~Network();
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  // Neural Network Console's initialisers. Each blob draws from its own stream keyed by
  // (seed, "node/blob"), so replicas on any device start bitwise identical.
  void initializeParameters(uint64_t seed);

  // x: (N, input shape). labels: (N, label width) from the dataset, turned into the loss's
  // target (Note [Loss targets]). Returns the per-sample loss (N, 1).
  const Tensor& forward(const Tensor& x, const Tensor& labels, bool training, const RandomKey& random);
  // Gradients of sum_i(weight * loss_i) for the last forward: every trainable blob's grad is
  // overwritten. weight is 1 / logical batch, so summing over workers gives the batch mean.
  // onNodeDone(i), when given, is called as soon as node i's parameter gradients are final (in
  // reverse graph order), so their all-reduce can start while backward goes on.
  void backward(float weight, const std::function<void(int node)>& onNodeDone = {});

  // The network's output before the loss (N, prediction shape), after forward().
  const Tensor& prediction() const;
  // Every blob, in graph order then blob order (the canonical order is name-sorted; see
  // parametersSha256()).
  std::vector<ParameterRef> parameters();
  const Graph& graph() const { return m_graph; }
  // Bytes of the replica's tensors: parameters, gradients, activations and their gradients.
  int64_t tensorBytes() const;

 private:
  struct NodeRuntime;
  void makeTarget(const Tensor& labels);

  const Graph& m_graph;
  DeviceContext& m_device;
  std::vector<std::unique_ptr<NodeRuntime>> m_nodes;
  std::vector<bool> m_needsGrad;  // per node: is d(loss)/d(output) needed by some parameter?
  Tensor m_target;
  Tensor m_lossGrad;
  Tensor m_scratch;  // a second contribution to a fanned-out node's gradient
  // Per-call argument lists, kept so that an iteration allocates nothing.
  std::vector<const Tensor*> m_callInputs;
  std::vector<Tensor*> m_callInputGrads;
  RandomKey m_random;
  bool m_lastForwardTraining = false;
};

// SHA-256 over all blob values in name-sorted order, little-endian float32: two runs that end
// with the same value trained bit for bit the same parameters.
std::string parametersSha256(std::vector<ParameterRef> params);

}  // namespace netsmith
