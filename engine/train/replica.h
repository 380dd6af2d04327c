// Replica: one worker's copy of the network and optimizer on its device, and the step that
// trains it on the worker's slice of a logical batch: forward, backward with the gradients
// all-reduced bucket by bucket as backward produces them, then the optimizer update every
// replica makes alike (DESIGN.md §6 and §8). Only the worker's own thread calls it.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/devices/device_factory.h"
#include "engine/comm/communicator.h"
#include "engine/comm/gradient_buckets.h"
#include "engine/core/device_context.h"
#include "engine/data/dataset.h"
#include "engine/data/sample_feed.h"
#include "engine/optim/gradient_clip.h"
#include "engine/optim/optimizer.h"
#include "engine/optim/weight_average.h"
#include "engine/train/chunk_tree.h"
#include "engine/train/divergence_diagnosis.h"
#include "engine/train/metrics.h"
#include "engine/model/network.h"
#include "engine/train/parallel_plan.h"

namespace netsmith {

// Note [Reproducible training]
// config.deterministic promises the same weights, bit for bit, on 1, 2 or 4 devices of one
// backend for the same logical batch (lr_policy keep_logical_batch), and for a run resumed from
// a checkpoint versus one never stopped (DESIGN.md §6). Floating-point sums depend on their
// order, so every sum that reaches the weights is given an order that does not depend on how
// the logical batch is split:
//   - Chunks. The logical batch of L samples is cut into K = 2^k chunks of C samples (C = L/4,
//     L/8, ... the first at most 32; TrainingPlan::chunk). Every forward and backward runs on one
//     chunk, so a kernel sees the same C samples whatever the device count, and its internal
//     sums are the same. Device d holds the consecutive chunks [d·K/N, (d+1)·K/N).
//   - Tree order. Each chunk's gradient (already weighted by 1/L) is a leaf; the gradient of
//     the logical batch is the sum over the K leaves in the tree of Note [Reduction tree]. A
//     device sums its chunks with ChunkTree: its K/N chunks are a power-of-two block, i.e. one
//     subtree; the all-reduce adds the devices' subtrees in the same tree order over ranks,
//     which completes the very same tree. With 1 device ChunkTree builds the whole tree alone.
//   - Random streams. Dropout's mask and the epoch's shuffle are pure functions of (seed, epoch,
//     node, global sample index) (RandomKey, epochOrder), so a sample gets the same mask on any
//     device and after a resume.
//   - BatchNormalization statistics are computed per chunk (each forward is one chunk). The
//     running statistics are restored before every chunk; each chunk's updated value, × C/L, is
//     summed in the same tree as the gradients, so the new running value is the mean over the
//     chunks' updates, whatever the split.
//   - Threads. A multi-threaded kernel may split its sums by thread (oneDNN's weight gradients,
//     OpenMP reductions), so the thread count is part of the order: reproducible mode gives
//     every worker the same count whatever the number of devices, parallel.threads_per_device
//     or else 1 (TrainingPlan). The optimizer is element-wise and needs nothing.
// A resumed run restores parameters, running statistics and optimizer state exactly and sees
// the same chunks, so it continues bit for bit. Costs: C-sample kernels are less efficient than
// whole-slice ones, and the all-reduce waits for the whole backward (no overlap), so
// reproducible mode is slower; the fast mode sums each device's slice in one backward.
// On a GPU (Note [Device memory]) the same order holds: each chunk's gradient is downloaded into
// the host ChunkTree leaf and the worker's subtree uploaded back before the all-reduce, which in
// this mode adds the GPUs' subtrees in the tree's order too (Note [Tree order over NCCL]: NCCL's
// own ring order is another from 3 GPUs on), so 1, 2, 4 or 8 GPUs give the same weights. Kernels
// use deterministic algorithms in this mode (cuDNN's deterministic convolution algorithms; no
// atomics in reductions).

// What a worker measured during one step (seconds).
struct StepFigures {
  double lossSum = 0;     // sum of the per-sample losses of the worker's slice
  double computeSeconds = 0;  // forward, backward and the optimizer (not the data)
  double syncSeconds = 0;  // the communication thread's time in all-reduces
  double waitSeconds = 0;  // blocked, waiting for the reduced gradients (slowest rank + unhidden sync)
  // Assembling the batch: waiting for the prefetch thread (or the disk), converting the samples
  // to float32, augmenting them. Large next to computeSeconds: the data is the bottleneck.
  double dataSeconds = 0;
};

class Replica {
 public:
  // Builds the network and optimizer on `device` (whose thread calls this) and initialises the
  // parameters from the seed, so every replica starts bit for bit the same. comm is the
  // worker's rank in the group of active workers.
  Replica(const Graph& graph, const TrainingPlan& plan, const DevicePlan& slot, DeviceContext& device,
          Communicator& comm, uint64_t seed);
  ~Replica();

