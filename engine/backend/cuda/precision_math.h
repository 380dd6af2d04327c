// The maths each config.precision asks of cuDNN, cuBLAS and the solver, in one table
// (Note [Precision]), so a convolution, a matrix product and the loss scaling cannot disagree.
//
// Note [Precision]: master weights, their gradients and optimizer state are float32 in every mode,
// and every mode accumulates in float32. In half and bfloat16 the activations, and their
// gradients, of the layers whose kernels take them are stored in 16 bits (Note [16-bit
// activations], engine/model/network.cpp): those layers then compute on 16-bit tensors (cuDNN and
// cuBLAS with 16-bit inputs, float32 compute, tensor cores). For layers that keep float32 tensors
// the table below says what the library may convert to while it computes:
//   float    — IEEE float32 products throughout (cuDNN FMA math, cuBLAS pedantic; no TF32), so
//              CUDA results match the CPU kernels to 1e-5.
//   half     — fp16 conversions on tensor cores (cuDNN's ALLOW_CONVERSION converts to fp16;
//              cuBLAS 32F_FAST_16F). fp16's 5-bit exponent underflows small gradients, hence
//              dynamic loss scaling (DeviceSolver), starting at 2^16.
//   bfloat16 — conversions that keep float32's 8-bit exponent: cuBLAS 32F_FAST_16BF (bf16 inputs)
//              and, because cuDNN offers no bf16 conversion of float32 tensors, TF32 tensor cores
//              for convolutions (CUDNN_DEFAULT_MATH: 8-bit exponent, 10-bit mantissa, at least
//              bf16's accuracy, the rule of oneDNN's fpmath_mode). Same range as float32: no loss
//              scaling. (ALLOW_CONVERSION here would compute bf16 runs in fp16, with fp16's range
//              and no loss scaling to protect it.)
#pragma once

#include <cublas_v2.h>
#include <cudnn.h>

#include "engine/core/precision.h"

namespace netsmith::cuda {

using netsmith::Precision;

struct PrecisionMath {
  cudnnMathType_t convolution;      // cudnnSetConvolutionMathType
  cublasComputeType_t gemm;         // cublasGemmEx's compute type
  cublasMath_t cublasMode;          // cublasSetMathMode of the device's handle
  float initialLossScale;           // 1: no loss scaling
};

PrecisionMath precisionMath(Precision precision);

}  // namespace netsmith::cuda
