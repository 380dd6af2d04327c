// Dropout's GPU bodies (host-device: gridStrideKernel runs them on the GPU, tst_cuda_kernel_bodies
// on the CPU against dropout/cpu.cpp). The value drawn for (sample, element) is RandomKey::uniform's
// (engine/op_interface/op_schema.h), so a sample is masked alike on any device and at any batch position.
#pragma once

#include <cstdint>

#include "engine/backend/cuda/counter_random.h"
#include "engine/core/host_device.h"

namespace netsmith::cuda {

// RandomKey::uniform's stream seed for a node and pass: seed ^ mix64(node·0x1000193 + pass).
NS_HOST_DEVICE inline uint64_t dropoutSeed(uint64_t seed, uint64_t node, uint64_t pass) {
  return seed ^ mix64Device(node * 0x1000193u + pass);
}

namespace body {

// Element i of the (batch, perSample) input: mask[i] = 0 with probability p, else scale =
// 1 / (1 − p); y = x·mask. sampleIds: each row's global sample id, or null for the row index.
struct DropoutForward {
  uint64_t seed;  // dropoutSeed(...)
  float p, scale;
  NS_HOST_DEVICE void operator()(int64_t i, const float* x, float* y, float* mask, int64_t perSample,
                                 const int64_t* sampleIds) const {
    const int64_t row = i / perSample, element = i % perSample;
    const uint64_t sample = sampleIds ? static_cast<uint64_t>(sampleIds[row]) : static_cast<uint64_t>(row);
    const float m = counterUniformDevice(seed, sample, static_cast<uint64_t>(element)) < p ? 0.0f : scale;
    mask[i] = m;
    y[i] = x[i] * m;
  }
};

// dx = dy·mask.
struct Multiply {
  NS_HOST_DEVICE void operator()(int64_t i, const float* a, const float* b, float* out) const { out[i] = a[i] * b[i]; }
};

}  // namespace body
}  // namespace netsmith::cuda
