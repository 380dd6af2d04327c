// MaxPooling on the CPU: the shared pooling loops (engine/backend/cpu/pooling_kernel.h).
#include "engine/backend/cpu/pooling_kernel.h"

namespace netsmith::cpu {

std::unique_ptr<Kernel> makeMaxPoolingKernel(const KernelSetup& setup) {
  const auto geometry = ops::poolingGeometry("MaxPooling", setup.inputShapes.at(0), setup.params);
  return makePoolingKernel(geometry, PoolingMode::Max, false);
}

}  // namespace netsmith::cpu
