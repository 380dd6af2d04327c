// The CUDA kernel of Convolution and Deconvolution, on cuDNN (cudnnConvolutionForward /
// BackwardData / BackwardFilter / BackwardBias), over plain NCHW tensors and the ops' own W
// layouts, so nothing is reordered.
#pragma once

#include <memory>

#include "engine/op_interface/op_schema.h"

namespace netsmith::cuda {

// transposed: Deconvolution. Its forward is cuDNN's backward-data of the convolution that maps
// the deconvolution's output to its input (W (inmaps, outmaps/group, kh, kw) is that
// convolution's filter), its input gradient that convolution's forward, its weight gradient that
// convolution's backward-filter with the roles of x and dy swapped.
std::unique_ptr<Kernel> makeCudnnConvKernel(const KernelSetup& setup, bool transposed);

}  // namespace netsmith::cuda
