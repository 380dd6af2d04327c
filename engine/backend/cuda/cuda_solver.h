// CudaSolver: the DeviceSolver of the CUDA backend — every solver of engine/optim/optimizer.h
// (Sgd, Momentum, Nesterov, Adagrad, RMSprop, Adam, AdamW) as one fused kernel per step over all
// parameters, with the same per-element maths (Note [Solver kernels]) and, in half precision,
// dynamic loss scaling (Note [Precision]).
#pragma once

#include <memory>

#include "engine/optim/device_solver.h"

namespace netsmith::cuda {

class CudaDeviceContext;

std::unique_ptr<DeviceSolver> makeCudaSolver(const Optimizer& config, CudaDeviceContext& device);

}  // namespace netsmith::cuda
