// PoolingKernel: the CPU kernel of MaxPooling and AveragePooling on plain (N, C, H, W) tensors.
//
// Written as direct OpenMP loops over the N×C planes rather than on oneDNN: oneDNN 2.6 has no fast
// path for plain NCHW pooling (its JIT kernel transposes to a blocked layout and back) and was
// 1.2-9× slower than these loops on LeNet's shapes (batch 64 and 256, forward and backward). The
// loops also follow nnabla's border rules exactly (Note [Pooling windows]).
//
// Max pooling's backward routes each gradient to the maximum found by the last training forward
// (recomputed from the input when the last forward was an inference pass).
#pragma once

#include <memory>

#include "engine/op_interface/op_schema.h"
#include "engine/op_interface/pooling_rules.h"

namespace netsmith::cpu {

enum class PoolingMode {
  Max,
  Average,  // divides by the window inside the padded input (including_pad) or inside the input
};

std::unique_ptr<Kernel> makePoolingKernel(const ops::PoolingGeometry& geometry, PoolingMode mode,
                                          bool includingPad);

}  // namespace netsmith::cpu
