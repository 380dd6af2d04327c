// MulScalar on the GPU: the bodies of scalar_bodies.h in a grid-stride loop.
#include "engine/backend/cuda/body_activation_kernel.cuh"
#include "engine/ops/scalar_bodies.h"

namespace netsmith::cuda {

void register_mul_scalar(OpRegistry& registry) {
  addCudaKernel(registry, "MulScalar", [](const KernelSetup& setup) {
    const float val = static_cast<float>(setup.params.number("val"));
    return makeBodyActivationKernel("MulScalar", body::MulScalarForward{val}, body::MulScalarBackward{val});
  });
}

}  // namespace netsmith::cuda
