// What a run will hold in memory on each device, before it starts (the plan's "Memory" lines and
// its `memory` list), and the largest batch that fits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/model/network.h"
#include "engine/protocol/training_plan.h"

namespace netsmith {

// Note [Memory before launch]
// A run that does not fit should be refused before it loads a worker, naming the device and the
// batch that would fit, not fail in its first step (DIGITS users' complaint: an estimate that
// lies). What a worker holds is counted from the graph and the solver:
//   - parameters, their gradients and the solver's buffers (with the weights' average, Note
//     [Weight averaging]): 4 bytes × parameters each;
//   - activations: every node's output and gradient at the batch it holds at a time (a
//     micro-batch with accumulation, the whole slice in reproducible mode), in the storage its
//     kernels use (Note [16-bit activations]). Validation runs blocks of kValidationBatch (256)
//     samples through the same network, which resizes the outputs only: the outputs are counted
//     at the larger of the two, the gradients at the training batch. (LeNet at batch 64 holds
//     4× more outputs during validation than during training: this, not the kernels, was most
//     of what the old estimate missed.)
// Besides the workers' tensors:
//   - A CPU worker's convolutions keep oneDNN's blocked copies of their operands (Note [Conv
//     layouts]): chunks of about 1 MiB for forward and backward-data, and on a worker of two
//     threads or more the whole batch's source and output gradient for backward-weights.
//   - CPU workers share the process. Its libraries (oneDNN, the CUDA libraries, Qt's core) are
//     measured, not guessed: resident memory at plan time less the datasets already loaded. The
//     datasets and the batches read ahead of a streamed one are counted once.
//   - A GPU has its CUDA context (GpuRuntime::contextBytes: assumed on real GPUs, the
//     simulator's own reservation on simulated ones), cuDNN's algorithm trials (a scratch of up to
//     1 GiB within half the free memory, which the device pool keeps; none on simulated GPUs,
//     which run the CPU kernels) and NCCL's buffers with two or more GPUs.
// The measured side: the process's peak resident memory (VmHWM) and each GPU's peak memory in
// use (NVML, sampled every 100 ms), in run.json's result and the `finished` event;
// tests/integration/tst_memory_estimate.cpp and tests/simgpu/tst_sim_memory_estimate.cpp hold
// the two within 15% on the samples and the templates.
struct MemoryModel {
  std::string device;  // "cuda:0", or "cpu" for the CPU workers together
  int workers = 1;
  int64_t parameterCount = 0;
  int optimizerBuffers = 0;
  Network::ActivationBytes perSample;
  // The largest validation block each worker runs (one entry per worker; missing: none). Blocks
  // are shared out whole, so with fewer blocks than workers some run none.
  std::vector<int64_t> validationBlocks;
  int64_t baseBytes = 0;                  // see DeviceMemoryNeed::baseBytes
  int64_t dataBytes = 0;                  // CPU: the datasets held
  int64_t readAheadBytesPerSample = 0;    // CPU: streamed datasets' batches read ahead, per sample of a worker's batch
  int64_t convolutionWorkspaceBytes = 0;  // GPU: the most the algorithm trials take
  // CPU: the convolutions' blocked copies (Note [Conv layouts]): per sample of the batch (the
  // backward-weights pass's whole-batch source and output gradient on a multi-thread worker), and
  // fixed (the chunks of the other passes, sized for L2).
  int64_t kernelBytesPerSample = 0;
  int64_t kernelBytesFixed = 0;
  int64_t communicationBytes = 0;
  int64_t capacityBytes = 0;              // 0: unknown (nothing is refused)
};

// The need at `batch` samples per worker, with the largest batch that fits the capacity.
protocol::DeviceMemoryNeed estimateMemory(const MemoryModel& model, int64_t batch);

// The plan's "Memory:" line of one entry, with its parts.
std::string describeMemoryNeed(const protocol::DeviceMemoryNeed& need);

// For people: "cuda:1 needs about 20 GB at a batch of 4,096 per device (…) but has 16 GB: a batch
// of at most 3,100 per device fits" (the refusal's text and the plan's warning).
std::string describeShortfall(const protocol::DeviceMemoryNeed& need);

}  // namespace netsmith
