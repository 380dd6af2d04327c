// Per-item work on worker threads with the results taken in index order on the calling thread
// (Note [Ordered pipeline]): how dataset create reads and converts its images.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace netsmith {

// Note [Ordered pipeline]
// Decoding runs on `threads` worker threads of our own (not OpenMP: between short parallel
// regions its idle threads spin, and on a busy 2-core machine that spinning took 5x the time),
// while the calling thread consumes the results strictly in index order: it appends samples to
// the raw file, reports progress and polls for cancellation. A worker may start item i only when
// i < consumed + window, so at most `window` results wait at once (bounded memory) and result
// slot i % window is free when item i starts. The output depends on the index order alone.
// work(i, slot) runs on a worker and must not throw (it records its own failures); done(i, slot)
// runs on the calling thread in order and may throw, as may poll(): then the workers finish
// the item they hold and stop, and the exception goes on.
void runOrdered(int64_t n, int threads, int64_t window, const std::function<void(int64_t, size_t)>& work,
                const std::function<void(int64_t, size_t)>& done, const std::function<void()>& poll);

// The threads to run on when none are given: the CPUs of this process's affinity mask.
int defaultThreadCount();

}  // namespace netsmith
