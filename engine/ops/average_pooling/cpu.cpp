// AveragePooling on the CPU: the shared pooling loops (engine/backend/cpu/pooling_kernel.h).
#include "engine/backend/cpu/pooling_kernel.h"

namespace netsmith::cpu {

std::unique_ptr<Kernel> makeAveragePoolingKernel(const KernelSetup& setup) {
  const auto geometry = ops::poolingGeometry("AveragePooling", setup.inputShapes.at(0), setup.params);
  return makePoolingKernel(geometry, PoolingMode::Average, setup.params.flag("including_pad"));
}

}  // namespace netsmith::cpu
