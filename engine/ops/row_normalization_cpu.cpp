// The CPU kernel of LayerNormalization, InstanceNormalization and GroupNormalization (Note [Row
// normalization]): rows in parallel for the statistics, the output and the input gradient; the
// parameter gradients one parameter at a time, each summed in double over its elements in order,
// so the result does not depend on the thread count.
#include <vector>

#include "engine/backend/cpu/parallel_for.h"
#include "engine/ops/row_normalization_kernel.h"

namespace netsmith::cpu {
namespace {

using namespace netsmith::cuda::rownorm;

class RowNormalizationKernel final : public Kernel {
 public:
  explicit RowNormalizationKernel(const ops::RowNormGeometry& g) : m_g(g) {}

  void forward(KernelCall& call) override {
    const Tensor& x = *call.inputs[0];
    const int64_t L = m_g.rowLength;
    const int64_t rows = x.size() / L;
    m_mean.resize(static_cast<size_t>(rows));
    m_invStd.resize(static_cast<size_t>(rows));
    const float* in = x.data();
    float* mean = m_mean.data();
    float* invStd = m_invStd.data();
    const float* gamma = m_g.scale ? call.params[m_g.gammaBlob()]->data() : nullptr;
    const float* beta = m_g.bias ? call.params[m_g.betaBlob()]->data() : nullptr;
    const Normalize body{L, m_g.paramInner, m_g.paramCount};
    float* out = call.output.data();
    parallelFor(rows, [&](int64_t r) {
      const float* row = in + r * L;
      double sum = 0.0;
      for (int64_t j = 0; j < L; ++j) sum += row[j];
      const double m = sum / static_cast<double>(L);
      double squares = 0.0;
      for (int64_t j = 0; j < L; ++j) {
        const double d = row[j] - m;
        squares += d * d;
      }
      mean[r] = static_cast<float>(m);
      invStd[r] = inverseStd(squares, L, m_g.eps);
      for (int64_t j = 0; j < L; ++j) body(r * L + j, in, mean, invStd, gamma, beta, out);
    });
  }

  // Uses the statistics of the last forward (Kernel contract: backward follows its forward).
  void backward(KernelCall& call) override {
    const Tensor& x = *call.inputs[0];
    const int64_t L = m_g.rowLength;
    const int64_t rows = x.size() / L;
    const float* in = x.data();
    const float* dy = call.outputGrad->data();
    const float* mean = m_mean.data();
    const float* invStd = m_invStd.data();
    const float* gamma = m_g.scale ? call.params[m_g.gammaBlob()]->data() : nullptr;
    if (Tensor* dxTensor = call.inputGrads[0]) {
      m_rowSums.assign(static_cast<size_t>(2 * rows), 0.0);
      double* sums = m_rowSums.data();
      const InputGradient body{L, m_g.paramInner, m_g.paramCount};
      float* dx = dxTensor->data();
      parallelFor(rows, [&](int64_t r) {
        double a = 0.0, b = 0.0;
        for (int64_t i = r * L; i < (r + 1) * L; ++i) {
          const float gv = gamma ? gamma[paramOf(i, m_g.paramInner, m_g.paramCount)] : 1.0f;
          addGradientTerms(in[i], dy[i], gv, mean[i / L], invStd[i / L], a, b);
        }
        sums[2 * r] = a;
        sums[2 * r + 1] = b;
        for (int64_t i = r * L; i < (r + 1) * L; ++i) body(i, in, dy, mean, invStd, gamma, sums, dx);
      });
    }
    Tensor* dbeta = m_g.bias && !call.paramGrads.empty() ? call.paramGrads[m_g.betaBlob()] : nullptr;
    Tensor* dgamma = m_g.scale && !call.paramGrads.empty() ? call.paramGrads[m_g.gammaBlob()] : nullptr;
    if (!dbeta && !dgamma) return;
    const int64_t perParam = x.size() / m_g.paramCount;
    parallelFor(m_g.paramCount, [&](int64_t p) {
      double sb = 0.0, sg = 0.0;
      for (int64_t k = 0; k < perParam; ++k) {
        const int64_t i = paramElement(k, p, m_g.paramInner, m_g.paramCount);
        const int64_t r = i / L;
        sb += dy[i];
        sg += static_cast<double>(dy[i]) * normalized(in[i], mean[r], invStd[r]);
      }
      if (dbeta) (*dbeta)[p] = static_cast<float>(sb);
      if (dgamma) (*dgamma)[p] = static_cast<float>(sg);
    });
  }

 private:
  ops::RowNormGeometry m_g;
  std::vector<float> m_mean, m_invStd;  // per row, from the last forward
  std::vector<double> m_rowSums;        // (Σ g, Σ g·x̂) per row
};

}  // namespace

std::unique_ptr<Kernel> makeRowNormalizationKernel(const ops::RowNormGeometry& geometry) {
  return std::make_unique<RowNormalizationKernel>(geometry);
}

}  // namespace netsmith::cpu
