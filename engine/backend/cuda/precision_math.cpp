// Note [Precision]: the table.
#include "engine/backend/cuda/precision_math.h"

namespace netsmith::cuda {

PrecisionMath precisionMath(Precision precision) {
  switch (precision) {
    case Precision::Half:
      return {CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION, CUBLAS_COMPUTE_32F_FAST_16F, CUBLAS_DEFAULT_MATH, 65536.0f};
    case Precision::BFloat16:
      return {CUDNN_DEFAULT_MATH, CUBLAS_COMPUTE_32F_FAST_16BF, CUBLAS_DEFAULT_MATH, 1.0f};
    case Precision::Float: break;
  }
  return {CUDNN_FMA_MATH, CUBLAS_COMPUTE_32F, CUBLAS_PEDANTIC_MATH, 1.0f};
}

}  // namespace netsmith::cuda
