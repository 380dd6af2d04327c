// PReLU on the GPU: the bodies of prelu/cuda_math.h element-wise, and the slope gradient, x·dy
// summed over the elements each slope multiplies, by launchReduction (Note [Deterministic GPU
// reductions]: double, a fixed order, no atomics). A shared slope's sum over the whole batch is
// split over many blocks, not left to one.
#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_op.h"
#include "engine/backend/cuda/deterministic_reduction.cuh"
#include "engine/ops/prelu/cuda_math.h"
#include "engine/ops/prelu/prelu_shape.h"

namespace netsmith::cuda {
namespace {

class PreluKernel final : public Kernel {
 public:
  explicit PreluKernel(ops::PreluGeometry g) : m_g(g) {}

  void forward(KernelCall& call) override {
    launchGridStride("preluForward", ctx(call).stream(), call.output.size(), body::PreluForward{m_g.channels, m_g.inner},
                     call.inputs[0]->data(), call.params[0]->data(), call.output.data());
  }

  void backward(KernelCall& call) override {
    const Tensor& x = *call.inputs[0];
    if (Tensor* dx = call.inputGrads[0])
      launchGridStride("preluBackward", ctx(call).stream(), dx->size(), body::PreluBackward{m_g.channels, m_g.inner},
                       x.data(), call.params[0]->data(), call.outputGrad->data(), dx->data());
    if (Tensor* dslope = call.paramGrads[0]) {
      const int64_t rows = x.size() / (m_g.channels * m_g.inner);
      launchReduction("preluSlopeGradient", ctx(call), m_g.channels, rows * m_g.inner,
                      preluSlopeLayout(m_g.channels, m_g.inner),
                      PreluSlopeTerms{x.data(), call.outputGrad->data(), m_g.channels, m_g.inner},
                      ScaledSumSink{dslope->data()});
    }
  }

 private:
  ops::PreluGeometry m_g;
};

}  // namespace

void register_prelu(OpRegistry& registry) {
  addCudaKernel(registry, "PReLU", [](const KernelSetup& setup) {
    return std::make_unique<PreluKernel>(ops::preluGeometry(setup.inputShapes.at(0), setup.params));
  });
}

}  // namespace netsmith::cuda
