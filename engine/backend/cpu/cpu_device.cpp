#include "engine/backend/cpu/cpu_device.h"

#include <omp.h>
#include <pthread.h>
#include <sched.h>

#include <ctime>
#include <thread>
#include <vector>

#include "engine/host_device/weight_average.h"

namespace netsmith {

// Note [CPU threads per worker]: oneDNN is built on OpenMP here, and omp_set_num_threads() sets
// the team size for parallel regions started by the calling thread only. Each worker thread calls
// bindToCurrentThread() once, so N workers with cores/N threads each do not oversubscribe.

CpuDeviceContext::CpuDeviceContext(std::string id, int threads, Precision precision)
    : m_id(std::move(id)),
      m_threads(threads > 0 ? threads : availableCores()),
      m_precision(precision),
      m_engine(dnnl::engine::kind::cpu, 0),
      m_stream(m_engine) {}

const std::string& CpuDeviceContext::backend() const {
  static const std::string kCpu = "cpu";
  return kCpu;
}

void CpuDeviceContext::bindToCurrentThread() const { omp_set_num_threads(m_threads); }

// Note [Busy seconds without a parallel region]
// The trainer asks every iteration. Opening a parallel region to have each team thread read its
// own clock made the worker's team fork and join once more per step, between steps, where a
// team thread that had gone to sleep must be woken first (on a loaded machine, hundreds of µs).
// Instead the team's CPU clocks (pthread_getcpuclockid) are captured once, in one region, and
// read from the calling thread afterwards. libgomp keeps a master's team threads between
// regions; one that ended (a smaller team was started) makes its clock fail, and the clocks are
// captured again. Cached per calling thread, for this context and team size.
double CpuDeviceContext::busySeconds() const {
  struct TeamClocks {
    const CpuDeviceContext* owner = nullptr;
    int threads = 0;
    std::vector<clockid_t> clocks;
  };
  thread_local TeamClocks team;
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (team.owner != this || team.threads != m_threads || team.clocks.empty()) {
      team.owner = this;
      team.threads = m_threads;
      std::vector<clockid_t> clocks(static_cast<size_t>(m_threads), clockid_t{});
      std::vector<char> ok(static_cast<size_t>(m_threads), 0);
#pragma omp parallel num_threads(m_threads)
      {
        const int t = omp_get_thread_num();
        if (t < static_cast<int>(clocks.size()))
          ok[static_cast<size_t>(t)] = pthread_getcpuclockid(pthread_self(), &clocks[static_cast<size_t>(t)]) == 0;
      }
      team.clocks.clear();
      for (size_t t = 0; t < clocks.size(); ++t)
        if (ok[t]) team.clocks.push_back(clocks[t]);
    }
    double total = 0;
    bool failed = false;
    for (const clockid_t c : team.clocks) {
      timespec ts{};
      if (clock_gettime(c, &ts) != 0) {
        failed = true;
        break;
      }
      total += static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
    }
    if (!failed) return total;
    team.clocks.clear();  // a team thread ended: capture the team again
  }
  return 0.0;
}

void CpuDeviceContext::accumulate(float* acc, const float* x, int64_t n) {
  if (n <= 65536 || m_threads <= 1) {
    for (int64_t k = 0; k < n; ++k) acc[k] += x[k];
    return;
  }
#pragma omp parallel for simd
  for (int64_t k = 0; k < n; ++k) acc[k] += x[k];
}

void CpuDeviceContext::averageToward(float* average, const float* value, int64_t n, float decay, float weight,
                                     const int* skip) {
  if (skip && *skip) return;
  const body::AverageToward toward{decay, weight};
  for (int64_t i = 0; i < n; ++i) toward(i, average, value);
}

void CpuDeviceContext::exchange(float* a, float* b, int64_t n) {
  const body::Exchange swap;
  for (int64_t i = 0; i < n; ++i) swap(i, a, b);
}

int availableCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
  const unsigned n = std::thread::hardware_concurrency();
  return n ? static_cast<int>(n) : 1;
}

}  // namespace netsmith
