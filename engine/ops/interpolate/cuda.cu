// Interpolate on the GPU: the bodies of interpolate/cuda_math.h, one thread per output value
// (forward) and per input value (backward, a gather: deterministic, no atomics).
#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_op.h"
#include "engine/ops/interpolate/interpolate_shape.h"

namespace netsmith::cuda {
namespace {

class InterpolateKernel final : public Kernel {
 public:
  explicit InterpolateKernel(ops::InterpolateGeometry g) : m_g(g) {}

  void forward(KernelCall& call) override {
    launchGridStride("Interpolate", ctx(call).stream(), call.output.size(),
                     interp::body::InterpolateForward{m_g.h, m_g.w}, call.inputs[0]->data(), call.output.data());
  }

  void backward(KernelCall& call) override {
    Tensor* dx = call.inputGrads[0];
    if (!dx) return;
    launchGridStride("Interpolate", ctx(call).stream(), dx->size(), interp::body::InterpolateBackward{m_g.h, m_g.w},
                     call.outputGrad->data(), dx->data());
  }

 private:
  ops::InterpolateGeometry m_g;
};

}  // namespace

void register_interpolate(OpRegistry& registry) {
  addCudaKernel(registry, "Interpolate", [](const KernelSetup& setup) -> std::unique_ptr<Kernel> {
    return std::make_unique<InterpolateKernel>(ops::interpolateGeometry(setup.inputShapes.at(0), setup.params));
  });
}

}  // namespace netsmith::cuda
