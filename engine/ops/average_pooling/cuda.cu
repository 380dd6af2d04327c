// AveragePooling on the GPU: the shared pooling kernels (engine/backend/cuda/pooling_kernel.h).
#include "engine/backend/cuda/cuda_op.h"
#include "engine/backend/cuda/pooling_kernel.h"

namespace netsmith::cuda {

void register_average_pooling(OpRegistry& registry) {
  addCudaKernel(registry, "AveragePooling", [](const KernelSetup& setup) {
    return makeCudaPoolingKernel(ops::poolingGeometry("AveragePooling", setup.inputShapes.at(0), setup.params), false,
                                 setup.params.flag("including_pad"));
  }, Activations::Also16Bit, Layouts::AlsoChannelsLast);
}

}  // namespace netsmith::cuda
