// PReLU on the GPU: the bodies of prelu/cuda_math.h element-wise, and the slope gradient with one
// block per slope summing x·dy over the elements it multiplies (double, fixed order: deterministic).
#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_op.h"
#include "engine/ops/prelu/cuda_math.h"
#include "engine/ops/prelu/prelu_shape.h"

namespace netsmith::cuda {
namespace {

// Block c sums the terms of slope c: element (row, c, j) of `rows` rows and `inner` elements per run.
__global__ void preluSlopeGradient(const float* x, const float* dy, float* dslope, int64_t rows, int64_t channels,
                                   int64_t inner) {
  const int64_t c = blockIdx.x;
  double sum = 0.0;
  for (int64_t k = threadIdx.x; k < rows * inner; k += blockDim.x) {
    const int64_t i = ((k / inner) * channels + c) * inner + k % inner;
    sum += preluSlopeTerm(x[i], dy[i]);
  }
  sum = blockSum(sum);
  if (threadIdx.x == 0) dslope[c] = static_cast<float>(sum);
}

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
      const LaunchShape shape = perBlock("preluSlopeGradient", m_g.channels, kThreads);
      preluSlopeGradient<<<gridOf(shape), shape.block, 0, ctx(call).stream()>>>(
          x.data(), call.outputGrad->data(), dslope->data(), rows, m_g.channels, m_g.inner);
      NS_CUDA_CHECK_LAUNCH();
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
