// DeviceMemory (Note [Simulated device memory]) and the SIGSEGV handler that names a host
// dereference of simulated device memory.
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "engine/backend/cuda/sim/sim_core.h"
#include "engine/core/error.h"

namespace netsmith::cuda::sim {
namespace {

constexpr size_t kAlignment = 256;  // cudaMalloc's guarantee
constexpr size_t kFreedHistory = 4096;

// The reserved ranges, for the signal handler (written before it is installed, read only there).
struct Range {
  uintptr_t begin = 0, end = 0;
  int device = -1;
};
Range g_ranges[8];
std::atomic<int> g_rangeCount{0};
struct sigaction g_previous {};

void appendText(char*& out, const char* end, const char* text) {
  while (*text && out < end) *out++ = *text++;
}
void appendHex(char*& out, const char* end, uintptr_t value) {
  char digits[17];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[value & 15];
    value >>= 4;
  } while (value && n < 16);
  appendText(out, end, "0x");
  while (n > 0 && out < end) *out++ = digits[--n];
}

// Async-signal-safe: no allocation, no locks; write(2) only.
void onSegv(int signal, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  const int count = g_rangeCount.load();
  for (int i = 0; i < count; ++i) {
    if (address < g_ranges[i].begin || address >= g_ranges[i].end) continue;
    char text[320];
    char* out = text;
    const char* end = text + sizeof text - 1;
    appendText(out, end, "netsmith: simulated GPU: host code dereferenced device memory of cuda:");
    char device[4] = {static_cast<char>('0' + g_ranges[i].device), 0};
    appendText(out, end, device);
    appendText(out, end, " at ");
    appendHex(out, end, address);
    appendText(out, end, "; device memory is reached only through cudaMemcpy, kernels and NCCL\n");
    ssize_t ignored = write(STDERR_FILENO, text, static_cast<size_t>(out - text));
    (void)ignored;
    break;
  }
  // Let the fault take its ordinary course (the previous handler, or the default: a core dump).
  sigaction(SIGSEGV, &g_previous, nullptr);
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction) g_previous.sa_sigaction(signal, info, context);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN && g_previous.sa_handler) {
    g_previous.sa_handler(signal);
  }
}

void registerRange(uintptr_t begin, size_t span, int device) {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  const int n = g_rangeCount.load();
  if (n >= 8) return;
  g_ranges[n] = {begin, begin + span, device};
  g_rangeCount.store(n + 1);
  if (n == 0) {
    struct sigaction action {};
    action.sa_sigaction = onSegv;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &g_previous);
  }
}

size_t roundUp(size_t bytes, size_t to) { return (bytes + to - 1) / to * to; }

}  // namespace

DeviceMemory::DeviceMemory(int device, size_t capacityBytes, size_t contextBytes)
    : m_device(device), m_capacity(capacityBytes), m_contextBytes(contextBytes) {
  // Twice the capacity of addresses, so freed ranges need not be reused soon.
  m_span = roundUp(2 * capacityBytes, size_t{1} << 21);
  void* base = mmap(nullptr, m_span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  NS_CHECK(base != MAP_FAILED, "simulated cuda:{}: cannot reserve {} MiB of address space for its memory: {}", device,
           m_span >> 20, std::strerror(errno));
  m_base = reinterpret_cast<uintptr_t>(base);
  m_next = m_base;
  registerRange(m_base, m_span, device);
}

DeviceMemory::~DeviceMemory() {
  for (auto& [address, block] : m_live) std::free(block.host);
  // The reservation stays: the signal handler may still be asked about it.
}

bool DeviceMemory::inRange(const void* p) const {
  const auto a = reinterpret_cast<uintptr_t>(p);
  return a >= m_base && a < m_base + m_span;
}

void* DeviceMemory::allocate(size_t bytes, std::string* why) {
  const size_t size = roundUp(bytes == 0 ? 1 : bytes, kAlignment);
  std::lock_guard lock(m_mutex);
  if (!m_contextTaken) m_used += m_contextBytes, m_contextTaken = true;
  if (m_used + size > m_capacity) {
    *why = format("simulated cuda:{} is out of memory: {} bytes requested, {} of {} bytes in use", m_device, bytes,
                  m_used, m_capacity);
    return nullptr;
  }
  uintptr_t at = 0;
  if (m_next + size <= m_base + m_span) {
    at = m_next;
    m_next += size;
  } else {  // first gap between live allocations that fits
    uintptr_t cursor = m_base;
    for (const auto& [address, block] : m_live) {
      if (address - cursor >= size) break;
      cursor = address + roundUp(block.bytes, kAlignment);
    }
    if (cursor + size > m_base + m_span) {
      *why = format("simulated cuda:{}: its address space is too fragmented for {} bytes", m_device, bytes);
      return nullptr;
    }
    at = cursor;
  }
  auto* host = static_cast<std::byte*>(std::aligned_alloc(64, roundUp(size, 64)));
  if (!host) {
    *why = format("simulated cuda:{}: the host has no memory left for {} bytes", m_device, bytes);
    return nullptr;
  }
  std::memset(host, 0xFF, size);  // NaN: uninitialised device memory is never zero by luck
  m_live[at] = {bytes, host};
  m_freed.erase(m_freed.lower_bound(at), m_freed.lower_bound(at + size));
  m_used += size;
  return reinterpret_cast<void*>(at);
}

bool DeviceMemory::release(void* p, std::string* why) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  std::lock_guard lock(m_mutex);
  const auto it = m_live.find(a);
  if (it == m_live.end()) {
    *why = format("{} is not the start of a live allocation of cuda:{} ({})", p, m_device,
                  m_freed.count(a) ? "it was freed already" : "never returned by cudaMalloc");
    return false;
  }
  std::free(it->second.host);
  m_used -= roundUp(it->second.bytes == 0 ? 1 : it->second.bytes, kAlignment);
  m_freed[a] = it->second.bytes;
  if (m_freed.size() > kFreedHistory) m_freed.erase(m_freed.begin());
  m_live.erase(it);
  return true;
}

void* DeviceMemory::translate(const void* p, size_t bytes, const std::string& use) const {
  const auto a = reinterpret_cast<uintptr_t>(p);
  std::lock_guard lock(m_mutex);
  auto it = m_live.upper_bound(a);
  if (it != m_live.begin()) {
    --it;
    const uintptr_t begin = it->first;
    const size_t size = it->second.bytes;
    if (a < begin + std::max<size_t>(size, 1)) {
      if (a + bytes > begin + size)
        throw Fault(format("{}: {} bytes at {} run past the end of its allocation of {} bytes on cuda:{} (offset {})",
                           use, bytes, p, size, m_device, a - begin));
      return it->second.host + (a - begin);
    }
  }
  auto freed = m_freed.upper_bound(a);
  if (freed != m_freed.begin() && a < std::prev(freed)->first + std::max<size_t>(std::prev(freed)->second, 1))
    throw Fault(format("{}: {} is memory of cuda:{} that was freed (cudaFree) before this use", use, p, m_device));
  throw Fault(format("{}: {} is in cuda:{}'s address range but was never allocated", use, p, m_device));
}

size_t DeviceMemory::used() const {
  std::lock_guard lock(m_mutex);
  return m_used;
}

}  // namespace netsmith::cuda::sim
