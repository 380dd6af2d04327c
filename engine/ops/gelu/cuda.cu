// GELU on the GPU: the element-wise bodies of gelu/cuda_math.h (cuDNN's legacy activations have
// no GELU).
#include "engine/backend/cuda/body_activation_kernel.cuh"
#include "engine/ops/gelu/cuda_math.h"

namespace netsmith::cuda {

void register_gelu(OpRegistry& registry) {
  addCudaKernel(registry, "GELU", [](const KernelSetup& setup) -> std::unique_ptr<Kernel> {
    if (setup.params.text("approximate") == "tanh")
      return makeBodyActivationKernel("GELU", body::GeluTanhForward{}, body::GeluTanhBackward{});
    return makeBodyActivationKernel("GELU", body::GeluErfForward{}, body::GeluErfBackward{});
  });
}

}  // namespace netsmith::cuda
