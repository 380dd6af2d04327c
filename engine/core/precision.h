// config.precision as the engine uses it: which number format a device computes in. Master
// weights, gradients of the weights and optimizer state are float32 in every mode; a GPU in half
// or bfloat16 stores activations in 16 bits (Note [16-bit activations], engine/model/network.cpp).
// What each backend does with it: Note [Precision] (CUDA, engine/backend/cuda/precision_math.h)
// and Note [CPU bfloat16] (engine/backend/cpu/cpu_precision.h).
#pragma once

#include <string>

#include "engine/core/half_floats.h"

namespace netsmith {

enum class Precision { Float, Half, BFloat16 };

// "float" | "half" | "bfloat16"; throws Error naming config.precision otherwise.
Precision parsePrecision(const std::string& name);
const char* precisionName(Precision p);

// Note [16-bit activations] (engine/model/network.cpp): the storage a GPU computing in `p` keeps
// activations in — float16 in half, bfloat16 in bfloat16, float32 in float or when the
// environment has NETSMITH_ACTIVATIONS=float32 (to compare, and to measure what 16 bits save).
Storage gpuActivationStorage(Precision p);
// Note [Channels last] (engine/core/channels_last.h): whether a GPU keeping activations in
// `storage` keeps them channels last — with 16-bit storage, unless NETSMITH_CHANNELS_LAST=off.
bool gpuChannelsLast(Storage storage);

}  // namespace netsmith
