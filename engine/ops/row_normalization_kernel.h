// The kernels of the per-sample normalizations (Note [Row normalization], row_normalization.h):
// the CPU one here (row_normalization_cpu.cpp); the CUDA one is row_normalization.cuh, included by
// each op folder's cuda.cu.
#pragma once

#include <memory>

#include "engine/op_interface/op_schema.h"
#include "engine/ops/row_normalization.h"

namespace netsmith::cpu {
std::unique_ptr<Kernel> makeRowNormalizationKernel(const ops::RowNormGeometry& geometry);
}
