// Whether this build's GPU code loads on the current device (Note [CUDA architectures]): the
// driver looks for SASS or PTX it can use when asked about a kernel, so an empty one answers for
// every kernel of the build (all are compiled for the same list).
#include <cuda_runtime.h>

namespace netsmith::cuda {
namespace {
__global__ void kernelImageProbe() {}
}  // namespace

cudaError_t probeKernelImage() {
  cudaFuncAttributes attributes{};
  return cudaFuncGetAttributes(&attributes, kernelImageProbe);
}

}  // namespace netsmith::cuda
