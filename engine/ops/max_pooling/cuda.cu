// MaxPooling on the GPU: the shared pooling kernels (engine/backend/cuda/pooling_kernel.h).
#include "engine/backend/cuda/cuda_op.h"
#include "engine/backend/cuda/pooling_kernel.h"

namespace netsmith::cuda {

void register_max_pooling(OpRegistry& registry) {
  addCudaKernel(registry, "MaxPooling", [](const KernelSetup& setup) {
    return makeCudaPoolingKernel(ops::poolingGeometry("MaxPooling", setup.inputShapes.at(0), setup.params), true, false);
  }, Activations::Also16Bit, Layouts::AlsoChannelsLast);
}

}  // namespace netsmith::cuda
