// Note [Deterministic GPU reductions]
// A custom CUDA kernel that sums (or takes the arg-max of) many terms per output spreads them over
// many threads, yet adds them in one fixed order, without atomics, so the same inputs give the same
// bits on every run (Note [Reproducible training]). The order of an output's terms depends only on
// its term count and on the reduction's layout, both properties of the layer's per-sample shape,
// never on the number of outputs (the batch), the grid, or timing: a sample's sum is the same bits
// in a batch of 1 and of 64.
//
//   Rows (the terms of an output are contiguous, or nearly: a row, a plane, a reduced inner axis)
//     count ≤ kSerialTerms  one thread per output adds its terms in index order;
//     count ≤ kBlockTerms   one block (kReduceThreads threads) per output: lane t adds terms
//                           t, t + 256, t + 512, ... in order (consecutive lanes read consecutive
//                           addresses: coalesced), then the lanes are combined by the tree
//                           lane[t] += lane[t + w] for w = 128, 64, ..., 1 (treeStep);
//     larger                the terms are cut into chunks of kBlockTerms; each (output, chunk) is
//                           one block as above, writing a partial to scratch ([output][chunk]);
//                           the partials are then the terms of a Rows reduction of count `chunks`,
//                           by the same rule (a second kernel, a third beyond 4096² terms).
//   Columns (consecutive outputs are adjacent in memory and an output's terms are strided: a sum
//   over an outer axis, e.g. LayerNormalization's dgamma over rows, Sum over axis 0)
//     count ≤ kColumnTerms  one thread per output adds its terms in order (a warp reads 32
//                           adjacent values per term: coalesced);
//     larger                one thread per (output, chunk of kColumnTerms terms), partials to
//                           scratch as [chunk][output]; the partials are the terms of a Columns
//                           reduction of count `chunks`, by the same rule.
//
// Every step (a thread's run of terms, a tree step, where a partial goes) is an NS_HOST_DEVICE
// function below, which the kernels of backend/cuda/deterministic_reduction.cuh call and which
// tst_cuda_reduction_bodies runs on the CPU in the same thread and block decomposition. Sums are
// in double (the terms' accumulators); the arg-max combine (ArgMaxAcc) is order-independent and
// picks exactly the element the serial loop of index_view.h's argMax picks. The CPU backend keeps
// its serial loops, so CPU and GPU sums of more than kSerialTerms terms may differ in the last
// bits (they already did with blockSum), while each backend is reproducible.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/core/host_device.h"

