// AddScalar on the GPU: the bodies of scalar_bodies.h in a grid-stride loop.
#include "engine/backend/cuda/body_activation_kernel.cuh"
#include "engine/ops/scalar_bodies.h"

namespace netsmith::cuda {

void register_add_scalar(OpRegistry& registry) {
  addCudaKernel(registry, "AddScalar", [](const KernelSetup& setup) {
    const float val = static_cast<float>(setup.params.number("val"));
    return makeBodyActivationKernel("AddScalar", body::AddScalarForward{val}, body::AddScalarBackward{val});
  });
}

}  // namespace netsmith::cuda
