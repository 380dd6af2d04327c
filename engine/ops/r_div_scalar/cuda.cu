// RDivScalar on the GPU: the bodies of scalar_bodies.h in a grid-stride loop.
#include "engine/backend/cuda/body_activation_kernel.cuh"
#include "engine/ops/scalar_bodies.h"

namespace netsmith::cuda {

void register_r_div_scalar(OpRegistry& registry) {
  addCudaKernel(registry, "RDivScalar", [](const KernelSetup& setup) {
    const float val = static_cast<float>(setup.params.number("val"));
    return makeBodyActivationKernel("RDivScalar", body::RDivScalarForward{val}, body::RDivScalarBackward{val});
  });
}

}  // namespace netsmith::cuda
