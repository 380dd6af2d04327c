// The GPU's deterministic reductions (Note [Deterministic GPU reductions]) run on the CPU: the
// plan's levels in forEachReductionLevel's sequence, each level's items in the decomposition of
// backend/cuda/deterministic_reduction.cuh — reduceByThreads' grid-stride loop over items, or
// reduceByBlocks' block-stride loop with kReduceThreads lanes, the tree steps separated as the
// barriers separate them — calling the same host-device steps (serialRun, laneRun, treeStep,
// deliver). `launch` picks the grid: how many blocks, and whether they run first to last or last to
// first (a GPU promises no order between blocks), so two launches can be compared bit for bit.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/host_device/deterministic_reduction.h"

namespace netsmith::test {

struct EmulatedLaunch {
  int64_t maxBlocks = 1 << 20;  // the grid's cap (launchReduction: kGridStrideMaxBlocks)
  bool reversed = false;        // run the blocks (threads) from the last to the first
};

template <typename Terms, typename Sink>
void emulateReduction(const cuda::ReductionPlan& plan, const Terms& terms, const Sink& sink,
                      EmulatedLaunch launch = {}) {
  using Acc = typename Terms::Value;
  using namespace netsmith::cuda;
  if (plan.outputs <= 0) return;
  std::vector<Acc> scratch(static_cast<size_t>(plan.outputs * (plan.scratchChunks[0] + plan.scratchChunks[1])));
  const auto order = [&](int64_t n, auto&& each) {
    for (int64_t k = 0; k < n; ++k) each(launch.reversed ? n - 1 - k : k);
  };
  forEachReductionLevel(plan, terms, scratch.data(), [&](const ReductionLevel& level, const auto& levelTerms,
                                                         Acc* partials) {
    const int64_t items = plan.outputs * level.chunks;
    int64_t o = 0, c = 0;
    if (level.block) {
      const int64_t blocks = std::min(items, launch.maxBlocks);
      order(blocks, [&](int64_t block) {
        Acc lanes[kReduceThreads];
        for (int64_t i = block; i < items; i += blocks) {
          itemOf(plan.layout, plan.outputs, level.chunks, i, o, c);
          for (int lane = 0; lane < kReduceThreads; ++lane)
            lanes[lane] = laneRun(levelTerms, o, chunkBegin(plan.layout, c), chunkEnd(level, plan.layout, c), lane);
          for (int width = kReduceThreads / 2; width > 0; width /= 2)
            for (int lane = 0; lane < kReduceThreads; ++lane) treeStep(lanes, lane, width);
          deliver(level, plan.layout, plan.outputs, o, c, lanes[0], sink, partials);
        }
      });
    } else {
      const int64_t threads = std::min(items, launch.maxBlocks * kReduceThreads);
      order(threads, [&](int64_t thread) {
        for (int64_t i = thread; i < items; i += threads) {
          itemOf(plan.layout, plan.outputs, level.chunks, i, o, c);
          const Acc acc = serialRun(levelTerms, o, chunkBegin(plan.layout, c), chunkEnd(level, plan.layout, c));
          deliver(level, plan.layout, plan.outputs, o, c, acc, sink, partials);
        }
      });
    }
  });
}

// The plan launchReduction makes for these sizes, emulated.
template <typename Terms, typename Sink>
void emulateReduction(int64_t outputs, int64_t count, cuda::ReduceLayout layout, const Terms& terms, const Sink& sink,
                      EmulatedLaunch launch = {}) {
  emulateReduction(cuda::planReduction(outputs, count, layout), terms, sink, launch);
}

}  // namespace netsmith::test
