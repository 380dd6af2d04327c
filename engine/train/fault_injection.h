// FaultInjection: a test-only hook that makes one worker fail in a chosen way at a chosen
// iteration, so tests can check that a failing or stalled device ends the run cleanly and is
// named. netsmith-cli reads it from the NETSMITH_FAULT_INJECTION environment variable.
//
//   throw:DEVICE:ITERATION    the worker throws before its step (a crashing kernel)
//   stall:DEVICE:ITERATION    the worker stops before its step and never reaches the all-reduce
//                             (until the run has failed, so the test ends cleanly)
//   diverge:DEVICE:ITERATION  after its step the worker's replica is changed (a replica bug),
//                             which the replica check must catch
//   fault:DEVICE:ITERATION    a kernel on the device writes to an address that is not its memory
//                             before the step: the device's sticky error surfaces at its next
//                             synchronisation (devices with memory of their own: GPUs)
// ITERATION is the 1-based global iteration; DEVICE is a device id such as cpu:1.
#pragma once

#include <cstdint>
#include <string>

#include "engine/core/error.h"

namespace netsmith {

struct FaultInjection {
  enum class Kind { None, Throw, Stall, Diverge, DeviceFault };
  Kind kind = Kind::None;
  std::string device;
  int64_t iteration = 0;  // 1-based global iteration

  bool at(const std::string& deviceId, int64_t globalIteration0, Kind k) const {
    return kind == k && device == deviceId && globalIteration0 + 1 == iteration;
  }

  static FaultInjection parse(const std::string& spec) {
    FaultInjection f;
    if (spec.empty()) return f;
    const auto first = spec.find(':');
    const auto last = spec.rfind(':');
    NS_CHECK(first != std::string::npos && last > first,
             "NETSMITH_FAULT_INJECTION: expected KIND:DEVICE:ITERATION such as throw:cpu:1:5, got \"{}\"", spec);
    const std::string kind = spec.substr(0, first);
    f.device = spec.substr(first + 1, last - first - 1);
    const std::string iteration = spec.substr(last + 1);
    if (kind == "throw") f.kind = Kind::Throw;
    else if (kind == "stall") f.kind = Kind::Stall;
    else if (kind == "diverge") f.kind = Kind::Diverge;
    else if (kind == "fault") f.kind = Kind::DeviceFault;
    else NS_THROW("NETSMITH_FAULT_INJECTION: unknown fault '{}' (known: throw, stall, diverge, fault)", kind);
    NS_CHECK(!iteration.empty() && iteration.find_first_not_of("0123456789") == std::string::npos && iteration.size() < 12,
             "NETSMITH_FAULT_INJECTION: the iteration must be a positive integer, got \"{}\"", iteration);
    f.iteration = std::stoll(iteration);
    NS_CHECK(f.iteration >= 1, "NETSMITH_FAULT_INJECTION: the iteration must be >= 1, got {}", f.iteration);
    return f;
  }
};

}  // namespace netsmith
