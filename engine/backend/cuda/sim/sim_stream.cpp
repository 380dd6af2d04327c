#include <omp.h>

#include <chrono>

#include "engine/backend/cuda/sim/sim_core.h"

namespace netsmith::cuda::sim {

void Device::setFault(const std::string& message) {
  std::lock_guard lock(faultMutex);
  if (faulted.load()) return;  // the first fault is the one a GPU would report
  fault = message;
  faulted.store(true);
}

std::string Device::faultMessage() {
  std::lock_guard lock(faultMutex);
  return fault;
}

Stream::Stream(Device& device, int id, bool jitter, uint64_t seed, std::chrono::microseconds lag)
    : m_device(device), m_id(id), m_jitter(jitter), m_lag(lag), m_random(seed) {
  m_thread = std::thread([this] { run(); });
}

Stream::~Stream() {
  {
    std::lock_guard lock(m_mutex);
    m_stopping.store(true);
  }
  m_changed.notify_all();
  m_thread.join();
}

uint64_t Stream::enqueue(Op op) {
  uint64_t ticket;
  op.queuedAt = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(m_mutex);
    if (m_capturing) {
      m_captured.push_back(std::move(op));
      return 0;
    }
    ticket = ++m_enqueued;
    m_queue.emplace_back(ticket, std::move(op));
  }
  m_changed.notify_all();
  return ticket;
}

void Stream::beginCapture() {
  std::lock_guard lock(m_mutex);
  m_capturing = true;
  m_captureValid = true;
  m_captured.clear();
}

bool Stream::capturing() const {
  std::lock_guard lock(m_mutex);
  return m_capturing;
}

void Stream::invalidateCapture() {
  std::lock_guard lock(m_mutex);
  m_captureValid = false;
}

bool Stream::endCapture(std::vector<Op>& ops) {
  std::lock_guard lock(m_mutex);
  m_capturing = false;
  ops = std::move(m_captured);
  m_captured.clear();
  return m_captureValid;
}

uint64_t Stream::lastTicket() const {
  std::lock_guard lock(m_mutex);
  return m_enqueued;
}

void Stream::waitFor(uint64_t ticket) {
  std::unique_lock lock(m_mutex);
  if (ticket >= m_enqueued) ++m_device.drainingWaits;
  m_changed.wait(lock, [&] { return m_completed >= ticket; });
}

void Stream::run() {
  // A simulated GPU computes with the CPU kernels on this thread, one OpenMP thread each, so N
  // simulated GPUs need N cores, not N times the machine (Note [Simulated kernels]).
  omp_set_num_threads(1);
  using Clock = std::chrono::steady_clock;
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  for (;;) {
    std::pair<uint64_t, Op> item;
    {
      std::unique_lock lock(m_mutex);
      m_changed.wait(lock, [&] { return !m_queue.empty() || m_stopping.load(); });
      if (m_queue.empty()) return;  // stopping, and everything queued has run
      item = std::move(m_queue.front());
      m_queue.pop_front();
    }
    Op& op = item.second;
    if (m_lag.count() > 0) std::this_thread::sleep_until(op.queuedAt + m_lag);
    if (m_jitter) {
      // Mostly tens of microseconds, now and then milliseconds: long enough for the host or
      // another stream to overtake an operation that nothing orders.
      const double r = coin(m_random);
      if (r < 0.03) std::this_thread::sleep_for(std::chrono::microseconds(1000 + static_cast<int>(3000 * coin(m_random))));
      else if (r < 0.5) std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int>(100 * coin(m_random))));
    }
    if (op.marker || !m_device.faulted.load()) {
      const auto start = Clock::now();
      try {
        op.run();
      } catch (const std::exception& e) {
        m_device.setFault(op.what + " on stream " + std::to_string(m_id) + " of cuda:" +
                          std::to_string(m_device.ordinal) + " failed: " + e.what());
      }
      if (op.busy)
        m_device.busyNanoseconds += std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
    }
    {
      std::lock_guard lock(m_mutex);
      m_completed = item.first;
    }
    m_changed.notify_all();
  }
}

}  // namespace netsmith::cuda::sim
