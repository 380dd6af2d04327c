#include "engine/train/parallel_plan.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "engine/backend/cpu/cpu_precision.h"
#include "engine/devices/device_factory.h"
#include "engine/core/atomic_file.h"
#include "engine/core/error.h"
#include "engine/core/precision.h"
#include "engine/data/augment.h"
#include "engine/op_interface/op_registry.h"
#include "engine/optim/lr_schedule.h"
#include "engine/optim/optimizer.h"
#include "engine/project/device_name.h"
#include "engine/train/memory_estimate.h"

namespace netsmith {
namespace {

constexpr int64_t kMaxChunk = 32;
// A BatchNormalization statistic over this many samples or fewer is noisy enough to say so.
constexpr int64_t kFewBatchNormSamples = 16;

bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

std::string deviceNoun(int64_t n) { return n == 1 ? "device" : "devices"; }

// Splits `total` samples over the devices in proportion to their loads (largest remainder;
// ties go to the earlier device), so the slices add up to `total` exactly.
void apportion(std::vector<DevicePlan>& devices, int64_t total) {
  double loadSum = 0;
  for (const auto& d : devices) loadSum += d.load;
  std::vector<std::pair<double, size_t>> remainders;
  int64_t given = 0;
  for (size_t i = 0; i < devices.size(); ++i) {
    const double exact = static_cast<double>(total) * devices[i].load / loadSum;
    devices[i].batch = static_cast<int64_t>(std::floor(exact));
    given += devices[i].batch;
    if (devices[i].load > 0) remainders.emplace_back(exact - std::floor(exact), i);
  }
  std::stable_sort(remainders.begin(), remainders.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t k = 0; given < total; ++k, ++given) devices[remainders[k % remainders.size()].second].batch += 1;
  int64_t offset = 0;
  for (auto& d : devices) {
    d.offset = offset;
    offset += d.batch;
  }
}

// Note [Reproducible training] explains the choice: the chunk is the logical batch divided by
// the smallest power of two >= 4 that leaves at most kMaxChunk samples, so that 1, 2 and 4
// equal devices each hold a power-of-two number of whole chunks.
int64_t primaryChunk(int64_t logicalBatch) {
  for (int64_t parts = 4; parts <= logicalBatch; parts *= 2) {
    if (logicalBatch % parts != 0) return 0;
    if (logicalBatch / parts <= kMaxChunk) return logicalBatch / parts;
  }
  return 0;
}

}  // namespace

std::vector<std::string> parseDeviceList(const std::string& commaSeparated) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= commaSeparated.size()) {
    const size_t comma = std::min(commaSeparated.find(',', start), commaSeparated.size());
    const std::string id = commaSeparated.substr(start, comma - start);
    NS_CHECK(isDeviceName(id), "--devices: expected a comma-separated list such as cpu:0,cpu:1 or cuda:0,cuda:1, got \"{}\" in \"{}\"",
             id, commaSeparated);
    NS_CHECK(std::find(out.begin(), out.end(), id) == out.end(), "--devices: {} is listed twice", id);
    out.push_back(id);
    start = comma + 1;
  }
  return out;
}

