// SampleFeed: a prefetch thread that reads a streamed dataset's samples ahead of the worker that
// trains on them (Note [Sample feed]).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

namespace netsmith {

struct Dataset;

// Note [Sample feed]
// A dataset held in a file (Note [Sample storage]) is read while training: a worker that read
// its batch itself would wait for the disk in every step. The worker announces the samples it
// will ask for, in order (its slices of the epoch's shuffled order, or a validation range); the
// feed's thread reads them into a ring of `capacity` samples ahead of the worker, and take()
// copies them out. take() of samples that are not the next announced ones (a resume mid-epoch
// before its announcement, an evaluation) reads them directly: the feed only ever makes reading
// earlier, never different, so the batch is the same bytes whichever way it was read. A read
// error on the feed's thread is rethrown by the take() that reaches that sample.
class SampleFeed {
 public:
  // `capacity`: how many samples may be read ahead (at least 1).
  SampleFeed(const Dataset& data, int64_t capacity);
  ~SampleFeed();
  SampleFeed(const SampleFeed&) = delete;
  SampleFeed& operator=(const SampleFeed&) = delete;

  // The samples that will be taken next, in order; replaces what was announced before.
  void announce(std::vector<int64_t> sequence);
  // The stored bytes of `ids` into out (ids.size() samples, back to back). Returns the seconds
  // spent waiting for the feed's thread.
  double take(std::span<const int64_t> ids, uint8_t* out);

  const Dataset& dataset() const { return m_data; }

 private:
  void run();

  const Dataset& m_data;
  const int64_t m_sampleBytes;
  const int64_t m_capacity;
  std::vector<uint8_t> m_ring;  // m_capacity slots of m_sampleBytes

  std::mutex m_mutex;
  std::condition_variable m_changed;
  std::vector<int64_t> m_sequence;
  uint64_t m_generation = 0;  // bumped by announce(): the thread starts over
  int64_t m_read = 0;         // sequence positions [m_taken, m_read) are in the ring
  int64_t m_taken = 0;
  std::exception_ptr m_failure;  // the read of position m_read failed
  bool m_stop = false;
  std::thread m_thread;
};

}  // namespace netsmith