namespace netsmith::cuda {

constexpr int kReduceThreads = 256;       // threads of a reducing block: part of the order, fixed
constexpr int64_t kSerialTerms = 32;      // Rows: at most this many terms per output, one thread each
constexpr int64_t kBlockTerms = 4096;     // Rows: terms per block (16 per lane); more are chunked
constexpr int64_t kColumnTerms = 64;      // Columns: terms per thread; more are chunked
constexpr int kMaxReductionLevels = 8;    // 4096^8 terms: any tensor

enum class ReduceLayout { Rows, Columns };

// ---- Accumulators: a value-initialised Acc is the identity, combine(a, b) adds b after a.
NS_HOST_DEVICE inline double combine(double a, double b) { return a + b; }

// Two sums at once (Σ g and Σ g·x̂; Σ dy and Σ dy·x̂).
struct PairSum {
  double a = 0.0, b = 0.0;
};
NS_HOST_DEVICE inline PairSum combine(PairSum x, PairSum y) { return {x.a + y.a, x.b + y.b}; }

// The first largest term (index_view.h's argMax): the largest value, the lowest index among
// equal ones; a NaN is ignored unless it is term 0, which the serial loop then never leaves (a
// NaN compares neither larger nor smaller, and 0 is the lowest index, so term 0 wins as a tie).
// So combine is commutative and associative and any order gives argMax's answer exactly.
struct ArgMaxAcc {
  float value = 0.0f;
  int64_t index = -1;  // -1: no term yet
};
NS_HOST_DEVICE inline bool argMaxCounts(const ArgMaxAcc& a) {
  return a.index == 0 || (a.index > 0 && a.value == a.value);
}
NS_HOST_DEVICE inline ArgMaxAcc combine(ArgMaxAcc x, ArgMaxAcc y) {
  if (!argMaxCounts(y)) return x;
  if (!argMaxCounts(x)) return y;
  if (y.value > x.value) return y;
  if (x.value > y.value) return x;
  return x.index < y.index ? x : y;
}

// ---- The plan: the levels an output's terms go through (host; a pure function of count and layout).
struct ReductionLevel {
  int64_t count = 1;   // terms per output at this level
  int64_t chunks = 1;  // partials per output it writes (1: the last level, which delivers)
  bool block = false;  // one block per (output, chunk); else one thread per (output, chunk)
};

struct ReductionPlan {
  ReduceLayout layout = ReduceLayout::Rows;
  int64_t outputs = 0;
  int levels = 0;
  ReductionLevel level[kMaxReductionLevels];
  // Partials per output in each of the two scratch areas the levels alternate between.
  int64_t scratchChunks[2] = {0, 0};
};

inline ReductionPlan planReduction(int64_t outputs, int64_t count, ReduceLayout layout) {
  ReductionPlan plan;
  plan.layout = layout;
  plan.outputs = outputs;
  int64_t c = count < 1 ? 1 : count;
  while (plan.levels < kMaxReductionLevels) {
    ReductionLevel& l = plan.level[plan.levels];
    l.count = c;
    const int64_t perItem = layout == ReduceLayout::Rows ? kBlockTerms : kColumnTerms;
    l.block = layout == ReduceLayout::Rows && c > kSerialTerms;
    l.chunks = c > perItem ? (c + perItem - 1) / perItem : 1;
    if (l.chunks > 1) {
      int64_t& area = plan.scratchChunks[plan.levels % 2];
      area = area > l.chunks ? area : l.chunks;
    }
    ++plan.levels;
    if (l.chunks == 1) break;
    c = l.chunks;
  }
  return plan;
}

// Terms [begin, end) of a level's chunk c.
NS_HOST_DEVICE inline int64_t chunkBegin(ReduceLayout layout, int64_t c) {
  return c * (layout == ReduceLayout::Rows ? kBlockTerms : kColumnTerms);
}
NS_HOST_DEVICE inline int64_t chunkEnd(const ReductionLevel& l, ReduceLayout layout, int64_t c) {
  const int64_t end = chunkBegin(layout, c + 1);
  return end < l.count ? end : l.count;
}

// Where partial (o, c) of a level with `chunks` partials per output lives: Rows keep an output's
// partials together (the next level reads them as a row), Columns keep a chunk's outputs together.
NS_HOST_DEVICE inline int64_t partialIndex(ReduceLayout layout, int64_t outputs, int64_t chunks, int64_t o,
                                           int64_t c) {
  return layout == ReduceLayout::Rows ? o * chunks + c : c * outputs + o;
}

// The terms of the level after one that wrote partials.
template <typename Acc>
struct PartialTerms {
  using Value = Acc;
  const Acc* partials;
  ReduceLayout layout;
  int64_t outputs, chunks;
  NS_HOST_DEVICE int64_t prepare(int64_t o) const { return partialIndex(layout, outputs, chunks, o, 0); }
  NS_HOST_DEVICE Acc operator()(int64_t, int64_t first, int64_t r) const {
    return partials[first + r * (layout == ReduceLayout::Rows ? 1 : outputs)];
  }
};

// The sink of most sums: out[o] = float(sum · scale), rounded once.
struct ScaledSumSink {
  float* out;
  float scale = 1.0f;
  NS_HOST_DEVICE void operator()(int64_t o, double sum) const {
    out[o] = static_cast<float>(sum * static_cast<double>(scale));
  }
};

// ---- One thread's and one block's work. Terms: `Value`, the accumulator type; prepare(o), what
// output o's terms share (its base offset), computed once per item; operator()(o, prepared, r),
// term r in [0, count) of output o.
// A thread-per-item level: terms [begin, end) of output o, in order.
template <typename Terms>
NS_HOST_DEVICE typename Terms::Value serialRun(const Terms& terms, int64_t o, int64_t begin, int64_t end) {
  typename Terms::Value acc{};
  const int64_t prepared = terms.prepare(o);
  for (int64_t r = begin; r < end; ++r) acc = combine(acc, terms(o, prepared, r));
  return acc;
}

// A block-per-item level: lane `lane`'s share of terms [begin, end), in order.
template <typename Terms>
NS_HOST_DEVICE typename Terms::Value laneRun(const Terms& terms, int64_t o, int64_t begin, int64_t end, int lane) {
  typename Terms::Value acc{};
  const int64_t prepared = terms.prepare(o);
  for (int64_t r = begin + lane; r < end; r += kReduceThreads) acc = combine(acc, terms(o, prepared, r));
  return acc;
}

// One step of the block's tree (width = kReduceThreads / 2, ..., 1; a barrier between steps).
template <typename Acc>
NS_HOST_DEVICE void treeStep(Acc* lanes, int lane, int width) {
  if (lane < width) lanes[lane] = combine(lanes[lane], lanes[lane + width]);
}

// Item (o, c)'s result: to scratch when the level has several chunks, else to the sink.
// Sink: void operator()(o, Acc) const, which writes output o (and only it).
template <typename Acc, typename Sink>
NS_HOST_DEVICE void deliver(const ReductionLevel& l, ReduceLayout layout, int64_t outputs, int64_t o, int64_t c,
                            const Acc& acc, const Sink& sink, Acc* partials) {
  if (l.chunks > 1) partials[partialIndex(layout, outputs, l.chunks, o, c)] = acc;
  else sink(o, acc);
}

// Item i of a level (outputs × chunks items) as (output, chunk): consecutive items are consecutive
// chunks of one output in Rows (a block each), consecutive outputs in Columns (adjacent threads).
NS_HOST_DEVICE inline void itemOf(ReduceLayout layout, int64_t outputs, int64_t chunks, int64_t i, int64_t& o,
                                  int64_t& c) {
  if (layout == ReduceLayout::Rows) {
    o = i / chunks;
    c = i % chunks;
  } else {
    o = i % outputs;
    c = i / outputs;
  }
}

// Bytes of scratch for a plan's partials (its two areas) with accumulator Acc.
template <typename Acc>
size_t reductionScratchBytes(const ReductionPlan& plan) {
  return static_cast<size_t>(plan.outputs * (plan.scratchChunks[0] + plan.scratchChunks[1])) * sizeof(Acc);
}

// The levels of `plan` in order (host): run(level, levelTerms, partials) for each, where level 0
// reads `terms` and level k > 0 the partials level k − 1 wrote; level k writes its partials to
// scratch area k % 2, or, being the last, passes partials = null and delivers to the sink.
// `scratch` holds reductionScratchBytes<Terms::Value>(plan) bytes (null when that is 0). The
// GPU's launchReduction and the CPU emulation of tst_cuda_reduction_bodies share this sequence.
template <typename Terms, typename RunLevel>
void forEachReductionLevel(const ReductionPlan& plan, const Terms& terms, void* scratch, RunLevel run) {
  using Acc = typename Terms::Value;
  Acc* const area[2] = {static_cast<Acc*>(scratch),
                        static_cast<Acc*>(scratch) + plan.outputs * plan.scratchChunks[0]};
  run(plan.level[0], terms, plan.levels > 1 ? area[0] : nullptr);
  for (int k = 1; k < plan.levels; ++k) {
    const PartialTerms<Acc> previous{area[(k - 1) % 2], plan.layout, plan.outputs, plan.level[k - 1].chunks};
    run(plan.level[k], previous, k + 1 < plan.levels ? area[k % 2] : nullptr);
  }
}

}  // namespace netsmith::cuda
