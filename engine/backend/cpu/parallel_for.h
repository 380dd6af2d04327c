// parallelFor: the OpenMP loop of the hand-written CPU kernels, without a parallel region on a
// one-thread worker (Note [One-thread regions]).
#pragma once

#include <omp.h>

#include <cstdint>

namespace netsmith::cpu {

// Note [One-thread regions]
// libgomp keeps a finished team for reuse only when it had more than one thread: every parallel
// region whose team has one thread (the worker's OpenMP team size is 1, or an if() clause is
// false) allocates its team and frees it again. A one-thread worker — reproducible mode's default
// (Note [Reproducible training]) and every worker of a run with more workers than cores — would
// allocate once per kernel call. parallelFor runs such a loop on the calling thread instead,
// which also saves the region's fork and join; with more threads it is `omp parallel for
// schedule(static)` as before. Each iteration must be independent (it writes only its own
// outputs), so the results are the same either way, bit for bit.
template <class Body>
inline void parallelFor(int64_t count, const Body& body) {
  if (omp_get_max_threads() <= 1) {
    for (int64_t i = 0; i < count; ++i) body(i);
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < count; ++i) body(i);
}

}  // namespace netsmith::cpu