TrainingPlan planTraining(const Project& project, int64_t trainSamples, int64_t maxEpoch, int cores,
                          bool hasBatchNormalization, const KeptBatch* kept) {
  const ParallelConfig& par = project.parallel;
  TrainingPlan plan;
  plan.lrPolicy = par.lrPolicy;
  plan.batchSize = project.config.batchSize;
  plan.trainSamples = trainSamples;
  plan.maxEpoch = maxEpoch;
  plan.deterministic = project.config.deterministic;
  plan.augmentation = project.config.augmentation;
  plan.augmentationText = describeAugmentation(plan.augmentation);
  NS_CHECK(trainSamples >= 1, "the training set has no samples");
  if (plan.augmentation.enabled()) {
    // The Input's shape as written (the graph checked it); absent: the Input's default (1,28,28).
    for (const NodeSpec& node : project.network.nodes) {
      const OpSchema* schema = OpRegistry::builtin().find(node.type);
      if (!schema || !schema->isInput) continue;
      const Json* shape = node.params.is_object() && node.params.contains("shape") ? &node.params.at("shape") : nullptr;
      if (!shape || !shape->is_array()) continue;
      Shape dims;
      for (const Json& d : *shape) dims.push_back(d.is_number() ? d.get<int64_t>() : 0);
      checkAugmentable(plan.augmentation, dims, format("the Input '{}'", node.id));
    }
  }

  NS_CHECK(par.workerLoad.empty() || par.workerLoad.size() == par.devices.size(),
           "parallel.worker_load: {} load(s) for {} devices ({}): give one load per device, or remove worker_load for "
           "equal loads",
           par.workerLoad.size(), par.devices.size(), [&] {
             std::string s;
             for (const auto& d : par.devices) s += (s.empty() ? "" : ",") + d;
             return s;
           }());
  for (size_t i = 0; i < par.devices.size(); ++i) {
    DevicePlan d;
    d.id = par.devices[i];
    const bool cuda = localDeviceId(d.id).rfind("cuda:", 0) == 0;
    NS_CHECK(!cuda || findDeviceKind(localDeviceId(d.id)),
             "parallel.devices[{}]: \"{}\" needs the CUDA backend, which this build does not have: use CPU workers "
             "(\"cpu:0\", \"cpu:1\", ...)",
             i, d.id);
    NS_CHECK(i == 0 || cuda == (localDeviceId(par.devices[0]).rfind("cuda:", 0) == 0),
             "parallel.devices: {} and {} are of different kinds; train on devices of one kind (all cpu:N or all "
             "cuda:N)",
             par.devices[0], d.id);
    if (!cuda) {
      // cpu:N names a worker, not a core: more workers than cores may share them (a warning
      // below says so), but a number far beyond the machine is a mistake, not a plan.
      const std::string local = localDeviceId(d.id);
      const long long worker = std::stoll(local.substr(local.find(':') + 1));
      const int limit = kCpuWorkersPerCore * std::max(cores, 1);
      NS_CHECK(worker < limit,
               "parallel.devices[{}]: \"{}\": this machine has {} core{} (CPU workers cpu:0..cpu:{} in `netsmith-cli "
               "devices`); more workers than cores share them, up to {} per core (cpu:0..cpu:{}): choose workers "
               "in that range",
               i, d.id, cores, cores == 1 ? "" : "s", std::max(cores, 1) - 1, kCpuWorkersPerCore, limit - 1);
    }
    d.load = par.workerLoad.empty() ? 1.0 : par.workerLoad[i];
    plan.activeDevices += d.load > 0 ? 1 : 0;
    if (d.load == 0)
      plan.warnings.push_back(format("{} has worker_load 0: it stays idle and takes no part in training", d.id));
    plan.devices.push_back(d);
  }
  NS_CHECK(plan.activeDevices >= 1, "parallel.worker_load: every load is 0: give at least one device a load > 0");
  const int64_t n = plan.activeDevices;

  bool equalLoads = true;
  double firstLoad = 0;
  for (const auto& d : plan.devices) {
    if (d.load == 0) continue;
    if (firstLoad == 0) firstLoad = d.load;
    equalLoads = equalLoads && d.load == firstLoad;
  }

  if (kept) {
    plan.logicalBatch = kept->logicalBatch;
    plan.logicalBatchKept = true;
  } else if (par.lrPolicy == "keep_logical_batch") {
    plan.logicalBatch = plan.batchSize;
    if (equalLoads && plan.batchSize % n != 0) {
      const int64_t below = plan.batchSize / n * n;
      const int64_t above = below + n;
      NS_THROW("config.batch_size: {} samples cannot be shared evenly by {} devices (parallel.lr_policy "
               "keep_logical_batch gives each device batch_size / {}): choose {}{}",
               plan.batchSize, n, n, below > 0 ? format("{} or ", below) : std::string(), above);
    }
  } else {
    plan.logicalBatch = plan.batchSize * n;
  }
  // Note [Gradient accumulation]: each device runs this many micro-batches a step (a resumed
  // run's kept logical batch already holds them).
  plan.accumulation = project.config.accumulateGradients;
  if (!kept) plan.logicalBatch *= plan.accumulation;
  if (plan.logicalBatch > trainSamples) {
    plan.warnings.push_back(format(
        "the logical batch ({} samples: batch_size {}{}) is larger than the {} training samples: each epoch is one "
        "iteration of {} samples; choose a batch_size of at most {}",
        plan.logicalBatch, plan.batchSize, par.lrPolicy == "keep_logical_batch" ? "" : format(" × {} {}", n, deviceNoun(n)),
        trainSamples, trainSamples, par.lrPolicy == "keep_logical_batch" ? trainSamples : std::max<int64_t>(trainSamples / n, 1)));
    plan.logicalBatch = trainSamples;
  }
  NS_CHECK(plan.logicalBatch >= n,
           "the logical batch of {} samples is smaller than the {} devices: every device needs at least one sample; "
           "raise config.batch_size or use fewer devices",
           plan.logicalBatch, n);
  apportion(plan.devices, plan.logicalBatch);
  for (size_t i = 0; i < plan.devices.size(); ++i) {
    const DevicePlan& d = plan.devices[i];
    NS_CHECK(d.load == 0 || d.batch > 0,
             "parallel.worker_load[{}]: a load of {} gives {} no sample of the logical batch of {}: raise its load or "
             "set it to 0",
             i, d.load, d.id, plan.logicalBatch);
  }
  plan.iterationsPerEpoch = trainSamples / plan.logicalBatch;

  // Learning rate and its update interval.
  const auto optimizer = Optimizer::create(project.optimizer);
  plan.baseLr = optimizer->baseLearningRate();
  plan.lrScale = kept ? kept->lrScale : par.lrPolicy == "scale_lr" ? static_cast<double>(n) : 1.0;
  plan.effectiveLr = plan.baseLr * plan.lrScale;
  plan.optimizer = project.optimizer;
  plan.clipGradientNorm = project.optimizer.clipGradientNorm;
  plan.emaDecay = project.optimizer.emaDecay;
  const double batchGrowth = static_cast<double>(plan.logicalBatch) / static_cast<double>(plan.batchSize);
  plan.lrUpdateInterval = project.optimizer.lrUpdateInterval;
  if (project.optimizer.lrMultiplier < 1 && batchGrowth > 1) {
    plan.lrUpdateInterval =
        std::max<int64_t>(1, std::llround(static_cast<double>(project.optimizer.lrUpdateInterval) / batchGrowth));
    if (static_cast<double>(project.optimizer.lrUpdateInterval) < batchGrowth)
      plan.warnings.push_back(format(
          "optimizer.lr_update_interval: {} iteration(s) is less than the {} {}: the learning rate is multiplied by {} "
          "every iteration, i.e. every {} samples instead of every {} as on one device",
          project.optimizer.lrUpdateInterval, n, deviceNoun(n), project.optimizer.lrMultiplier, plan.logicalBatch,
          project.optimizer.lrUpdateInterval * plan.batchSize));
  }
  plan.optimizer.lrUpdateInterval = plan.lrUpdateInterval;
  const LearningRateSchedule schedule(plan.optimizer, plan.effectiveLr, plan.iterationsPerEpoch, std::max<int64_t>(maxEpoch, 1));
  plan.warmupIterations = schedule.warmupIterations();

  // CPU threads: the workers share the cores (Note [CPU threads per worker]).
  // Reproducible mode fixes the count whatever the number of devices: Note [Reproducible training].
  const int threads = cpuThreadsPerWorker(par.threadsPerDevice, plan.deterministic, cores, static_cast<int>(n));
  // A GPU worker's thread only queues work: one thread, and the device's utilization is the GPU's.
  const bool gpus = localDeviceId(plan.devices.front().id).rfind("cuda:", 0) == 0;
  for (auto& d : plan.devices) d.threads = d.batch > 0 ? (gpus ? 1 : threads) : 0;
  plan.precision = project.config.precision;
  const Precision precision = parsePrecision(plan.precision);
  if (!gpus) {
    cpu::checkCpuPrecision(precision);  // Note [CPU bfloat16]
    if (precision == Precision::BFloat16)
      plan.precisionNote = "bf16 products in convolutions and inner products, float32 accumulation, weights and "
                           "optimizer; bf16 on this CPU: " + cpu::bf16SupportText();
  } else if (precision != Precision::Float) {
    plan.precisionNote = precision == Precision::Half
                             ? "fp16 activations and tensor cores, float32 weights, dynamic loss scaling"
                             : "bf16 activations and tensor cores, float32 weights";
  }
  if (!gpus && n * threads > cores)
    plan.warnings.push_back(format("{} CPU workers × {} thread(s) need {} cores but this machine has {}: the workers "
                                   "share cores and slow each other down",
                                   n, threads, n * threads, cores));

  // Reproducible mode: Note [Reproducible training].
  if (plan.deterministic) {
    int64_t common = 0;
    int64_t firstBatch = 0;
    bool sameBatches = true;
    for (const auto& d : plan.devices) {
      if (d.batch == 0) continue;
      common = std::gcd(common, d.batch);
      if (firstBatch == 0) firstBatch = d.batch;
      sameBatches = sameBatches && d.batch == firstBatch;
    }
    plan.chunk = primaryChunk(plan.logicalBatch);
    const bool treeChunks = plan.chunk > 0 && sameBatches && common % plan.chunk == 0 && isPowerOfTwo(common / plan.chunk);
    if (!treeChunks) {
      plan.chunk = 1;
      for (int64_t c = kMaxChunk; c > 1; --c)
        if (common % c == 0) {
          plan.chunk = c;
          break;
        }
    }
    // The chunks make the sums independent of the device count; only keep_logical_batch keeps
    // the logical batch and the learning rate themselves (scale_lr grows both with the devices).
    plan.identicalAcrossDeviceCounts = treeChunks && (kept || par.lrPolicy == "keep_logical_batch");
    if (kept && !treeChunks)
      plan.warnings.push_back(format(
          "config.deterministic: these {} {} share the run's logical batch of {} in slices that are not equal "
          "power-of-two numbers of chunks, so the resumed run repeats bit for bit on these devices but its weights "
          "differ from the run's on its own devices; for the same weights resume on 1, 2 or 4 equal devices",
          n, deviceNoun(n), plan.logicalBatch));
    else if (!plan.identicalAcrossDeviceCounts)
      plan.warnings.push_back(format(
          "config.deterministic: this run repeats bit for bit on these devices, but another number of devices gives "
          "other weights{}: for the same weights on 1, 2 and 4 devices use parallel.lr_policy keep_logical_batch, equal "
          "loads and a batch_size that is a power of two times at most {} (such as 64, 128 or 256)",
          par.lrPolicy == "keep_logical_batch"
              ? std::string()
              : format(" (lr_policy {} changes the logical batch{} with the device count)", par.lrPolicy,
                       par.lrPolicy == "scale_lr" ? " and the learning rate" : ""),
          kMaxChunk));
  }

  if (hasBatchNormalization) {
    int64_t smallest = plan.logicalBatch;
    for (const auto& d : plan.devices)
      if (d.batch > 0) smallest = std::min(smallest, d.batch);
    if (plan.deterministic) smallest = std::min(smallest, plan.chunk);
    if (smallest <= kFewBatchNormSamples && n > 1)
      plan.warnings.push_back(format(
          "BatchNormalization computes its statistics over {} samples per device{}: so few make them noisy; raise "
          "config.batch_size or use fewer devices",
          smallest, plan.deterministic ? " (per chunk, in reproducible mode)" : ""));
  }
  return plan;
}

