// The simulator's parts (Note [Simulated GPUs] in simulated_runtime.cpp): a simulated GPU's
// memory behind checked handles, its streams (a host thread each), and events.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace netsmith::cuda::sim {

// A device access that would be an error or undefined on a GPU (a freed pointer, another
// device's memory, a range past an allocation's end, a pointer that is not device memory). The
// message is one sentence that names the pointer and what it is.
class Fault : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Note [Simulated device memory]: a simulated GPU's memory is host memory the host cannot reach
// by pointer. Each device reserves an address range with no access rights (mmap PROT_NONE, no
// memory behind it); cudaMalloc hands out addresses in that range and keeps the values in a
// separate host block. A host dereference of a device pointer therefore faults at once (the
// SIGSEGV handler names the device), and every use through the runtime — a copy, a kernel, an
// NCCL buffer — goes through translate(), which checks the allocation is live, on this device and
// large enough. New allocations are filled with 0xFF bytes (NaN as float), as uninitialised GPU
// memory must not be read. Freed ranges are not handed out again while there is room, so a
// stale pointer stays recognisable as freed.
class DeviceMemory {
 public:
  // `contextBytes` are taken at the first allocation, as a CUDA context's own memory is when the
  // first call that needs the context creates it (Note [Memory before launch]).
  DeviceMemory(int device, size_t capacityBytes, size_t contextBytes = 0);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  bool inRange(const void* p) const;
  // Null with *why set when the memory is full.
  void* allocate(size_t bytes, std::string* why);
  // False with *why set when p is not the start of a live allocation.
  bool release(void* p, std::string* why);
  // The host address behind [p, p + bytes). Throws Fault naming `use`.
  void* translate(const void* p, size_t bytes, const std::string& use) const;
  size_t used() const;
  size_t capacity() const { return m_capacity; }
  size_t contextBytes() const { return m_contextBytes; }

 private:
  struct Block {
    size_t bytes = 0;
    std::byte* host = nullptr;
  };
  int m_device;
  size_t m_capacity;
  uintptr_t m_base = 0;
  size_t m_span = 0;
  mutable std::mutex m_mutex;
  std::map<uintptr_t, Block> m_live;
  std::map<uintptr_t, size_t> m_freed;  // recently freed ranges (bounded), to say "freed"
  uintptr_t m_next = 0;                  // bump pointer; reuse starts when it reaches the end
  size_t m_used = 0;
  size_t m_contextBytes = 0;
  bool m_contextTaken = false;
};

class Device;

// One stream: an asynchronous queue run in order by its own host thread. With jitter, each
// operation starts after a random delay, so the host and the other streams overtake it in
// changing ways from run to run; with a lag, no operation starts sooner than that after it was
// queued, so the host is always that far ahead of the device, as a real GPU's host queues a whole
// backward pass before the device has run much of it (Note [Simulated GPUs]).
class Stream {
 public:
  struct Op {
    std::string what;              // "kernel fill", "cudaMemcpyAsync HostToDevice", ...
    std::function<void()> run;     // may throw Fault: the device's sticky error
    bool marker = false;           // event records and waits run even after a fault
    bool busy = true;              // counts as device time (NVML utilization)
    // Host work when the operation is queued, again at each launch of a graph that captured it
    // (a pinned destination made NaN until the copy has run).
    std::function<void()> atQueue;
    std::chrono::steady_clock::time_point queuedAt{};  // set by enqueue
  };
  Stream(Device& device, int id, bool jitter, uint64_t seed, std::chrono::microseconds lag = {});
  ~Stream();  // finishes the queued work, then joins
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // Returns the ticket of the operation: it has run when completed() >= ticket.
  uint64_t enqueue(Op op);
  uint64_t lastTicket() const;
  // Until every operation up to `ticket` has run (or been skipped after a fault). The host calls
  // it; a wait for the stream's last operation counts in the device's drainingWaits.
  void waitFor(uint64_t ticket);
  // Ends a wait inside an operation of this stream (a collective) when the stream goes.
  bool stopping() const { return m_stopping.load(); }
  // Note [Simulated CUDA graphs] (sim_graphs.cpp): between beginCapture() and endCapture(),
  // enqueue() records the operation into the capture (ticket 0) instead of queueing it.
  void beginCapture();
  bool capturing() const;
  // A call the capture cannot hold was made: endCapture() fails.
  void invalidateCapture();
  // Ends the capture: its operations, or false when it was invalidated.
  bool endCapture(std::vector<Op>& ops);
  Device& device() { return m_device; }

 private:
  void run();
  Device& m_device;
  int m_id;
  bool m_jitter;
  std::chrono::microseconds m_lag;
  std::mt19937_64 m_random;
  mutable std::mutex m_mutex;
  std::condition_variable m_changed;
  std::deque<std::pair<uint64_t, Op>> m_queue;
  uint64_t m_enqueued = 0;
  uint64_t m_completed = 0;
  bool m_capturing = false;
  bool m_captureValid = true;
  std::vector<Op> m_captured;
  std::atomic<bool> m_stopping{false};
  std::thread m_thread;  // last
};

// A simulated GPU.
struct Device {
  int index = 0;         // in PCI bus order (NVML's index)
  int ordinal = 0;       // the CUDA runtime's number for it (Note [GPU numbering])
  std::string busId;     // "00000000:18:00.0"
  std::string name;
  std::unique_ptr<DeviceMemory> memory;
  std::atomic<int64_t> busyNanoseconds{0};
  // Note [Draining waits]: host waits for everything a stream had queued (a synchronize, a
  // download to pageable memory, an upload from it, an event recorded last): once they return the
  // device has nothing to do until the host queues more.
  std::atomic<int64_t> drainingWaits{0};
  std::atomic<int64_t> graphLaunches{0};  // cudaGraphLaunch calls on the device's streams (tests)
  // The sticky error: after a kernel or copy faulted, every call on the device fails with it.
  std::mutex faultMutex;
  std::string fault;
  std::atomic<bool> faulted{false};
  void setFault(const std::string& message);
  std::string faultMessage();
  std::unique_ptr<Stream> legacyStream;  // the default stream of cudaMemcpy; made on first use
  std::mutex legacyMutex;
};

// An event: record() numbers each recording; the stream marks it complete when it reaches it.
struct Event {
  Device* device = nullptr;
  bool timed = false;  // cudaEventDefault: keeps completedAt
  std::mutex mutex;
  std::condition_variable completedChanged;
  uint64_t recorded = 0;
  uint64_t completed = 0;
  Stream* stream = nullptr;  // of the latest recording, and its ticket there
  uint64_t ticket = 0;
  Stream* capturedIn = nullptr;  // recorded inside this stream's capture since its last real recording
  std::chrono::steady_clock::time_point completedAt;  // when the stream reached the latest recording
};

}  // namespace netsmith::cuda::sim
