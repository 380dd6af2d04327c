// ChannelShuffle on the GPU: the gather of shuffle_view.h (Note [Index views]).
#include "engine/backend/cuda/index_view_kernels.cuh"
#include "engine/ops/channel_shuffle/shuffle_view.h"

namespace netsmith::cuda {

void register_channel_shuffle(OpRegistry& registry) {
  addCudaKernel(registry, "ChannelShuffle", [](const KernelSetup& setup) -> std::unique_ptr<Kernel> {
    return std::make_unique<CudaGatherKernel>("ChannelShuffle", ops::shuffleView(setup.inputShapes.at(0), setup.params),
                                              0.0f);
  });
}

}  // namespace netsmith::cuda
