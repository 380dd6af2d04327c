#include "engine/backend/cpu/cpu_device.h"

#include <omp.h>
#include <sched.h>

#include <ctime>
#include <thread>

namespace netsmith {

// Note [CPU threads per worker]: oneDNN is built on OpenMP here, and omp_set_num_threads() sets
// the team size for parallel regions started by the calling thread only. Each worker thread calls
// bindToCurrentThread() once, so N workers with cores/N threads each do not oversubscribe.

CpuDeviceContext::CpuDeviceContext(std::string id, int threads)
    : m_id(std::move(id)),
      m_threads(threads > 0 ? threads : availableCores()),
      m_engine(dnnl::engine::kind::cpu, 0),
      m_stream(m_engine) {}

const std::string& CpuDeviceContext::backend() const {
  static const std::string kCpu = "cpu";
  return kCpu;
}

void CpuDeviceContext::bindToCurrentThread() const { omp_set_num_threads(m_threads); }

double CpuDeviceContext::busySeconds() const {
  double total = 0;
#pragma omp parallel num_threads(m_threads) reduction(+ : total)
  {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    total += static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  }
  return total;
}

int availableCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
  const unsigned n = std::thread::hardware_concurrency();
  return n ? static_cast<int>(n) : 1;
}

}  // namespace netsmith
