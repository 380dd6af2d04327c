// Process and thread figures read from /proc and the kernel's CPU clocks: what a CPU worker's
// "utilization" and "memory" in the events stream (DESIGN.md §7) are computed from.
// All functions are cheap (one small read or one clock call), thread-safe, and never throw.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace netsmith {

// Resident memory of this process in MB (/proc/self/statm); 0 if it cannot be read.
double processResidentMb();

// The most resident memory this process has held so far (VmHWM of /proc/self/status), and the
// memory the machine can still give (MemAvailable of /proc/meminfo), in bytes; 0 if unreadable.
// Note [Memory before launch] (engine/train/memory_estimate.h) compares a run's estimate with the first.
int64_t processPeakResidentBytes();
int64_t machineAvailableBytes();

// The kernel's id of the calling thread, for a worker to publish so a monitor can sample it.
pid_t currentThreadId();

// CPU time (user + system) in seconds that thread `tid` of this process has used. For the calling
// thread this is clock_gettime(CLOCK_THREAD_CPUTIME_ID) (nanoseconds); for another thread it is
// /proc/self/task/<tid>/stat, counted in clock ticks (usually 10 ms), so sample it over windows
// of a few hundred milliseconds or more. -1 when there is no such thread (it has exited).
// A worker's busy fraction over a window is Δ threadCpuSeconds / Δ wall seconds.
double threadCpuSeconds(pid_t tid);

// CPU time (user + system) in seconds used by all threads of this process so far.
double processCpuSeconds();

}  // namespace netsmith
