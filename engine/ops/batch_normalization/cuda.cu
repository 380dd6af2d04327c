// BatchNormalization on the GPU, written directly with the CPU kernel's maths
// (batch_normalization/cpu.cpp): per-channel sums of (x − first value) and their squares in
// double, the unbiased running variance, the same dx formula. Not cuDNN's batch normalization:
// that requires eps ≥ 1e-5 (the schema allows any eps > 0) and has no batch_stat false training
// mode (normalize by the running statistics while training), and it is memory-bound either way.
//
// Sums are deterministic: pass 1 gives each (channel, slice of the N·S values) block a partial
// sum, pass 2 adds a channel's partials in slice order; no atomics.
#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_op.h"

namespace netsmith::cuda {
namespace {

constexpr int kSlices = 64;  // blocks per channel in pass 1

// Pass 1: block (c, slice) sums over the values of channel c in [slice·len, (slice+1)·len) of the
// channel's batch·S values: a += f(x), b += g(x) as the mode says. Values of channel c of sample
// n are x[(n·C + c)·S + i].
// mode 0 (statistics): a = Σ(x − shift), b = Σ(x − shift)², shift = x[c·S] (sample 0's first).
// mode 1 (gradients):  a = Σ dy, b = Σ dy·(x − mean[c]).
__global__ void channelPartials(int mode, const float* x, const float* dy, const float* mean, int64_t batch,
                                int64_t C, int64_t S, double* partials) {
  const int64_t c = blockIdx.y;
  const int64_t count = batch * S;
  const int64_t len = (count + kSlices - 1) / kSlices;
  const int64_t begin = blockIdx.x * len, end = min(count, begin + len);
  const float shift = mode == 0 ? x[c * S] : mean[c];
  double a = 0.0, b = 0.0;
  for (int64_t j = begin + threadIdx.x; j < end; j += blockDim.x) {
    const int64_t n = j / S, i = j % S;
    const int64_t at = (n * C + c) * S + i;
    const float d = x[at] - shift;
    if (mode == 0) {
      a += d;
      b += static_cast<double>(d) * d;
    } else {
      a += dy[at];
      b += static_cast<double>(dy[at]) * d;
    }
  }
  a = blockSum(a);
  b = blockSum(b);
  if (threadIdx.x == 0) {
    partials[(c * kSlices + blockIdx.x) * 2] = a;
    partials[(c * kSlices + blockIdx.x) * 2 + 1] = b;
  }
}

// Pass 2 of the statistics: mean, 1/std, running statistics. One thread per channel.
__global__ void finishStatistics(const double* partials, const float* x, int64_t C, int64_t S, int64_t count,
                                 float eps, float decay, double unbias, float* mean, float* invStd, float* runningMean,
                                 float* runningVar) {
  const int64_t c = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (c >= C) return;
  double sum = 0.0, sumSquares = 0.0;
  for (int s = 0; s < kSlices; ++s) {
    sum += partials[(c * kSlices + s) * 2];
    sumSquares += partials[(c * kSlices + s) * 2 + 1];
  }
  const float shift = x[c * S];
  const double meanShifted = sum / static_cast<double>(count);
  const double var = fmax(sumSquares / static_cast<double>(count) - meanShifted * meanShifted, 0.0);
  mean[c] = static_cast<float>(shift + meanShifted);
  invStd[c] = static_cast<float>(1.0 / sqrt(var + eps));
  runningMean[c] = decay * runningMean[c] + (1.0f - decay) * mean[c];
  runningVar[c] = decay * runningVar[c] + (1.0f - decay) * static_cast<float>(var * unbias);
}

__global__ void runningStatistics(const float* runningMean, const float* runningVar, int64_t C, float eps, float* mean,
                                  float* invStd) {
  const int64_t c = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (c >= C) return;
  mean[c] = runningMean[c];
  invStd[c] = 1.0f / sqrtf(runningVar[c] + eps);
}

__global__ void normalize(const float* x, float* y, const float* mean, const float* invStd, const float* gamma,
                          const float* beta, int64_t C, int64_t S, int64_t n) {
  NS_GRID_STRIDE(i, n) {
    const int64_t c = (i / S) % C;
    y[i] = (x[i] - mean[c]) * (gamma[c] * invStd[c]) + beta[c];
  }
}

// Pass 2 of the gradients: dbeta, dgamma and the dx coefficients k1, k2, k3 per channel.
__global__ void finishGradients(const double* partials, const float* gamma, const float* invStd, int64_t C,
                                int64_t count, bool batchStats, float* dbeta, float* dgamma, float* k) {
  const int64_t c = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (c >= C) return;
  double sumDy = 0.0, sumDyCentered = 0.0;
  for (int s = 0; s < kSlices; ++s) {
    sumDy += partials[(c * kSlices + s) * 2];
    sumDyCentered += partials[(c * kSlices + s) * 2 + 1];
  }
  if (dbeta) dbeta[c] = static_cast<float>(sumDy);
  if (dgamma) dgamma[c] = static_cast<float>(sumDyCentered * invStd[c]);
  const float k1 = gamma[c] * invStd[c];
  float k2 = 0.0f, k3 = 0.0f;
  if (batchStats) {
    const double is = invStd[c];
    k2 = static_cast<float>(-static_cast<double>(gamma[c]) * is * is * is * sumDyCentered / static_cast<double>(count));
    k3 = static_cast<float>(-static_cast<double>(k1) * sumDy / static_cast<double>(count));
  }
  k[c * 3] = k1;
  k[c * 3 + 1] = k2;
  k[c * 3 + 2] = k3;
}

__global__ void inputGradient(const float* x, const float* dy, const float* mean, const float* k, float* dx, int64_t C,
                              int64_t S, int64_t n) {
  NS_GRID_STRIDE(i, n) {
    const int64_t c = (i / S) % C;
    dx[i] = k[c * 3] * dy[i] + k[c * 3 + 1] * (x[i] - mean[c]) + k[c * 3 + 2];
  }
}

class BatchNormalizationKernel final : public Kernel {
 public:
  BatchNormalizationKernel(int64_t channels, int64_t spatial, float eps, float decay, bool batchStat, TensorAllocator* memory)
      : m_channels(channels),
        m_spatial(spatial),
        m_eps(eps),
        m_decay(decay),
        m_batchStat(batchStat),
        m_stats(Shape{5 * channels}, memory),
        m_partials(Shape{4 * channels * kSlices}, memory) {}  // doubles: 2 per (channel, slice)

