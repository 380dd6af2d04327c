#include "engine/data/sample_feed.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "engine/core/error.h"
#include "engine/data/dataset.h"

namespace netsmith {

SampleFeed::SampleFeed(const Dataset& data, int64_t capacity)
    : m_data(data), m_sampleBytes(data.sampleNumel()), m_capacity(std::max<int64_t>(capacity, 1)) {
  NS_CHECK(data.holdsBytes(), "SampleFeed: '{}' does not hold its samples as bytes", data.source);
  m_ring.resize(static_cast<size_t>(m_capacity * m_sampleBytes));
  m_thread = std::thread([this] { run(); });
}

SampleFeed::~SampleFeed() {
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
  }
  m_changed.notify_all();
  m_thread.join();
}

void SampleFeed::announce(std::vector<int64_t> sequence) {
  {
    std::lock_guard lock(m_mutex);
    m_sequence = std::move(sequence);
    ++m_generation;
    m_read = 0;
    m_taken = 0;
    m_failure = nullptr;
  }
  m_changed.notify_all();
}

void SampleFeed::run() {
  std::unique_lock lock(m_mutex);
  for (;;) {
    m_changed.wait(lock, [&] {
      return m_stop || (!m_failure && m_read < static_cast<int64_t>(m_sequence.size()) && m_read - m_taken < m_capacity);
    });
    if (m_stop) return;
    const uint64_t generation = m_generation;
    const int64_t position = m_read;
    const int64_t sample = m_sequence[static_cast<size_t>(position)];
    uint8_t* slot = m_ring.data() + (position % m_capacity) * m_sampleBytes;
    // The slot is free: the taker is done with position - m_capacity. Read without the lock.
    lock.unlock();
    std::exception_ptr failure;
    try {
      m_data.readSampleBytes(sample, slot);
    } catch (...) {
      failure = std::current_exception();
    }
    lock.lock();
    if (generation != m_generation) continue;  // announced anew meanwhile: this read is void
    if (failure)
      m_failure = failure;
    else
      ++m_read;
    m_changed.notify_all();
  }
}

double SampleFeed::take(std::span<const int64_t> ids, uint8_t* out) {
  double waited = 0;
  std::unique_lock lock(m_mutex);
  for (size_t k = 0; k < ids.size(); ++k, out += m_sampleBytes) {
    const bool next = m_taken < static_cast<int64_t>(m_sequence.size()) && m_sequence[static_cast<size_t>(m_taken)] == ids[k];
    if (!next) {
      // Off the announced order: the rest of the announcement is of no use.
      if (!m_sequence.empty()) {
        m_sequence.clear();
        ++m_generation;
        m_read = m_taken = 0;
        m_failure = nullptr;
      }
      lock.unlock();
      m_data.readSampleBytes(ids[k], out);
      lock.lock();
      continue;
    }
    if (m_read <= m_taken && !m_failure) {
      const auto start = std::chrono::steady_clock::now();
      m_changed.notify_all();  // the slots taken so far are free: the feed's thread may be waiting for one
      m_changed.wait(lock, [&] { return m_read > m_taken || m_failure; });
      waited += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    if (m_read <= m_taken) std::rethrow_exception(m_failure);
    std::memcpy(out, m_ring.data() + (m_taken % m_capacity) * m_sampleBytes, static_cast<size_t>(m_sampleBytes));
    ++m_taken;
  }
  // Once per batch: the feed's thread cannot take the lock before the loop ends anyway.
  lock.unlock();
  m_changed.notify_all();
  return waited;
}

}  // namespace netsmith
