// TrainingRun::planData (training_run.h): the plan's data and memory — where each dataset is
// kept, and each device's memory need (Note [Memory before launch], memory_estimate.h).
#include <algorithm>
#include <map>

#include "engine/core/precision.h"
#include "engine/devices/device_factory.h"
#include "engine/model/network.h"
#include "engine/monitor/devices.h"
#include "engine/monitor/process_stats.h"
#include "engine/optim/optimizer.h"
#include "engine/train/job_sync.h"
#include "engine/train/memory_estimate.h"
#include "engine/train/training_run.h"

namespace netsmith::training {

// Note [Sample storage]: the plan says where each dataset is kept and what the run will hold in
// memory: each device's need (Note [Memory before launch], memory_estimate.h), the datasets' own
// memory, and each streamed dataset's read-ahead (two batches per worker).
void TrainingRun::planData() {
  // Note [Weight averaging]: the average is one more copy of the parameters per worker.
  const int buffers = static_cast<int>(Optimizer::create(m_project.optimizer)->bufferNames().size()) +
                      (m_project.optimizer.emaDecay > 0 ? 1 : 0);
  int64_t workers = 0, largestBatch = 0;
  std::vector<std::string> gpus;
  for (const DevicePlan& d : m_plan.devices)
    if (d.batch > 0) {
      ++workers, largestBatch = std::max(largestBatch, d.batch);
      if (d.id.find("cuda:") != std::string::npos) gpus.push_back(d.id);
    }
  // Note [16-bit activations]: what a GPU in half or bfloat16 stores in 16 bits.
  Network::ActivationRules rules{Storage::Float32, false, gpus.empty() ? "cpu" : "cuda"};
  if (!gpus.empty()) {
    rules.narrow = gpuActivationStorage(parsePrecision(m_plan.precision));
    rules.channelsLast = gpuChannelsLast(rules.narrow);
  }
  const Network::ActivationBytes perSample = Network::activationBytesPerSample(*m_graph, rules);
  m_plan.activationStorage = "float32";
  for (const GraphNode& n : m_graph->nodes)
    if (Network::formatFor(n, rules).storage != Storage::Float32) m_plan.activationStorage = storageName(rules.narrow);
  m_plan.modelBytesPerWorker = m_graph->parameterCount * 4 * (2 + buffers);
  // Note [Gradient accumulation]: in fast mode a device holds one micro-batch's activations at a
  // time (reproducible mode runs chunks, and is counted as before: its whole slice).
  auto held = [&](int64_t batch) {
    return m_plan.deterministic ? batch : (batch + m_plan.accumulation - 1) / m_plan.accumulation;
  };
  const int64_t validationSamples =
      m_project.dataset.validation.present() ? (m_validation ? m_validation->size : m_train.size) : 0;
  // JobSync::validate shares the blocks out whole: worker g of n runs blocks [B·g/n, B·(g+1)/n).
  const int64_t blocks = (validationSamples + kValidationBatch - 1) / kValidationBatch;
  auto validationBlockOf = [&](int64_t g, int64_t n) -> int64_t {
    const int64_t first = blocks * g / n, last = blocks * (g + 1) / n;
    if (last <= first) return 0;
    // A full block unless its only block is the last, partial one.
    return last - first > 1 || last < blocks ? kValidationBatch : validationSamples - (blocks - 1) * kValidationBatch;
  };
  m_plan.activationBytesPerWorker =
      perSample.outputs * std::max(held(largestBatch), validationBlockOf(workers - 1, std::max<int64_t>(workers, 1))) +
      perSample.gradients * held(largestBatch);

  m_plan.data.clear();
  int64_t dataBytes = 0, readAheadPerSample = 0;  // the datasets loaded (a dry run loads no validation set)
  for (const auto& [role, d] : {std::pair{"training", &m_train}, std::pair{"validation", m_validation ? &*m_validation : nullptr}}) {
    if (!d) continue;
    TrainingPlan::DataSet set;
    set.role = role;
    set.samples = d->size;
    set.shape = d->sampleShape;
    set.diskBytes = d->diskBytes;
    set.memoryBytes = d->memoryBytes();
    set.storage = d->file ? "streamed" : d->holdsBytes() ? "bytes" : "float32";
    set.source = d->file ? d->file->path() : d->source;
    dataBytes += set.memoryBytes;
    if (d->file) readAheadPerSample += 2 * d->sampleNumel();
    m_plan.data.push_back(set);
  }
  // Note [Memory before launch]: one entry for the CPU workers (they share the process), one per GPU.
  m_plan.memory.clear();
  auto isConvolution = [](const GraphNode& n) { return n.schema->name == "Convolution" || n.schema->name == "Deconvolution"; };
  MemoryModel model;
  model.parameterCount = m_graph->parameterCount;
  model.optimizerBuffers = buffers;
  model.perSample = perSample;
  if (gpus.empty()) {
    // Note [Conv layouts]: the blocked copies a CPU convolution keeps.
    int threads = 1;
    for (const DevicePlan& d : m_plan.devices) threads = std::max(threads, d.batch > 0 ? d.threads : 1);
    // Their weights' copies too (forward, backward-data, the weights' gradient), as the
    // inner products' (Note [Conv layouts], staged_memory.h).
    for (const GraphNode& n : m_graph->nodes) {
      const bool conv = isConvolution(n);
      if (!conv && n.schema->name != "Affine") continue;
      for (const ParamBlob& blob : n.blobs)
        if (blob.shape.size() > 1) model.kernelBytesFixed += 3 * 4 * numel(blob.shape);
      if (!conv) continue;
      model.kernelBytesFixed += int64_t{2} << 20;
      if (threads > 1) model.kernelBytesPerSample += 4 * (numel(n.inputShapes.at(0)) + numel(n.outputShape));
    }
    for (int64_t g = 0; g < workers; ++g) model.validationBlocks.push_back(validationBlockOf(g, workers));
    const int64_t resident = static_cast<int64_t>(processResidentMb() * 1024 * 1024);
    model.device = "cpu";
    model.workers = static_cast<int>(workers);
    model.baseBytes = std::max<int64_t>(resident - dataBytes, 0);  // the data is loaded: measured apart
    model.dataBytes = dataBytes;
    model.readAheadBytesPerSample = readAheadPerSample;
    if (const int64_t available = machineAvailableBytes(); available > 0) model.capacityBytes = available + resident;
    m_plan.memory.push_back(estimateMemory(model, held(largestBatch)));
  } else {
    std::map<std::string, int64_t> memoryMb;
    for (const DeviceInfo& info : trainingDevices()) memoryMb[info.id] = info.memoryMb;
    const DeviceKind& kind = deviceKindOf("cuda:0");
    const DeviceMemoryOverheads overheads =
        kind.memoryOverheads ? kind.memoryOverheads(static_cast<int>(gpus.size())) : DeviceMemoryOverheads{};
    model.baseBytes = overheads.contextBytes;
    const bool convolutions = std::any_of(m_graph->nodes.begin(), m_graph->nodes.end(), isConvolution);
    model.convolutionWorkspaceBytes = convolutions ? overheads.convolutionWorkspaceBytes : 0;
    model.communicationBytes = overheads.communicationBytes;
    int64_t g = 0;
    for (const DevicePlan& d : m_plan.devices) {
      if (d.batch == 0) continue;
      model.validationBlocks = {validationBlockOf(g++, workers)};
      if (d.id.find("cuda:") == std::string::npos) continue;
      model.device = d.id;
      const auto it = memoryMb.find(d.id);  // this process's GPUs (an mpirun job's other ranks' are not known here)
      model.capacityBytes = it != memoryMb.end() ? it->second * 1024 * 1024 : 0;
      m_plan.memory.push_back(estimateMemory(model, held(d.batch)));
    }
  }
  m_plan.deviceMemoryBytes = m_plan.largestBatchPerDevice = 0;
  for (const protocol::DeviceMemoryNeed& need : m_plan.memory) {
    if (need.largestBatch <= 0 || need.device == "cpu") continue;
    if (m_plan.largestBatchPerDevice == 0 || need.largestBatch < m_plan.largestBatchPerDevice) {
      m_plan.largestBatchPerDevice = need.largestBatch;
      m_plan.deviceMemoryBytes = need.capacityBytes;
    }
  }
  int64_t total = dataBytes + workers * (m_plan.modelBytesPerWorker + m_plan.activationBytesPerWorker) +
                  workers * largestBatch * readAheadPerSample;
  if (gpus.empty() && !m_plan.memory.empty()) total = m_plan.memory.front().totalBytes;
  m_plan.memoryBytesNeeded = total;
  for (const protocol::DeviceMemoryNeed& need : m_plan.memory)
    if (!need.fits()) m_plan.warnings.push_back("will not fit in memory: " + describeShortfall(need));
}

}  // namespace netsmith::training
