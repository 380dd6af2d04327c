// The CUDA kernel of MaxPooling and AveragePooling on plain (N, C, H, W) tensors, following
// nnabla's window rules exactly (Note [Pooling windows]) — which cuDNN's pooling cannot express
// for ignore_border false (windows past the padded input) — and the CPU kernel's tie rule (the
// first maximum in row-major order). Backward gathers, for each input element, the windows that
// cover it, so it needs no atomics and is deterministic.
#pragma once

#include <memory>

#include "engine/op_interface/op_schema.h"
#include "engine/op_interface/pooling_rules.h"

namespace netsmith::cuda {

std::unique_ptr<Kernel> makeCudaPoolingKernel(const ops::PoolingGeometry& geometry, bool max, bool includingPad);

}  // namespace netsmith::cuda