  // One iteration: the worker's slice of logicalBatch (global sample indices into `train`),
  // forward, backward, all-reduce, update with learning rate `lr`.
  StepFigures trainStep(const Dataset& train, std::span<const int64_t> logicalBatch, int64_t epoch, double lr);

  // Allocates the staging memory of batches from `train` and, when given, `validation` (Note
  // [Staging memory sized before the first step]). Call it before the first step.
  void reserveBatches(const Dataset& train, const Dataset* validation);

  // The samples this worker will train on from iteration `firstIteration` to the end of the epoch
  // (its slices of `order`), announced to its prefetch thread when `train` is streamed (Note
  // [Sample feed]); nothing otherwise. Call it while the worker is idle, before the epoch's steps.
  void announceEpoch(const Dataset& train, std::span<const int64_t> order, int64_t firstIteration);

  // Loss and error counts of samples [begin, end) of `data`, in eval mode, in blocks of
  // `block` samples; one BatchCounts per block, so callers combine blocks in a fixed order.
  // When `stop` is given and returns true before a block, the blocks so far are returned (fewer
  // than asked for: the caller sees it was stopped).
  std::vector<BatchCounts> evaluateBlocks(const Dataset& data, int64_t begin, int64_t end, int64_t block,
                                          const std::function<bool()>& stop = {});

  // SHA-256 of every blob (parameters and running statistics) of this replica.
  std::string fingerprint();
  // Bytes of the replica's tensors and optimizer state.
  int64_t memoryBytes() const;

  Network& network() { return *m_network; }
  // The global gradient norms of this replica's steps so far (Note [Gradient clipping]); on a GPU
  // read from the device (a wait): call it between steps, not in one.
  GradientNorms gradientNorms();
  // Note [Divergence diagnosis] (divergence_diagnosis.h): runs the iteration whose logical batch
  // is `logicalBatch` (of epoch `epoch`) again on this replica, all of it in slices of this
  // worker's batch, with the parameters as they are, and names the first layer where a value turned
  // non-finite or exploded; nullopt when none does. Only the worker's thread calls it, after the
  // run has stopped stepping.
  std::optional<DivergenceFinding> diagnoseDivergence(const Dataset& train, std::span<const int64_t> logicalBatch,
                                                      int64_t epoch);
  // Whether the last step's gradient was not finite and its update skipped. Known at once on
  // CPU workers; a GPU skips such an update on the device and reports it through gradientNorms().
  bool lastGradientNonFinite() const { return !m_solver && m_norms.steps > 0 && !std::isfinite(m_norms.last); }
  // The optimizer's state as the host sees it (checkpoints): on a device with a DeviceSolver the
  // device state is copied into it first, and copied back before the next step, since the caller
  // may replace it (restoreState). Call it while the worker is idle or on the worker's thread.
  Optimizer& optimizer();
  DeviceContext& device() { return m_device; }
  // Note [Weight averaging]: the replica's average of its weights; null when optimizer.ema_decay
  // is 0. Its download() and restore() are the checkpoints' (worker idle, or its thread).
  WeightAverage* average() { return m_average.get(); }
  // Exchanges the average and the weights (nothing when off): the average in for validation or
  // as the run's result, and out again. Only the worker's thread calls it.
  void exchangeAverage();

