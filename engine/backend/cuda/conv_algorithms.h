// The cuDNN algorithms of one convolution shape (forward, backward data, backward filter), chosen
// once per shape and kept for the process (Note [cuDNN convolution algorithms]).
#pragma once

#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/backend/cuda/cuda_device.h"

namespace netsmith::cuda {

// The most workspace an algorithm may take, and the trials' scratch (within half the free memory),
// which stays in the device pool afterwards (Note [Memory before launch]).
inline constexpr size_t kConvWorkspaceLimit = size_t{1} << 30;

struct ConvAlgorithms {
  cudnnConvolutionFwdAlgo_t forward{};
  cudnnConvolutionBwdDataAlgo_t backwardData{};
  cudnnConvolutionBwdFilterAlgo_t backwardFilter{};
  size_t forwardBytes = 0, backwardDataBytes = 0, backwardFilterBytes = 0;  // workspaces
};

// The convolution as cuDNN sees it — input x, filter w, output y — with the element counts of
// x, w and y at this batch size, and what the error messages call it.
struct ConvProblem {
  cudnnTensorDescriptor_t x = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnTensorDescriptor_t y = nullptr;
  int64_t xCount = 0, wCount = 0, yCount = 0;
  bool deterministic = false;  // config.deterministic: deterministic algorithms only
  std::string shapes;          // "input (3, 224, 224) and output (64, 112, 112)"
};

// The algorithms for `problem` on `device`; `key` names the problem completely (shapes, batch,
// convolution parameters, math type, determinism), so equal problems share one measurement.
ConvAlgorithms convAlgorithms(CudaDeviceContext& device, const ConvProblem& problem, const std::string& key);

}  // namespace netsmith::cuda
