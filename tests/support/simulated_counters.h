// What the simulated GPUs counted (engine/backend/cuda/sim/sim_core.h's Device), summed over the
// first `devices` of them: for tests of the step's choreography on simulated GPUs.
#pragma once

#include <atomic>
#include <cstdint>

#include "engine/backend/cuda/gpu_runtime.h"
#include "engine/backend/cuda/sim/simulated_runtime.h"

namespace netsmith::test {

// counter: &cuda::sim::Device::drainingWaits, &cuda::sim::Device::graphLaunches, ...
inline int64_t simulatedCount(int devices, std::atomic<int64_t> cuda::sim::Device::*counter) {
  auto& simulator = static_cast<cuda::sim::SimulatedRuntime&>(cuda::gpuRuntime());
  int64_t total = 0;
  for (int d = 0; d < devices; ++d) total += (simulator.deviceByOrdinal(d)->*counter).load();
  return total;
}

}  // namespace netsmith::test
