#include "engine/train/replica.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <optional>

#include "engine/core/error.h"
#include "engine/core/seconds_since.h"
#include "engine/data/augment.h"
#include "engine/train/job_sync.h"
#include "engine/train/profiler.h"

namespace netsmith {
namespace {

using Clock = std::chrono::steady_clock;

double sumOf(const Tensor& t) {
  double s = 0;
  for (int64_t i = 0; i < t.size(); ++i) s += t[i];
  return s;
}

}  // namespace

// Note [Loss read after the step is queued]
// A GPU runs what the host has queued; it goes idle whenever the host waits for everything queued
// so far and only then queues more (Note [Draining waits], engine/backend/cuda/sim/sim_core.h). A
// step used to wait twice that way: the target's upload came from pageable memory (CUDA makes
// such a copy wait for the stream's earlier work: the whole previous step) and forward() read the
// loss back before backward was queued. Now the target and the loss's host copy are staging
// memory (pinned), forward is queueForward(), and on a device with its own memory the fast mode
// queues backward and the optimizer step before it reads the loss (queuedLoss()): when the host
// waits, the device has the rest of the step to run, and the host gathers the next batch while it
// does. With a queued all-reduce the optimizer is queued before the host waits for it too
// (BucketReducer::orderAfterReduced, and the running statistics' all-reduce queued after the
// buckets): the device's step waits for the sums on the device. The staging buffers (batch, labels, target) are written again only
// after that loss read, which follows their uploads on the stream. The loss summed is the same
// float values either way; reproducible mode keeps its order (it downloads every chunk's
// gradients anyway) and the CPU reads the loss where it always did. Still waiting: half
// precision's overflow check (DeviceSolver).

Replica::Replica(const Graph& graph, const TrainingPlan& plan, const DevicePlan& slot, DeviceContext& device,
                 Communicator& comm, uint64_t seed)
    : m_graph(graph),
      m_plan(plan),
      m_slot(slot),
      m_device(device),
      m_comm(comm),
      m_seed(seed),
      m_statsBuffer(device.deviceAllocator()),
      m_statsSnapshot(device.deviceAllocator()),
      m_x(device.stagingAllocator()),
      m_y(device.stagingAllocator()) {
  m_network = std::make_unique<Network>(graph, device);
  m_network->initializeParameters(seed);
  if (plan.deterministic) comm.requireTreeOrder();  // Note [Reproducible training]: the ranks' order too
  m_optimizer = Optimizer::create(plan.optimizer);
  m_optimizer->setBaseLearningRate(plan.effectiveLr);
  if (const auto& makeSolver = deviceKindOf(device.id()).makeSolver) {
    m_solver = makeSolver(*m_optimizer, device);
    m_solver->setClipNorm(plan.optimizer.clipGradientNorm);
  }

  // parameters() lists blobs in graph order, then blob order: walk the graph alongside it to
  // know each blob's node.
  const std::vector<ParameterRef> params = m_network->kernelParameters();
  std::vector<std::vector<const ParameterRef*>> byNode(graph.nodes.size());
  size_t k = 0;
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    for (size_t b = 0; b < graph.nodes[i].blobs.size(); ++b) byNode[i].push_back(&params[k++]);
  m_gradientsOfNode.resize(graph.nodes.size());
  for (const ParameterRef& p : params) {
    if (p.grad) m_slots.push_back({p.name, p.value, p.grad, p.lrMult});
    else if (!p.held) m_runningStats.push_back(p.value);  // Note [Frozen layers]: held blobs take no part
  }
  // Backward finishes nodes in reverse graph order: Note [Bucket order].
  for (int i = static_cast<int>(graph.nodes.size()) - 1; i >= 0; --i) {
    for (const ParameterRef* p : byNode[static_cast<size_t>(i)]) {
      if (!p->grad) continue;
      m_gradientsOfNode[static_cast<size_t>(i)].push_back(static_cast<int>(m_gradients.size()));
      m_gradients.push_back(p->grad);
    }
  }
  if (plan.optimizer.emaDecay > 0) {  // Note [Weight averaging]: what training changes
    std::vector<WeightAverage::Blob> averaged;
    for (const ParamSlot& s : m_slots) averaged.push_back({s.name, s.value});
    for (const ParameterRef& p : params)
      if (!p.grad && !p.held) averaged.push_back({p.name, p.value});
    m_average = std::make_unique<WeightAverage>(device, std::move(averaged), plan.optimizer.emaDecay);
  }
  int64_t statsSize = 0;
  for (const Tensor* t : m_runningStats) statsSize += t->size();
  m_statsBuffer.resize({statsSize});
  if (comm.size() > 1 && !m_gradients.empty()) {
    // Note [Bucket order]: ~25 MB buckets in reverse layer order, their flat buffers in the
    // gradients' memory (the GPU's, where the communicator copies them on the device).
    m_buckets = std::make_unique<GradientBuckets>(m_gradients, BucketOptions{}, device.deviceAllocator());
    m_reducer = std::make_unique<BucketReducer>(comm, *m_buckets);
  }
  // Note [CUDA graphs of a step]: where the device records and replays, one worker, fast mode, no
  // layer drawing random numbers, and not turned off (NETSMITH_CUDA_GRAPHS=off).
  const char* graphsSetting = std::getenv("NETSMITH_CUDA_GRAPHS");
  m_stepGraph.allowed = device.capturesGraphs() && !plan.deterministic && plan.accumulation == 1 && comm.size() == 1 &&
                    !(graphsSetting && std::string(graphsSetting) == "off") &&
                    std::none_of(graph.nodes.begin(), graph.nodes.end(),
                                 [](const GraphNode& n) { return n.schema->drawsRandomNumbers; });
  if (!plan.deterministic && plan.accumulation > 1) {
    m_accumulated.reserve(m_gradients.size());
    for (const Tensor* g : m_gradients) {
      m_accumulated.emplace_back(device.deviceAllocator());
      m_accumulated.back().resize({g->size()});
    }
  }
  if (plan.deterministic) {
    int64_t gradSize = 0;
    for (const Tensor* g : m_gradients) gradSize += g->size();
    m_tree = std::make_unique<ChunkTree>(gradSize + statsSize);
    m_treeSum.resize({gradSize + statsSize});
    m_statsSnapshot.resize({statsSize});
  }
}

Replica::~Replica() = default;

// Note [Staging memory sized before the first step]
// The batch, its labels, the loss target and the loss's host copy live in the device context's
// staging memory: pinned on a GPU, whose allocation (cudaHostAlloc) waits for the work queued on
// every GPU. Allocated in a step, it could wait for a peer GPU whose all-reduce waits for this one:
// both would hang until parallel.timeout_s (the simulator showed it when the loss's host copy
// became pinned). So each replica allocates them for the largest batch it will see — its slice of
// the logical batch, or a validation block — before any step, while no collective is queued.
void Replica::reserveBatches(const Dataset& train, const Dataset* validation) {
  int64_t rows = m_slot.batch;
  if (validation) rows = std::max(rows, training::kValidationBatch);
  int64_t numelPerSample = train.sampleNumel(), labelWidth = train.labelWidth;
  if (validation) {
    numelPerSample = std::max(numelPerSample, validation->sampleNumel());
    labelWidth = std::max(labelWidth, validation->labelWidth);
  }
  // Flat shapes of that size: Tensor::resize keeps the memory for any smaller shape later.
  if (rows * numelPerSample > m_x.capacity()) m_x.resize({rows * numelPerSample});
  if (rows * labelWidth > m_y.capacity()) m_y.resize({rows * labelWidth});
  m_network->reserveBatch(rows, labelWidth);
}

void Replica::captureRunningStats(float* out, float scale) const {
  for (const Tensor* t : m_runningStats) {
    m_device.scale(out, t->data(), t->size(), scale);
    out += t->size();
  }
}

void Replica::captureRunningStatsToHost(float* out, float scale) const {
  for (const Tensor* t : m_runningStats) {
    m_device.download(out, t->data(), t->size());
    for (int64_t i = 0; i < t->size(); ++i) out[i] *= scale;  // the same product as v[i] * scale
    out += t->size();
  }
}

void Replica::scatterRunningStats(const float* in) {
  for (Tensor* t : m_runningStats) {
    m_device.copy(t->data(), in, t->size());
    in += t->size();
  }
}

Optimizer& Replica::optimizer() {
  // Pull only when the device holds the newer state. Once handed out, the host state stays the
  // newer one until the next step pushes it: a resume restores it on the host, and a checkpoint
  // taken before that step (a run stopped at an epoch's last iteration resumes into the
  // epoch's end) must not overwrite it with the device's empty state on one replica only.
  if (m_solver && !m_optimizerViewOut) {
    m_solver->pullState(*m_optimizer);
    m_optimizerViewOut = true;
  }
  return *m_optimizer;
}

void Replica::fastBackward(float weight) {
  if (m_solver) weight *= m_solver->lossScale();  // Note [Fused solver step]: half precision
  if (!m_reducer) {
    m_network->backward(weight);
    return;
  }
  m_network->backward(weight, [this](int node) {
    for (int g : m_gradientsOfNode[static_cast<size_t>(node)]) m_reducer->gradientReady(g);
  });
}

void Replica::reproducibleForwardBackward(const Dataset& train, std::span<const int64_t> slice, int64_t epoch,
                                          float weight, StepFigures& f) {
  double& lossSum = f.lossSum;
  const int64_t chunk = m_plan.chunk;
  const bool hasStats = m_statsBuffer.size() > 0;
  if (hasStats) captureRunningStats(m_statsSnapshot.data(), 1.0f);
  const float statsScale = static_cast<float>(chunk) * weight;
  for (int64_t start = 0; start < static_cast<int64_t>(slice.size()); start += chunk) {
    const std::span<const int64_t> ids = slice.subspan(static_cast<size_t>(start), static_cast<size_t>(chunk));
    if (hasStats && start > 0) scatterRunningStats(m_statsSnapshot.data());
    gather(train, ids, epoch, f.dataSeconds);
    lossSum += sumOf(m_network->forward(m_x, m_y, true, RandomKey{m_seed, 0, static_cast<uint64_t>(epoch), ids.data()}));
    m_network->backward(m_solver ? weight * m_solver->lossScale() : weight);
    float* leaf = m_tree->next();
    for (const Tensor* g : m_gradients) {
      m_device.download(leaf, g->data(), g->size());
      leaf += g->size();
    }
    captureRunningStatsToHost(leaf, statsScale);
    m_tree->push();
  }
  // The worker's subtree, back into the gradients and the statistics buffer.
  m_tree->finish(m_treeSum.data());
  const float* in = m_treeSum.data();
  for (Tensor* g : m_gradients) {
    m_device.upload(g->data(), in, g->size());
    in += g->size();
  }
  m_device.upload(m_statsBuffer.data(), in, m_statsBuffer.size());
}

// Note [Gradient accumulation]
// config.accumulate_gradients = K makes the logical batch K times larger (planTraining) while a
// device holds one micro-batch of about batch_size samples at a time: a batch larger than memory.
// In reproducible mode nothing more is needed: the logical batch is already cut into chunks of
// at most 32 samples, each forward and backward runs on one chunk and the chunks' gradients are
// summed in a tree fixed by the logical batch (Note [Reproducible training]), so K micro-batches of
// batch_size train bit for bit as one batch of K × batch_size — on any device count. In fast mode
// the device's slice runs as K near-equal micro-batches: each forward and backward in turn, the
// gradients of the first K − 1 summed into m_accumulated on the device and added to the last's,
// and the all-reduce (of the sum) follows, not overlapped with backward. Each micro-batch's loss is
// read as it comes; BatchNormalization's running statistics move with every micro-batch, as in a
// framework's accumulation loop.
void Replica::accumulatedForwardBackward(const Dataset& train, std::span<const int64_t> slice, int64_t epoch,
                                         float weight, StepFigures& f) {
  const auto k = static_cast<size_t>(std::min<int64_t>(m_plan.accumulation, static_cast<int64_t>(slice.size())));
  const float scaled = m_solver ? weight * m_solver->lossScale() : weight;
  size_t done = 0;
  for (size_t m = 0; m < k; ++m) {
    const size_t size = slice.size() * (m + 1) / k - done;
    const std::span<const int64_t> ids = slice.subspan(done, size);
    done += size;
    gather(train, ids, epoch, f.dataSeconds);
    m_network->queueForward(m_x, m_y, true, RandomKey{m_seed, 0, static_cast<uint64_t>(epoch), ids.data()});
    f.lossSum += sumOf(m_network->queuedLoss());
    m_network->backward(scaled);
    for (size_t g = 0; g < m_gradients.size() && k > 1; ++g) {
      Tensor& sum = m_accumulated[g];
      float* grad = m_gradients[g]->data();
      if (m + 1 == k) m_device.accumulate(grad, sum.data(), sum.size());
      else if (m == 0) m_device.copy(sum.data(), grad, sum.size());
      else m_device.accumulate(sum.data(), grad, sum.size());
    }
  }
}

StepFigures Replica::trainStep(const Dataset& train, std::span<const int64_t> logicalBatch, int64_t epoch, double lr) {
  StepFigures f;
  const StepProfile profile(m_network->profiler(), f);  // Note [Layer profile]: nothing unless --profile
  const auto start = Clock::now();
  const std::span<const int64_t> slice = logicalBatch.subspan(static_cast<size_t>(m_slot.offset), static_cast<size_t>(m_slot.batch));
  const float weight = 1.0f / static_cast<float>(logicalBatch.size());
  const bool hasStats = m_statsBuffer.size() > 0;
  const bool shared = m_comm.size() > 1;
  if (m_average && !m_average->started()) {  // Note [Weight averaging]: from the weights before the first step
    m_network->kernelParameters();            // a host view still out (a restore) reaches the device first
    m_average->start();
  }
  // Note [Loss read after the step is queued]: on a device with memory of its own (a GPU).
  const bool lossLater = !m_plan.deterministic && m_accumulated.empty() && m_device.deviceAllocator() != nullptr;

  if (m_plan.deterministic || !m_accumulated.empty()) {
    if (m_plan.deterministic) {
      reproducibleForwardBackward(train, slice, epoch, weight, f);
    } else {
      accumulatedForwardBackward(train, slice, epoch, weight, f);
      if (hasStats && shared) captureRunningStats(m_statsBuffer.data(), static_cast<float>(slice.size()) * weight);
    }
    if (m_reducer)
      for (int b = 0; b < m_buckets->bucketCount(); ++b) m_reducer->bucketReady(b);
  } else {
    gather(train, slice, epoch, f.dataSeconds);
    const RandomKey key{m_seed, 0, static_cast<uint64_t>(epoch), slice.data()};
    if (!queueStepFromGraph(key, weight)) {
      m_network->queueForward(m_x, m_y, true, key);
      if (!lossLater) f.lossSum = sumOf(m_network->queuedLoss());
      // The running statistics, weighted by this worker's share, so their sum is the mean.
      if (hasStats && shared) captureRunningStats(m_statsBuffer.data(), static_cast<float>(slice.size()) * weight);
      fastBackward(weight);
    }
  }
  f.computeSeconds = secondsSince(start) - f.dataSeconds;

  // Note [Loss read after the step is queued]: with a communicator that queues, the running
  // statistics' all-reduce is queued after the gradients' buckets (the same order on every rank),
  // the device's statistics copy and optimizer step wait on the device for the sums, and the host
  // waits for the collectives afterwards.
  const bool stepBeforeWait = lossLater && m_reducer && m_comm.queuesCollectives();
  if (stepBeforeWait) {
    const int statsTag = m_buckets->bucketCount();  // after the buckets' tags
    // The statistics' mark before the compute stream waits for the buckets: finishQueued() waits
    // for the last mark without a time limit (its own work), and a late peer must still time out.
    if (hasStats) m_comm.markQueued(statsTag);
    m_reducer->orderAfterReduced();
    if (hasStats) {
      const ReducePiece stats{m_statsBuffer.data(), m_statsBuffer.size()};
      m_comm.queueAllReduceSumPieces(std::span<const ReducePiece>(&stats, 1), m_statsBuffer.data(), statsTag);
      m_comm.orderAfterQueued();
      scatterRunningStats(m_statsBuffer.data());
    }
    queueOptimizerStep(lr, f);
  }
  if (shared) {
    const auto waitStart = Clock::now();
    std::optional<double> deviceWait;  // Note [Queued collectives]: measured on the device's clock
    if (m_reducer) {
      m_reducer->wait();  // with stepBeforeWait the statistics' collective too
      const BucketReducer::Timing t = m_reducer->lastIteration();
      f.syncSeconds = t.commSeconds;
      if (t.deviceClock) deviceWait = t.waitSeconds;
    }
    double statsSeconds = 0;
    if (hasStats && !stepBeforeWait) {
      const auto statsStart = Clock::now();
      m_comm.allReduceSum(m_statsBuffer.data(), m_statsBuffer.size());
      statsSeconds = secondsSince(statsStart);
      f.syncSeconds += statsSeconds;
    }
    f.waitSeconds = deviceWait ? *deviceWait + statsSeconds : secondsSince(waitStart);
  }
  if (!stepBeforeWait) {
    if (hasStats && (shared || m_plan.deterministic)) scatterRunningStats(m_statsBuffer.data());
    queueOptimizerStep(lr, f);
  }
  if (lossLater) {
    const auto lossStart = Clock::now();
    f.lossSum = sumOf(m_network->queuedLoss());
    f.computeSeconds += secondsSince(lossStart);
  }
  return f;
}

// Note [CUDA graphs of a step]
// A small network's step on a GPU is launch-bound: the host queues a few hundred kernels, each a
// few microseconds of the GPU's time. So where the device records and replays (a CUDA graph), one
// worker trains in fast mode, and no layer draws random numbers (Dropout's stream changes every
// step, and a graph's arguments are frozen), the step's forward and backward are captured once and
// launched as one graph from then on: the host only gathers the batch into its staging memory,
// writes the loss target (Network::prepareReplay) and launches. The graph reads the batch and the
// target from the staging memory and writes the loss into its host copy, at fixed addresses
// (Note [Staging memory sized before the first step]). The optimizer step stays outside, queued
// after the launch: its learning rate and step count change every step. A capture holds pointers,
// so it is used only while the device memory's generation (DeviceContext::memoryGeneration: every
// block handed out or given back) is the one it was made in; after a change (the first steps,
// validation's larger batches) one step runs eagerly, allocating what it needs, and the next is
// captured again. A capture refused by the device (a call it cannot hold) turns graphs off for
// the replica; the step then runs eagerly, as it does with --profile, half precision (its loss
// scale changes), several workers, reproducible mode, or NETSMITH_CUDA_GRAPHS=off. The simulated
// GPUs capture and replay as CUDA does (Note [Simulated CUDA graphs]), and tests compare the
// parameters trained with graphs to those trained without, bit for bit.
bool Replica::queueStepFromGraph(const RandomKey& key, float weight) {
  if (!m_stepGraph.allowed || m_network->profiler() || (m_solver && m_solver->lossScale() != 1.0f)) return false;
  const uint64_t generation = m_device.memoryGeneration();
  if (m_stepGraph.ready && generation == m_stepGraph.generation) {
    m_network->prepareReplay(m_x, m_y);
    m_device.launchCaptured();
    return true;
  }
  m_stepGraph.ready = false;
  if (generation != m_stepGraph.eagerGeneration) {  // memory changed: one step eagerly first
    m_stepGraph.eagerGeneration = generation;
    return false;
  }
  m_device.beginCapture();
  bool captured = false;
  try {
    m_network->queueForward(m_x, m_y, true, key);
    m_network->backward(weight);  // one worker, loss scale 1
    captured = m_device.endCapture();
  } catch (const std::exception&) {
    m_device.endCapture();  // the call the capture refused threw: end it; the eager step follows
  }
  if (!captured) {
    m_stepGraph.allowed = false;
    return false;
  }
  m_stepGraph.ready = true;
  m_stepGraph.generation = m_device.memoryGeneration();
  m_device.launchCaptured();
  return true;
}

void Replica::queueOptimizerStep(double lr, StepFigures& f) {
  const auto stepStart = Clock::now();
  StepTimer* profiler = m_network->profiler();
  const StepTimer::Mark profileStart = profiler ? profiler->now() : StepTimer::Mark{};
  if (m_solver) {
    if (m_optimizerViewOut) m_solver->pushState(*m_optimizer);
    m_optimizerViewOut = false;
    const int64_t skippedBefore = m_solver->skippedSteps();
    m_solver->step(m_slots, lr);
    // Note [Weight averaging]: not after half precision's overflow (the host knows it now), nor
    // after a non-finite gradient (the flag the device's kernel reads).
    if (m_average && m_solver->skippedSteps() == skippedBefore) m_average->update(m_solver->skipFlag());
  } else {
    // Note [Gradient clipping]: the all-reduced gradient's norm, the same on every worker.
    const double norm = std::sqrt(m_squaredNorm(m_gradients));
    const float scale = clipScale(norm, m_plan.optimizer.clipGradientNorm);
    m_norms.observe(norm, scale != 1.0f, m_norms.steps + 1);
    if (std::isfinite(norm)) {  // else the step is skipped: the run fails on it (Note [Divergence])
      if (scale != 1.0f) scaleGradients(m_gradients, scale);
      m_optimizer->step(m_slots, lr);
      if (m_average) m_average->update(nullptr);  // Note [Weight averaging]
    }
  }
  f.computeSeconds += secondsSince(stepStart);
  if (profiler) profiler->add(ProfilePhase::Optimizer, profileStart);
}

SampleFeed* Replica::feedFor(const Dataset& data) {
  if (!data.file) return nullptr;
  for (auto& feed : m_feeds)
    if (&feed->dataset() == &data) return feed.get();
  // Room for two of this worker's batches ahead, within 64 MB.
  const int64_t batch = std::max<int64_t>(m_slot.batch, 1);
  const int64_t fit = std::max<int64_t>((int64_t{64} << 20) / std::max<int64_t>(data.sampleNumel(), 1), 1);
  m_feeds.push_back(std::make_unique<SampleFeed>(data, std::max<int64_t>(std::min(2 * batch, fit), 1)));
  return m_feeds.back().get();
}

void Replica::announceEpoch(const Dataset& train, std::span<const int64_t> order, int64_t firstIteration) {
  SampleFeed* feed = feedFor(train);
  if (!feed || m_slot.batch == 0) return;
  const auto logical = static_cast<int64_t>(m_plan.logicalBatch);
  std::vector<int64_t> sequence;
  for (int64_t it = firstIteration; (it + 1) * logical <= static_cast<int64_t>(order.size()); ++it) {
    const int64_t* slice = order.data() + it * logical + m_slot.offset;
    sequence.insert(sequence.end(), slice, slice + m_slot.batch);
  }
  feed->announce(std::move(sequence));
}

void Replica::gather(const Dataset& data, std::span<const int64_t> ids, int64_t epoch, double& dataSeconds) {
  const auto start = Clock::now();
  // The layer profile times training steps only (Note [Layer profile]): not validation's batches.
  profiled(epoch >= 0 ? m_network->profiler() : nullptr, ProfilePhase::Data, [&] {
    gatherBatch(data, ids, m_x, m_y, feedFor(data));
    if (epoch >= 0) augmentBatch(m_plan.augmentation, m_seed, epoch, ids, m_x);  // training only: Note [Augmentation draws]
  });
  dataSeconds += secondsSince(start);
}

std::vector<BatchCounts> Replica::evaluateBlocks(const Dataset& data, int64_t begin, int64_t end, int64_t block,
                                                 const std::function<bool()>& stop) {
  std::vector<BatchCounts> out;
  std::vector<int64_t> ids;
  const OpSchema& loss = *m_graph.loss().schema;
  if (SampleFeed* feed = feedFor(data)) {
    std::vector<int64_t> range(static_cast<size_t>(std::max<int64_t>(end - begin, 0)));
    std::iota(range.begin(), range.end(), begin);
    feed->announce(std::move(range));
  }
  for (int64_t start = begin; start < end; start += block) {
    if (stop && stop()) break;
    const int64_t n = std::min(block, end - start);
    ids.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) ids[static_cast<size_t>(i)] = start + i;
    double dataSeconds = 0;
    gather(data, ids, -1, dataSeconds);
    const Tensor& perSample = m_network->forward(m_x, m_y, false, RandomKey{m_seed, 0, 0, ids.data()});
    out.push_back(countBatch(loss, perSample, m_network->prediction(), m_y));
  }
  return out;
}

