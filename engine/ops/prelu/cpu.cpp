// PReLU on the CPU, on the same bodies as the GPU (prelu/cuda_math.h). The slope gradient sums
// x·dy over every element that slope multiplies, in double and in a fixed order: each (row,
// channel) run of `inner` elements in parallel, then the rows in order, so the result does not
// depend on the thread count.
#include <memory>
#include <vector>

#include "engine/backend/cpu/parallel_for.h"
#include "engine/ops/prelu/cuda_math.h"
#include "engine/ops/prelu/prelu_shape.h"

namespace netsmith::cpu {
namespace {

class PreluKernel final : public Kernel {
 public:
  explicit PreluKernel(ops::PreluGeometry g) : m_g(g) {}

  void forward(KernelCall& call) override {
    const cuda::body::PreluForward f{m_g.channels, m_g.inner};
    const float* x = call.inputs[0]->data();
    const float* slope = call.params[0]->data();
    float* y = call.output.data();
    parallelFor(call.output.size(), [&](int64_t i) { f(i, x, slope, y); });
  }

  void backward(KernelCall& call) override {
    const Tensor& x = *call.inputs[0];
    const float* slope = call.params[0]->data();
    const float* dy = call.outputGrad->data();
    if (Tensor* dx = call.inputGrads[0]) {
      const cuda::body::PreluBackward b{m_g.channels, m_g.inner};
      float* out = dx->data();
      parallelFor(dx->size(), [&](int64_t i) { b(i, x.data(), slope, dy, out); });
    }
    if (Tensor* dslope = call.paramGrads[0]) {
      const int64_t runs = x.size() / m_g.inner;  // (row, channel) runs; a row is everything before the channel axis
      m_partials.assign(static_cast<size_t>(runs), 0.0);
      parallelFor(runs, [&](int64_t r) {
        const float* xs = x.data() + r * m_g.inner;
        const float* g = dy + r * m_g.inner;
        double sum = 0.0;
        for (int64_t j = 0; j < m_g.inner; ++j) sum += cuda::preluSlopeTerm(xs[j], g[j]);
        m_partials[static_cast<size_t>(r)] = sum;
      });
      for (int64_t c = 0; c < m_g.channels; ++c) {
        double sum = 0.0;
        for (int64_t r = c; r < runs; r += m_g.channels) sum += m_partials[static_cast<size_t>(r)];
        (*dslope)[c] = static_cast<float>(sum);
      }
    }
  }

 private:
  ops::PreluGeometry m_g;
  std::vector<double> m_partials;  // per (row, channel) run, kept between calls
};

}  // namespace

std::unique_ptr<Kernel> makePreluKernel(const KernelSetup& setup) {
  return std::make_unique<PreluKernel>(ops::preluGeometry(setup.inputShapes.at(0), setup.params));
}

}  // namespace netsmith::cpu
