// BatchNormalization on the CPU, written directly over the plain (N, C, rest...) layout.
//
// oneDNN 2.6 normalizes plain NCHW data with its reference-like ncsp_bnorm implementation (its JIT
// kernels need NHWC or blocked layouts), which was 2-6× slower than these loops on LeNet's shapes.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "engine/backend/cpu/parallel_for.h"
#include "engine/op_interface/op_schema.h"

namespace netsmith::cpu {
namespace {

class BatchNormalizationKernel final : public Kernel {
 public:
  BatchNormalizationKernel(int64_t channels, int64_t spatial, float eps, float decay, bool batchStat)
      : m_channels(channels),
        m_spatial(spatial),
        m_eps(eps),
        m_decay(decay),
        m_batchStat(batchStat),
        m_mean(channels),
        m_invStd(channels) {}

  // params: beta, gamma, mean (running), var (running), each (C).
  void forward(KernelCall& call) override {
    const Tensor& x = *call.inputs[0];
    const float* beta = call.params[0]->data();
    const float* gamma = call.params[1]->data();
    float* runningMean = call.params[2]->data();
    float* runningVar = call.params[3]->data();
    const int64_t batch = x.dim(0);
    const int64_t C = m_channels, S = m_spatial;
    const int64_t count = batch * S;  // values per channel
    m_usedBatchStats = call.training && m_batchStat;
    const bool batchStats = m_usedBatchStats;
    const float* in = x.data();
    float* out = call.output.data();
    float* mean = m_mean.data();
    float* invStd = m_invStd.data();
    const float eps = m_eps, decay = m_decay;
    // nnabla updates the running variance with the unbiased batch variance; one value per channel
    // has none, so it then takes the biased one (0).
    const double unbias = count > 1 ? static_cast<double>(count) / static_cast<double>(count - 1) : 1.0;

    parallelFor(C, [&](int64_t c) {
      if (batchStats) {
        // Sums of (x - K) with K the channel's first value keep E[d²] - E[d]² accurate when the
        // mean is large compared with the spread.
        const float shift = in[c * S];
        double sum = 0.0, sumSquares = 0.0;
        for (int64_t n = 0; n < batch; ++n) {
          const float* row = in + (n * C + c) * S;
          float a = 0.0f, b = 0.0f;
#pragma omp simd reduction(+ : a, b)
          for (int64_t i = 0; i < S; ++i) {
            const float d = row[i] - shift;
            a += d;
            b += d * d;
          }
          sum += a;
          sumSquares += b;
        }
        const double meanShifted = sum / static_cast<double>(count);
        const double var = std::max(sumSquares / static_cast<double>(count) - meanShifted * meanShifted, 0.0);
        mean[c] = static_cast<float>(shift + meanShifted);
        invStd[c] = static_cast<float>(1.0 / std::sqrt(var + eps));
        runningMean[c] = decay * runningMean[c] + (1.0f - decay) * mean[c];
        runningVar[c] = decay * runningVar[c] + (1.0f - decay) * static_cast<float>(var * unbias);
      } else {
        mean[c] = runningMean[c];
        invStd[c] = 1.0f / std::sqrt(runningVar[c] + eps);
      }
      // (x - mean) first: folding the mean into the offset would cancel catastrophically when the
      // mean is large compared with the spread.
      const float m = mean[c];
      const float scale = gamma[c] * invStd[c];
      const float offset = beta[c];
      for (int64_t n = 0; n < batch; ++n) {
        const float* row = in + (n * C + c) * S;
        float* dst = out + (n * C + c) * S;
#pragma omp simd
        for (int64_t i = 0; i < S; ++i) dst[i] = (row[i] - m) * scale + offset;
      }
    });
  }

  // Uses the statistics of the last forward: the batch's (training with batch_stat) or the running
  // ones, which are then constants and only gamma scales the gradient.
  void backward(KernelCall& call) override {
    Tensor* dxTensor = call.inputGrads[0];
    Tensor* dbetaTensor = call.paramGrads.size() > 0 ? call.paramGrads[0] : nullptr;
    Tensor* dgammaTensor = call.paramGrads.size() > 1 ? call.paramGrads[1] : nullptr;
    if (!dxTensor && !dbetaTensor && !dgammaTensor) return;
    const Tensor& x = *call.inputs[0];
    const float* gamma = call.params[1]->data();
    const int64_t batch = x.dim(0);
    const int64_t C = m_channels, S = m_spatial;
    const double count = static_cast<double>(batch * S);
    const bool batchStats = m_usedBatchStats;
    const float* in = x.data();
    const float* dy = call.outputGrad->data();
    float* dx = dxTensor ? dxTensor->data() : nullptr;
    float* dbeta = dbetaTensor ? dbetaTensor->data() : nullptr;
    float* dgamma = dgammaTensor ? dgammaTensor->data() : nullptr;
    const float* mean = m_mean.data();
    const float* invStd = m_invStd.data();

    parallelFor(C, [&](int64_t c) {
      const float m = mean[c];
      double sumDy = 0.0, sumDyCentered = 0.0;
      for (int64_t n = 0; n < batch; ++n) {
        const float* row = in + (n * C + c) * S;
        const float* g = dy + (n * C + c) * S;
        float a = 0.0f, b = 0.0f;
#pragma omp simd reduction(+ : a, b)
        for (int64_t i = 0; i < S; ++i) {
          a += g[i];
          b += g[i] * (row[i] - m);
        }
        sumDy += a;
        sumDyCentered += b;
      }
      if (dbeta) dbeta[c] = static_cast<float>(sumDy);
      if (dgamma) dgamma[c] = static_cast<float>(sumDyCentered * invStd[c]);
      if (!dx) return;
      // dx = gamma·invStd·(dy − mean(dy) − x̂·mean(dy·x̂)) with batch statistics; gamma·invStd·dy otherwise.
      const float k1 = gamma[c] * invStd[c];
      float k2 = 0.0f, k3 = 0.0f;
      if (batchStats) {
        const double is = invStd[c];
        k2 = static_cast<float>(-static_cast<double>(gamma[c]) * is * is * is * sumDyCentered / count);
        k3 = static_cast<float>(-static_cast<double>(k1) * sumDy / count);
      }
      for (int64_t n = 0; n < batch; ++n) {
        const float* row = in + (n * C + c) * S;
        const float* g = dy + (n * C + c) * S;
        float* dst = dx + (n * C + c) * S;
#pragma omp simd
        for (int64_t i = 0; i < S; ++i) dst[i] = k1 * g[i] + k2 * (row[i] - m) + k3;
      }
    });
  }

 private:
  int64_t m_channels;
  int64_t m_spatial;  // product of the per-sample axes after the channel axis (1 for (C) inputs)
  float m_eps;
  float m_decay;
  bool m_batchStat;
  bool m_usedBatchStats = false;  // the last forward normalized by batch statistics
  std::vector<float> m_mean;      // (C) statistics the last forward normalized with
  std::vector<float> m_invStd;    // (C) 1 / sqrt(var + eps)
};

}  // namespace

std::unique_ptr<Kernel> makeBatchNormalizationKernel(const KernelSetup& setup) {
  const Shape& x = setup.inputShapes.at(0);
  int64_t spatial = 1;
  for (size_t i = 1; i < x.size(); ++i) spatial *= x[i];
  return std::make_unique<BatchNormalizationKernel>(x.at(0), spatial, static_cast<float>(setup.params.number("eps")),
                                                    static_cast<float>(setup.params.number("decay_rate")),
                                                    setup.params.flag("batch_stat"));
}

}  // namespace netsmith::cpu
