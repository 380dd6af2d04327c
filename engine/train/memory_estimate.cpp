#include "engine/train/memory_estimate.h"

#include <algorithm>

#include "engine/core/atomic_file.h"
#include "engine/core/error.h"

namespace netsmith {
namespace {

// The need at `batch`, without the largest batch (Note [Memory before launch]).
protocol::DeviceMemoryNeed needAt(const MemoryModel& m, int64_t batch) {
  protocol::DeviceMemoryNeed n;
  n.device = m.device;
  n.workers = m.workers;
  n.batch = batch;
  n.parametersBytes = 4 * m.parameterCount;
  n.gradientsBytes = 4 * m.parameterCount;
  n.optimizerStateBytes = 4 * m.parameterCount * m.optimizerBuffers;
  // Each worker's activations: outputs at the larger of its batch and its validation block.
  int64_t activations = 0;
  for (int w = 0; w < m.workers; ++w) {
    const int64_t block = static_cast<size_t>(w) < m.validationBlocks.size() ? m.validationBlocks[static_cast<size_t>(w)] : 0;
    const int64_t worker = m.perSample.outputs * std::max(batch, block) + m.perSample.gradients * batch;
    activations += worker;
    if (worker > n.activationsBytes) n.activationsBytes = worker, n.validationBlock = block;
  }
  n.baseBytes = m.baseBytes;
  n.communicationBytes = m.communicationBytes;
  n.dataBytes = m.dataBytes + m.workers * batch * m.readAheadBytesPerSample;
  const int64_t kernels = m.kernelBytesFixed + m.kernelBytesPerSample * batch;
  const int64_t model = n.parametersBytes + n.gradientsBytes + n.optimizerStateBytes;
  const int64_t rest = n.baseBytes + n.communicationBytes + n.dataBytes + m.workers * (model + kernels) + activations;
  // The trials' scratch is cut to half of what is free then (conv_algorithms.cpp), so it never
  // decides whether a run fits; with no known capacity it is the limit.
  int64_t trials = 0;
  if (m.convolutionWorkspaceBytes > 0)
    trials = m.capacityBytes > 0 ? std::clamp<int64_t>((m.capacityBytes - rest) / 2, 0, m.convolutionWorkspaceBytes)
                                 : m.convolutionWorkspaceBytes;
  n.workspaceBytes = kernels + trials;
  n.totalBytes = rest + trials;
  n.capacityBytes = m.capacityBytes;
  return n;
}

}  // namespace

protocol::DeviceMemoryNeed estimateMemory(const MemoryModel& model, int64_t batch) {
  protocol::DeviceMemoryNeed need = needAt(model, batch);
  if (model.capacityBytes <= 0 || !needAt(model, 1).fits()) return need;  // unknown, or not even one sample
  // The need grows with the batch: the largest that fits by bisection.
  int64_t fits = 1, fails = int64_t{1} << 40;
  while (fails - fits > 1) {
    const int64_t mid = fits + (fails - fits) / 2;
    (needAt(model, mid).fits() ? fits : fails) = mid;
  }
  need.largestBatch = fits;
  return need;
}

std::string describeMemoryNeed(const protocol::DeviceMemoryNeed& m) {
  const bool cpu = m.device == "cpu";
  std::string s = format("Memory:               {} about {} at {} samples per {}", cpu ? format("{} CPU worker(s):", m.workers) : m.device + ":",
                         humanBytes(m.totalBytes), m.batch, cpu ? "worker" : "device");
  if (m.capacityBytes > 0) s += format(" ({} {})", cpu ? "the machine has" : "of its", humanBytes(m.capacityBytes));
  s += format("\n                      {}parameters {}, gradients {}, optimizer state {}, activations {}{}",
              cpu && m.workers > 1 ? "each worker: " : "", humanBytes(m.parametersBytes), humanBytes(m.gradientsBytes),
              humanBytes(m.optimizerStateBytes), humanBytes(m.activationsBytes),
              m.validationBlock > m.batch ? format(" (validation blocks of {} samples)", m.validationBlock) : "");
  if (cpu)
    s += format("; the process {} (measured: libraries), data {}", humanBytes(m.baseBytes), humanBytes(m.dataBytes));
  else
    s += format("; CUDA context {}", humanBytes(m.baseBytes));
  if (m.workspaceBytes > 0) s += format(", cuDNN algorithm trials {}", humanBytes(m.workspaceBytes));
  if (m.communicationBytes > 0) s += format(", NCCL buffers {}", humanBytes(m.communicationBytes));
  s += "\n";
  if (m.largestBatch > 0)
    s += format("Largest batch:        about {} samples per {} fit{}\n", m.largestBatch, cpu ? "worker" : "device",
                cpu ? " the machine's available memory" : " " + m.device);
  return s;
}

std::string describeShortfall(const protocol::DeviceMemoryNeed& need) {
  const bool cpu = need.device == "cpu";
  const std::string who = cpu ? format("the {} CPU worker(s) need", need.workers) : need.device + " needs";
  const std::string has = cpu ? "the machine has available" : "it has";
  std::string text = format("{} about {} at a batch of {} per {} but {} {}", who, humanBytes(need.totalBytes), need.batch,
                            cpu ? "worker" : "device", has, humanBytes(need.capacityBytes));
  if (need.largestBatch > 0)
    text += format(": a batch of at most {} per {} fits (config.batch_size, or config.accumulate_gradients to keep the "
                   "logical batch)",
                   need.largestBatch, cpu ? "worker" : "device");
  else
    text += ": not even one sample per device fits";
  return text;
}

}  // namespace netsmith
