#include "engine/core/write_faults.h"

#include <mutex>
#include <vector>

#include "engine/core/error.h"

namespace netsmith {
namespace {

struct Spec {
  WriteFault kind = WriteFault::None;
  std::string name;
  int64_t nth = 0;
  bool andLater = false;
  int64_t seen = 0;
};

struct Faults {
  std::mutex mutex;
  std::vector<Spec> specs;
  std::optional<uint64_t> freeBytes;
};

Faults& faults() {
  static Faults f;
  return f;
}

bool allDigits(const std::string& s) {
  return !s.empty() && s.size() < 19 && s.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

void setWriteFaults(const std::string& spec) {
  std::vector<Spec> specs;
  std::optional<uint64_t> freeBytes;
  size_t start = 0;
  while (start < spec.size()) {
    const size_t comma = std::min(spec.find(',', start), spec.size());
    const std::string one = spec.substr(start, comma - start);
    start = comma + 1;
    if (one.rfind("free:", 0) == 0) {
      const std::string bytes = one.substr(5);
      NS_CHECK(allDigits(bytes), "NETSMITH_WRITE_FAULT: free:BYTES needs a number of bytes, got \"{}\"", one);
      freeBytes = std::stoull(bytes);
      continue;
    }
    const size_t first = one.find(':');
    const size_t last = one.rfind(':');
    NS_CHECK(first != std::string::npos && last > first,
             "NETSMITH_WRITE_FAULT: expected enospc:NAME:N, enospc:NAME:N+, kill:NAME:N or free:BYTES, got \"{}\"", one);
    Spec s;
    const std::string kind = one.substr(0, first);
    if (kind == "enospc") s.kind = WriteFault::NoSpace;
    else if (kind == "kill") s.kind = WriteFault::Kill;
    else NS_THROW("NETSMITH_WRITE_FAULT: unknown fault '{}' in \"{}\" (known: enospc, kill, free)", kind, one);
    s.name = one.substr(first + 1, last - first - 1);
    std::string nth = one.substr(last + 1);
    if (!nth.empty() && nth.back() == '+') {
      s.andLater = true;
      nth.pop_back();
    }
    NS_CHECK(!s.name.empty() && allDigits(nth) && std::stoll(nth) >= 1,
             "NETSMITH_WRITE_FAULT: \"{}\": NAME must not be empty and N must be a positive integer", one);
    s.nth = std::stoll(nth);
    specs.push_back(s);
  }
  Faults& f = faults();
  std::lock_guard lock(f.mutex);
  f.specs = std::move(specs);
  f.freeBytes = freeBytes;
}

WriteFault takeWriteFault(const std::filesystem::path& target) {
  Faults& f = faults();
  std::lock_guard lock(f.mutex);
  const std::string name = target.filename().string();
  WriteFault result = WriteFault::None;
  for (Spec& s : f.specs) {
    if (s.name != "*" && name.find(s.name) == std::string::npos) continue;
    ++s.seen;
    if (s.seen == s.nth || (s.andLater && s.seen > s.nth)) result = s.kind;
  }
  return result;
}

std::optional<uint64_t> injectedFreeBytes() {
  Faults& f = faults();
  std::lock_guard lock(f.mutex);
  return f.freeBytes;
}

}  // namespace netsmith
