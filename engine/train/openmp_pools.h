// runOnShortLivedThread: OpenMP work of the trainer's own thread (loading and decoding the
// datasets) done on a thread that ends with it, so no OpenMP pool outlives it.
//
// Note [OpenMP pools]
// libgomp keeps a pool of team threads per thread that ever opened a parallel region, for as long
// as that thread lives, and counts them all as "managed". When managed threads outnumber the
// CPUs, every team's waits spin only ~1,000 times before sleeping (the throttled spin count), so
// each of the hundreds of oneDNN parallel regions of a training step pays a futex wake-up. The
// trainer's thread decoded the IDX files with a 2-thread region (its pool stayed: 2 threads), the
// worker thread's team made 3 on a 2-core machine, and the one worker ran as if
// OMP_WAIT_POLICY=passive: measured on the MLP sample, batch 64, 2 threads, 22,000 samples/s
// against netsmith-bench-train's 41,500 (which runs everything on one thread, one pool) and
// 23,600 for the benchmark itself under OMP_WAIT_POLICY=passive. A thread that ends frees its
// pool, so the worker teams are the only pools while training.
#pragma once

#include <future>
#include <utility>

namespace netsmith {

// Runs f() on a new thread, waits for it, and returns its result or rethrows its exception.
template <typename F>
auto runOnShortLivedThread(F&& f) {
  return std::async(std::launch::async, std::forward<F>(f)).get();
}

}  // namespace netsmith
