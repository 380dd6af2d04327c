// The counter-based random numbers of engine/core/rng.h (netsmith::mix64, counterUniform) and
// RandomKey::uniform (engine/op_interface/op_schema.h) as host-device functions, the same arithmetic, so
// Dropout draws the same mask on the GPU as on the CPU (tst_cuda_kernel_bodies compares them).
#pragma once

#include <cstdint>

#include "engine/core/host_device.h"

namespace netsmith::cuda {

NS_HOST_DEVICE inline uint64_t mix64Device(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

NS_HOST_DEVICE inline float counterUniformDevice(uint64_t seed, uint64_t stream, uint64_t counter) {
  const uint64_t bits = mix64Device(mix64Device(seed ^ mix64Device(stream)) + counter);
  return static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);
}

}  // namespace netsmith::cuda