std::string TrainingPlan::toText() const {
  std::string s;
  std::string devs;
  for (const auto& d : devices) {
    devs += devs.empty() ? "" : ", ";
    devs += d.batch == 0 ? format("{} (idle)", d.id)
                         : format("{} ({} samples, {} thread{})", d.id, d.batch, d.threads, d.threads == 1 ? "" : "s");
  }
  s += format("Devices:              {}\n", devs);
  if (logicalBatchKept)
    s += format("Logical batch:        {} (the resumed run's own, shared by {} {})\n", logicalBatch, activeDevices,
                deviceNoun(activeDevices));
  else if (lrPolicy == "keep_logical_batch")
    s += format("Logical batch:        {} (batch_size {}, shared by {} {}: lr_policy keep_logical_batch)\n", logicalBatch,
                batchSize, activeDevices, deviceNoun(activeDevices));
  else
    s += format("Logical batch:        {} (batch_size {} × {} {}: lr_policy {})\n", logicalBatch, batchSize,
                activeDevices, deviceNoun(activeDevices), lrPolicy);
  if (accumulation > 1)
    s += format("Accumulation:         {} micro-batches per device and step, their gradients summed before one update "
                "(config.accumulate_gradients): activations of one micro-batch in memory\n",
                accumulation);
  s += format("Iterations per epoch: {} ({} samples), {} epochs\n", iterationsPerEpoch, trainSamples, maxEpoch);
  s += lrScale != 1 ? format("Learning rate:        {} ({} × {})\n", effectiveLr, baseLr, lrScale)
                    : format("Learning rate:        {}\n", effectiveLr);
  s += format("Update interval:      every {} iteration(s)\n", lrUpdateInterval);
  if (precision != "float") s += format("Precision:            {} ({})\n", precision, precisionNote);
  if (warmupIterations > 0) s += format("Warm-up:              {} iterations\n", warmupIterations);
  if (clipGradientNorm > 0)  // Note [Gradient clipping]
    s += format("Gradient clipping:    the gradients' global norm at most {} (optimizer.clip_gradient_norm)\n",
                clipGradientNorm);
  if (emaDecay > 0)  // Note [Weight averaging]
    s += format("Weights:              exponential moving average, decay {} (validated and saved; training continues "
                "from the weights)\n",
                emaDecay);
  s += format("Augmentation:         {}\n", describeAugmentation(augmentation));
  if (deterministic)
    s += format("Reproducible:         chunks of {} samples; {}\n", chunk,
                identicalAcrossDeviceCounts
                    ? "the same weights on 1, 2 or 4 devices (lr_policy keep_logical_batch keeps the logical batch)"
                    : "repeatable on these devices only (the same weights on 1, 2 or 4 devices need lr_policy "
                      "keep_logical_batch and a batch_size of 64, 128, 256, ...)");
  for (const DataSet& d : data) {
    const std::string kept = d.storage == "streamed" ? format("streamed from {} (not held in memory)", d.source)
                             : d.storage == "bytes"  ? format("held in memory as bytes ({})", humanBytes(d.memoryBytes))
                                                     : format("held in memory as float32 ({})", humanBytes(d.memoryBytes));
    s += format("Data:                 {}: {} samples of {}, {} on disk, {}\n", d.role, d.samples, shapeToString(d.shape),
                humanBytes(d.diskBytes), kept);
  }
  if (memoryBytesNeeded > 0 && memory.empty())
    s += format("Memory:               about {} ({} of parameters, gradients and optimizer state and about {} of "
                "activations per device, the data held and the batches read ahead)\n",
                humanBytes(memoryBytesNeeded), humanBytes(modelBytesPerWorker), humanBytes(activationBytesPerWorker));
  for (const protocol::DeviceMemoryNeed& m : memory) s += describeMemoryNeed(m);
  if (activationStorage != "float32")
    s += format("Activations:          {} in the layers whose GPU kernels take it, float32 elsewhere\n", activationStorage);
  if (diskBytesNeeded > 0)
    s += format("Disk:                 {} for the run folder ({} per checkpoint: 3 kept and 1 being written, and the "
                "parameter files); {} free in {}\n",
                humanBytes(diskBytesNeeded), humanBytes(checkpointBytes), humanBytes(diskBytesFree), runFolder);
  for (const auto& w : warnings) s += "Warning: " + w + "\n";
  return s;
}

int cpuThreadsPerWorker(int threadsPerDevice, bool sameOnAnyDeviceCount, int cores, int devices) {
  if (threadsPerDevice > 0) return threadsPerDevice;
  if (sameOnAnyDeviceCount) return 1;
  return std::max(1, cores / std::max(devices, 1));
}

}  // namespace netsmith
