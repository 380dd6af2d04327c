// The kernels of Note [Deterministic GPU reductions] (host_device/deterministic_reduction.h) and
// launchReduction, which runs a plan's levels on a stream (nvcc only). The kernels only sequence
// the host-device steps (serialRun, laneRun, treeStep, deliver) that tst_cuda_reduction_bodies
// runs on the CPU in the same decomposition; each item is one thread's or one block's from start
// to end, so neither the grid nor the schedule changes a bit.
#pragma once

#include <cstdint>

#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_device.h"
#include "engine/host_device/deterministic_reduction.h"

namespace netsmith::cuda {

// A thread-per-item level: items (output, chunk) in a grid-stride loop.
template <typename Terms, typename Sink>
__global__ void reduceByThreads(ReductionLevel level, ReduceLayout layout, int64_t outputs, Terms terms, Sink sink,
                                typename Terms::Value* partials) {
  NS_GRID_STRIDE(i, outputs * level.chunks) {
    int64_t o, c;
    itemOf(layout, outputs, level.chunks, i, o, c);
    const auto acc = serialRun(terms, o, chunkBegin(layout, c), chunkEnd(level, layout, c));
    deliver(level, layout, outputs, o, c, acc, sink, partials);
  }
}

// A block-per-item level (kReduceThreads threads): items in a block-stride loop.
template <typename Terms, typename Sink>
__global__ void __launch_bounds__(kReduceThreads) reduceByBlocks(ReductionLevel level, ReduceLayout layout,
                                                                 int64_t outputs, Terms terms, Sink sink,
                                                                 typename Terms::Value* partials) {
  using Acc = typename Terms::Value;
  // Raw storage: a __shared__ array of a class with default member initializers is not allowed.
  __shared__ alignas(Acc) unsigned char storage[sizeof(Acc) * kReduceThreads];
  Acc* lanes = reinterpret_cast<Acc*>(storage);
  const int lane = static_cast<int>(threadIdx.x);
  for (int64_t i = blockIdx.x; i < outputs * level.chunks; i += gridDim.x) {
    int64_t o, c;
    itemOf(layout, outputs, level.chunks, i, o, c);
    lanes[lane] = laneRun(terms, o, chunkBegin(layout, c), chunkEnd(level, layout, c), lane);
    __syncthreads();
    for (int width = kReduceThreads / 2; width > 0; width /= 2) {
      treeStep(lanes, lane, width);
      __syncthreads();
    }
    if (lane == 0) deliver(level, layout, outputs, o, c, lanes[0], sink, partials);
    __syncthreads();  // lanes[0] is read before the next item overwrites it
  }
}

// Runs `plan` on `stream` (forEachReductionLevel's sequence: a kernel per level). `scratch` holds
// reductionScratchBytes<Terms::Value>(plan) bytes (null when that is 0) and must stay untouched
// until the last kernel has run. `kernel` names the layer in errors.
template <typename Terms, typename Sink>
void launchReduction(const char* kernel, cudaStream_t stream, const ReductionPlan& plan, const Terms& terms,
                     const Sink& sink, void* scratch) {
  if (plan.outputs <= 0) return;
  forEachReductionLevel(plan, terms, scratch, [&](const ReductionLevel& level, const auto& levelTerms, auto* partials) {
    const int64_t items = plan.outputs * level.chunks;
    if (level.block) {
      const LaunchShape shape = perBlock(kernel, items < kGridStrideMaxBlocks ? items : kGridStrideMaxBlocks,
                                         kReduceThreads);
      reduceByBlocks<<<gridOf(shape), shape.block, 0, stream>>>(level, plan.layout, plan.outputs, levelTerms, sink,
                                                                partials);
    } else {
      const LaunchShape shape = gridStride(kernel, items);
      reduceByThreads<<<gridOf(shape), shape.block, 0, stream>>>(level, plan.layout, plan.outputs, levelTerms, sink,
                                                                 partials);
    }
    NS_CUDA_CHECK_LAUNCH();
  });
}

// launchReduction with its partials in the context's workspace (Note [Deterministic GPU
// reductions]); the workspace is the context's one scratch buffer, so nothing else may use it
// until these kernels have run: they are queued on the compute stream, which is in order.
template <typename Terms, typename Sink>
void launchReduction(const char* kernel, CudaDeviceContext& context, int64_t outputs, int64_t count,
                     ReduceLayout layout, const Terms& terms, const Sink& sink) {
  const ReductionPlan plan = planReduction(outputs, count, layout);
  const size_t bytes = reductionScratchBytes<typename Terms::Value>(plan);
  launchReduction(kernel, context.stream(), plan, terms, sink, bytes ? context.workspace(bytes) : nullptr);
}

}  // namespace netsmith::cuda