std::optional<DivergenceFinding> Replica::diagnoseDivergence(const Dataset& train, std::span<const int64_t> logicalBatch,
                                                             int64_t epoch) {
  if (auto found = findNonFiniteParameters(*m_network)) return found;
  // The step's own slices (a chunk in reproducible mode, a micro-batch with Note [Gradient
  // accumulation]), so the kernels see what they saw and the device holds no more than it did.
  const int64_t micro = (m_slot.batch + m_plan.accumulation - 1) / std::max<int64_t>(m_plan.accumulation, 1);
  const int64_t slice = std::max<int64_t>(m_plan.deterministic ? m_plan.chunk : micro, 1);
  const auto size = static_cast<int64_t>(logicalBatch.size());
  const float weight = 1.0f / static_cast<float>(size);
  for (int64_t start = 0; start < size; start += slice) {
    const std::span<const int64_t> ids =
        logicalBatch.subspan(static_cast<size_t>(start), static_cast<size_t>(std::min(slice, size - start)));
    double dataSeconds = 0;
    gather(train, ids, epoch, dataSeconds);
    m_network->forward(m_x, m_y, true, RandomKey{m_seed, 0, static_cast<uint64_t>(epoch), ids.data()});
    if (auto found = findForwardProblem(*m_network)) return found;
    m_network->backward(weight);
    if (auto found = findNonFiniteBackward(*m_network)) return found;
  }
  return std::nullopt;
}

void Replica::exchangeAverage() {
  if (!m_average) return;
  m_network->kernelParameters();  // a host view still out (a restore) reaches the device first
  m_average->exchange();
}

GradientNorms Replica::gradientNorms() { return m_solver ? m_solver->gradientNorms() : m_norms; }

std::string Replica::fingerprint() { return parametersSha256(m_network->parameters()); }

int64_t Replica::memoryBytes() const {
  int64_t bytes = m_network->tensorBytes() + (m_statsBuffer.capacity() + m_statsSnapshot.capacity()) * 4;
  for (const auto& [name, t] : m_optimizer->stateTensors()) bytes += t->size() * 4;
  if (m_average) bytes += m_average->bytes();
  if (m_buckets)
    for (int b = 0; b < m_buckets->bucketCount(); ++b) bytes += m_buckets->bucketSize(b) * 4;
  return bytes;
}

}  // namespace netsmith