  // params: beta, gamma, mean (running), var (running), each (C).
  void forward(KernelCall& call) override {
    auto& c = ctx(call);
    const Tensor& x = *call.inputs[0];
    const int64_t batch = x.dim(0), C = m_channels, S = m_spatial, count = batch * S;
    m_usedBatchStats = call.training && m_batchStat;
    const unsigned channelBlocks = static_cast<unsigned>((C + 127) / 128);
    if (m_usedBatchStats) {
      const double unbias = count > 1 ? static_cast<double>(count) / static_cast<double>(count - 1) : 1.0;
      channelPartials<<<dim3(kSlices, static_cast<unsigned>(C)), kThreads, 0, c.stream()>>>(0, x.data(), nullptr, nullptr,
                                                                                          batch, C, S, partials());
      finishStatistics<<<channelBlocks, 128, 0, c.stream()>>>(partials(), x.data(), C, S, count, m_eps, m_decay, unbias,
                                                              mean(), invStd(), call.params[2]->data(),
                                                              call.params[3]->data());
    } else {
      runningStatistics<<<channelBlocks, 128, 0, c.stream()>>>(call.params[2]->data(), call.params[3]->data(), C, m_eps,
                                                               mean(), invStd());
    }
    normalize<<<blocksFor(x.size()), kThreads, 0, c.stream()>>>(x.data(), call.output.data(), mean(), invStd(),
                                                                call.params[1]->data(), call.params[0]->data(), C, S,
                                                                x.size());
    NS_CUDA_CHECK_LAUNCH();
  }

  void backward(KernelCall& call) override {
    Tensor* dx = call.inputGrads[0];
    Tensor* dbeta = call.paramGrads.size() > 0 ? call.paramGrads[0] : nullptr;
    Tensor* dgamma = call.paramGrads.size() > 1 ? call.paramGrads[1] : nullptr;
    if (!dx && !dbeta && !dgamma) return;
    auto& c = ctx(call);
    const Tensor& x = *call.inputs[0];
    const int64_t batch = x.dim(0), C = m_channels, S = m_spatial;
    const unsigned channelBlocks = static_cast<unsigned>((C + 127) / 128);
    channelPartials<<<dim3(kSlices, static_cast<unsigned>(C)), kThreads, 0, c.stream()>>>(
        1, x.data(), call.outputGrad->data(), mean(), batch, C, S, partials());
    finishGradients<<<channelBlocks, 128, 0, c.stream()>>>(partials(), call.params[1]->data(), invStd(), C, batch * S,
                                                           m_usedBatchStats, dbeta ? dbeta->data() : nullptr,
                                                           dgamma ? dgamma->data() : nullptr, coefficients());
    if (dx)
      inputGradient<<<blocksFor(x.size()), kThreads, 0, c.stream()>>>(x.data(), call.outputGrad->data(), mean(),
                                                                      coefficients(), dx->data(), C, S, x.size());
    NS_CUDA_CHECK_LAUNCH();
  }

 private:
  float* mean() { return m_stats.data(); }
  float* invStd() { return m_stats.data() + m_channels; }
  float* coefficients() { return m_stats.data() + 2 * m_channels; }
  double* partials() { return reinterpret_cast<double*>(m_partials.data()); }

  int64_t m_channels, m_spatial;
  float m_eps, m_decay;
  bool m_batchStat;
  bool m_usedBatchStats = false;
  Tensor m_stats;     // mean (C), invStd (C), k1..k3 per channel (3C)
  Tensor m_partials;  // (C, kSlices, 2) doubles
};

}  // namespace

void register_batch_normalization(OpRegistry& registry) {
  addCudaKernel(registry, "BatchNormalization", [](const KernelSetup& setup) -> std::unique_ptr<Kernel> {
    const Shape& x = setup.inputShapes.at(0);
    int64_t spatial = 1;
    for (size_t i = 1; i < x.size(); ++i) spatial *= x[i];
    return std::make_unique<BatchNormalizationKernel>(
        x.at(0), spatial, static_cast<float>(setup.params.number("eps")),
        static_cast<float>(setup.params.number("decay_rate")), setup.params.flag("batch_stat"),
        setup.device.deviceAllocator());
  });
}

}  // namespace netsmith::cuda