 private:
  void fastBackward(float weight);
  // Note [CUDA graphs of a step]: queues the step's forward and backward by launching the
  // captured graph (capturing it first when due); false when the step must queue them itself.
  bool queueStepFromGraph(const RandomKey& key, float weight);
  // The optimizer's update of every parameter (queued on a device); its time into f.
  void queueOptimizerStep(double lr, StepFigures& f);
  void reproducibleForwardBackward(const Dataset& train, std::span<const int64_t> slice, int64_t epoch, float weight,
                                   StepFigures& f);
  // Note [Gradient accumulation]: fast mode's step as micro-batches, gradients summed on the device.
  void accumulatedForwardBackward(const Dataset& train, std::span<const int64_t> slice, int64_t epoch, float weight,
                                  StepFigures& f);
  // Gathers `ids` of `data` into m_x/m_y (through the dataset's feed when it is streamed),
  // augmented when `epoch` >= 0 (training); adds the time to dataSeconds.
  void gather(const Dataset& data, std::span<const int64_t> ids, int64_t epoch, double& dataSeconds);
  // The prefetch thread of `data`, made on first use; null when `data` is not streamed.
  SampleFeed* feedFor(const Dataset& data);
  void reduceRunningStats();
  // out / in: memory of the device (m_statsBuffer, m_statsSnapshot).
  void captureRunningStats(float* out, float scale) const;
  void scatterRunningStats(const float* in);
  // out: host memory (a ChunkTree leaf).
  void captureRunningStatsToHost(float* out, float scale) const;

  const Graph& m_graph;
  const TrainingPlan& m_plan;
  DevicePlan m_slot;
  DeviceContext& m_device;
  Communicator& m_comm;
  uint64_t m_seed;
  std::unique_ptr<Network> m_network;
  std::unique_ptr<Optimizer> m_optimizer;
  std::unique_ptr<DeviceSolver> m_solver;  // devices whose memory the host cannot touch
  GradientNorms m_norms;                   // CPU workers' (a DeviceSolver keeps its own)
  GradientSquaredNorm m_squaredNorm;       // CPU workers' norm (Note [Gradient clipping])
  std::unique_ptr<WeightAverage> m_average;  // Note [Weight averaging]; null when off
  bool m_optimizerViewOut = false;         // optimizer() handed out the host state since the last step
  std::vector<ParamSlot> m_slots;
  std::vector<Tensor*> m_runningStats;     // non-trainable blobs (BatchNormalization's mean, var)
  std::vector<Tensor*> m_gradients;        // in the order backward finishes them
  std::vector<std::vector<int>> m_gradientsOfNode;
  std::unique_ptr<GradientBuckets> m_buckets;
  std::unique_ptr<BucketReducer> m_reducer;
  Tensor m_statsBuffer;                    // running statistics, flat, for their all-reduce (device memory)
  Tensor m_statsSnapshot;                  // reproducible mode: the values before the step (device memory)
  std::unique_ptr<ChunkTree> m_tree;       // reproducible mode: gradients + running statistics
  Tensor m_treeSum;
  std::vector<Tensor> m_accumulated;       // fast mode with accumulation: the micro-batches' gradient sums (device memory)
  Tensor m_x, m_y;
  std::vector<std::unique_ptr<SampleFeed>> m_feeds;  // one per streamed dataset (training, validation)
  struct StepGraph {  // Note [CUDA graphs of a step]
    bool allowed = false;        // this replica's steps may be captured
    bool ready = false;          // a capture holds the step
    uint64_t generation = 0;     // the device memory's generation the capture was made in
    uint64_t eagerGeneration = 0;  // the generation of the last step queued eagerly
  } m_stepGraph;
};

}  // namespace netsmith
