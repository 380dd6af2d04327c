// config.precision as the engine uses it: which number format a device may convert tensors to
// while it computes. Tensors themselves are float32 in every mode (master weights, activations,
// gradients, optimizer state). What each backend does with it: Note [Precision] (CUDA,
// engine/backend/cuda/precision_math.h) and Note [CPU bfloat16] (engine/backend/cpu/cpu_precision.h).
#pragma once

#include <string>

namespace netsmith {

enum class Precision { Float, Half, BFloat16 };

// "float" | "half" | "bfloat16"; throws Error naming config.precision otherwise.
Precision parsePrecision(const std::string& name);
const char* precisionName(Precision p);

}  // namespace netsmith
