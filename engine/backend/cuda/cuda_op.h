// What every engine/ops/<op>/cuda.cu needs: the kernel interface, the CUDA context, the checks,
// cuDNN descriptor holders, and addCudaKernel(), which puts an op's "cuda" factory into the schema
// its schema.cpp registered (Note [Op folders]).
#pragma once

#include <cudnn.h>

#include <memory>
#include <string>
#include <utility>

#include "engine/backend/cuda/cuda_check.h"
#include "engine/backend/cuda/cuda_device.h"
#include "engine/op_interface/op_registry.h"

namespace netsmith::cuda {

// Note [GPU fused epilogues]
// Note [Fused ReLU] (engine/model/network.cpp) on the GPU: a layer whose only reader is a ReLU
// writes max(y, 0) into the ReLU's output as it writes y, saving the ReLU's forward pass over the
// activation (a read and a write of it). Convolution with a bias does it in one cuDNN call
// (cudnnConvolutionBiasActivationForward), Affine with a bias in its bias kernel, and
// BatchNormalization in its normalize kernel (ResNet's conv → BN → ReLU); the bodies are
// host-device and tst_cuda_kernel_bodies checks them against the CPU layer followed by the CPU
// ReLU. Their backward passes read x and dy, never y, and ReLU's backward reads only its output
// (activation_kernel.cpp), so backward is unchanged. Simulated GPUs do not fuse (their kernels,
// the CPU's behind a queue, keep every layer's own call: Note [Simulated kernels]).

// Whether an op's CUDA kernel reads and writes 16-bit activations when the device stores them
// (Note [16-bit activations], engine/model/network.cpp): its forward and backward then take every
// activation and activation gradient in the context's activationStorage(), and parameters and
// their gradients in float32.
enum class Activations { Float32Only, Also16Bit };
// Whether it also takes (N, C, H, W) activations channels last (Note [Channels last],
// engine/core/channels_last.h): every input, the output and their gradients in NHWC order.
enum class Layouts { ChannelsFirstOnly, AlsoChannelsLast };

inline void addCudaKernel(OpRegistry& registry, const char* op, KernelFactory factory,
                          Activations activations = Activations::Float32Only,
                          Layouts layouts = Layouts::ChannelsFirstOnly) {
  OpSchema* schema = registry.findMutable(op);
  NS_CHECK(schema, "the CUDA backend has kernels for '{}', which is not registered", op);
  schema->kernels["cuda"] = std::move(factory);
  if (activations == Activations::Also16Bit) schema->takes16BitActivations.insert("cuda");
  if (layouts == Layouts::AlsoChannelsLast) schema->takesChannelsLast.insert("cuda");
}

inline cudnnDataType_t cudnnTypeOf(Storage storage) {
  switch (storage) {
    case Storage::Float16: return CUDNN_DATA_HALF;
    case Storage::BFloat16: return CUDNN_DATA_BFLOAT16;
    case Storage::Float32: break;
  }
  return CUDNN_DATA_FLOAT;
}

inline cudnnTensorFormat_t cudnnLayoutOf(Layout layout) {
  return layout == Layout::ChannelsLast ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
}

// Owners of cuDNN descriptors (created on construction, destroyed with the owner).
class TensorDesc {
 public:
  TensorDesc() { NS_CUDNN_CHECK(cudnnCreateTensorDescriptor(&m_desc)); }
  ~TensorDesc() { cudnnDestroyTensorDescriptor(m_desc); }
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
  // (n, c, h, w) in NCHW or NHWC order, float32 or a tensor's 16-bit storage (Note [16-bit
  // activations], Note [Channels last]).
  void set(int64_t n, int64_t c, int64_t h, int64_t w, TensorFormat format = {}) {
    NS_CUDNN_CHECK(cudnnSetTensor4dDescriptor(m_desc, cudnnLayoutOf(format.layout), cudnnTypeOf(format.storage),
                                              static_cast<int>(n), static_cast<int>(c), static_cast<int>(h),
                                              static_cast<int>(w)));
  }
  cudnnTensorDescriptor_t get() const { return m_desc; }

 private:
  cudnnTensorDescriptor_t m_desc = nullptr;
};

// A Kernel that only ever runs on a CUDA context.
inline CudaDeviceContext& ctx(KernelCall& call) { return cudaContext(call.device); }

}  // namespace netsmith::cuda
