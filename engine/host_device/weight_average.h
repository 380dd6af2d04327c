// The per-element arithmetic of the exponential moving average of the weights (Note [Weight
// averaging], engine/optim/weight_average.h), shared by the CPU workers' loop, the GPUs' kernel and
// the simulated GPUs' host loop, so tst_weight_average checks the GPU's arithmetic on the CPU.
#pragma once

#include <cstdint>

#include "engine/core/host_device.h"

namespace netsmith::body {

// average ← decay·average + (1 − decay)·value, written as a linear interpolation from the average
// toward the value by weight = 1 − decay (the host computes both in double and rounds each to
// float once). Like torch.lerp (what timm's ModelEmaV2 calls), it starts from the nearer end: for
// weight < 0.5 (every decay above 0.5: the usual 0.99 ... 0.9999) average + weight·(value −
// average), else value − decay·(value − average). Either way a value equal to the average stays
// exactly itself (a frozen layer's or an unchanged blob's average never drifts by rounding). The
// result depends on nothing but its three inputs, so replicas with the same weights keep the same
// average whatever the device count. nvcc may contract the product and sum into one FMA (as in
// Note [Fused solver step]): a real GPU can differ from the CPU in the last bit, never from
// another GPU.
NS_HOST_DEVICE inline float averagedValue(float average, float value, float decay, float weight) {
  const float difference = value - average;
  return weight < 0.5f ? average + weight * difference : value - decay * difference;
}

// Element i: the average moves toward the value.
struct AverageToward {
  float decay;
  float weight;  // 1 − decay
  NS_HOST_DEVICE void operator()(int64_t i, float* average, const float* value) const {
    average[i] = averagedValue(average[i], value[i], decay, weight);
  }
};

// Element i: a and b exchange values (the average swapped in for validation and back).
struct Exchange {
  NS_HOST_DEVICE void operator()(int64_t i, float* a, float* b) const {
    const float t = a[i];
    a[i] = b[i];
    b[i] = t;
  }
};

}  // namespace netsmith::body
