// BatchNormalization on the GPU, written directly with the CPU kernel's maths
// (batch_normalization/cpu.cpp): per-channel sums of (x − first value) and their squares in
// double, the unbiased running variance, the same dx formula. Not cuDNN's batch normalization:
// that requires eps ≥ 1e-5 (the schema allows any eps > 0) and has no batch_stat false training
// mode (normalize by the running statistics while training), and it is memory-bound either way.
//
// Sums are deterministic: pass 1 gives each (channel, slice of the N·S values) block a partial
// sum, pass 2 adds a channel's partials in slice order; no atomics. The channel is on grid x, so
// any channel count up to 2^31 − 1 launches (Note [Launch shapes]); on grid y it overflowed at
// 65,536 channels. Every step's arithmetic is in cuda_math.h. x, y and their gradients may be 16-bit
// (Note [16-bit activations]): every kernel is templated on their format F and widens each value
// to float32; statistics, parameters and their gradients stay float32.
#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_op.h"
#include "engine/ops/batch_normalization/cuda_math.h"

namespace netsmith::cuda {
namespace {

using bn::kSlices;

// Pass 1: block (c, slice) sums the terms of channel c's values in sliceOf(batch·S, slice).
// mode 0 (statistics): bn::addStatisticsTerm, shift = x[c·S] (sample 0's first value).
// mode 1 (gradients):  bn::addGradientTerm with mean[c].
template <typename F>
__global__ void channelPartials(int mode, const typename F::Bits* x, const typename F::Bits* dy, const float* mean,
                                int64_t batch, int64_t C, int64_t S, bool last, double* partials) {
  const int64_t c = blockIdx.x;
  const int slice = static_cast<int>(blockIdx.y);
  const bn::Range range = bn::sliceOf(batch * S, slice);
  const float shift = mode == 0 ? F::load(x[bn::valueIndex(0, c, C, S, last)]) : mean[c];
  double a = 0.0, b = 0.0;
  for (int64_t j = range.begin + threadIdx.x; j < range.end; j += blockDim.x) {
    const int64_t at = bn::valueIndex(j, c, C, S, last);
    if (mode == 0)
      bn::addStatisticsTerm(F::load(x[at]), shift, a, b);
    else
      bn::addGradientTerm(F::load(x[at]), F::load(dy[at]), shift, a, b);
  }
  a = blockSum(a);
  b = blockSum(b);
  if (threadIdx.x == 0) {
    partials[(c * kSlices + slice) * 2] = a;
    partials[(c * kSlices + slice) * 2 + 1] = b;
  }
}

// Pass 2 of the statistics: mean, 1/std, running statistics. One thread per channel.
template <typename F>
__global__ void finishStatistics(const double* partials, const typename F::Bits* x, int64_t C, int64_t S, bool last,
                                 int64_t count,
                                 float eps, float decay, double unbias, float* mean, float* invStd, float* runningMean,
                                 float* runningVar) {
  const int64_t c = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (c >= C) return;
  double sum, sumSquares;
  bn::sumPartials(partials, c, sum, sumSquares);
  bn::finishStatistics(sum, sumSquares, F::load(x[bn::valueIndex(0, c, C, S, last)]), count, eps, decay, unbias, mean[c], invStd[c], runningMean[c],
                       runningVar[c]);
}

__global__ void runningStatistics(const float* runningMean, const float* runningVar, int64_t C, float eps, float* mean,
                                  float* invStd) {
  const int64_t c = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (c >= C) return;
  bn::runningStatistics(runningMean[c], runningVar[c], eps, mean[c], invStd[c]);
}

// Pass 2 of the gradients: dbeta, dgamma and the dx coefficients k1, k2, k3 per channel.
__global__ void finishGradients(const double* partials, const float* gamma, const float* invStd, int64_t C,
                                int64_t count, bool batchStats, float* dbeta, float* dgamma, float* k) {
  const int64_t c = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (c >= C) return;
  double sumDy, sumDyCentered;
  bn::sumPartials(partials, c, sumDy, sumDyCentered);
  bn::finishGradients(sumDy, sumDyCentered, gamma[c], invStd[c], count, batchStats, dbeta ? dbeta + c : nullptr,
                      dgamma ? dgamma + c : nullptr, k + c * 3);
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
    m_last = call.output.layout() == Layout::ChannelsLast;
    withFormat(call.output.storage(), [&](auto format) { forwardIn<decltype(format)>(call); });
  }

  // Note [GPU fused epilogues]: backward reads x and dy, never y, so a ReLU written into y costs
  // backward nothing.
  bool fuseRelu() override {
    m_relu = true;
    return true;
  }

  void backward(KernelCall& call) override {
    m_last = call.inputs[0]->layout() == Layout::ChannelsLast;
    withFormat(call.inputs[0]->storage(), [&](auto format) { backwardIn<decltype(format)>(call); });
  }

 private:
  template <typename F>
  static const typename F::Bits* in(const Tensor& t) { return static_cast<const typename F::Bits*>(t.raw()); }

  template <typename F>
  void forwardIn(KernelCall& call) {
    auto& c = ctx(call);
    const Tensor& x = *call.inputs[0];
    const int64_t batch = x.dim(0), C = m_channels, S = m_spatial, count = batch * S;
    m_usedBatchStats = call.training && m_batchStat;
    if (m_usedBatchStats) {
      const double unbias = count > 1 ? static_cast<double>(count) / static_cast<double>(count - 1) : 1.0;
      const LaunchShape partialsShape = perChannelSlice("batchNormalizationStatistics", C, kSlices, kThreads);
      channelPartials<F><<<gridOf(partialsShape), partialsShape.block, 0, c.stream()>>>(0, in<F>(x), nullptr, nullptr,
                                                                                        batch, C, S, m_last, partials());
      const LaunchShape finishShape = perThread("batchNormalizationFinishStatistics", C, 128);
      finishStatistics<F><<<gridOf(finishShape), finishShape.block, 0, c.stream()>>>(
          partials(), in<F>(x), C, S, m_last, count, m_eps, m_decay, unbias, mean(), invStd(), call.params[2]->data(),
          call.params[3]->data());
    } else {
      const LaunchShape runningShape = perThread("batchNormalizationRunningStatistics", C, 128);
      runningStatistics<<<gridOf(runningShape), runningShape.block, 0, c.stream()>>>(
          call.params[2]->data(), call.params[3]->data(), C, m_eps, mean(), invStd());
    }
    NS_CUDA_CHECK_LAUNCH();
    launchGridStride("batchNormalizationNormalize", c.stream(), x.size(), bn::NormalizeOf<F>{C, S, m_relu, m_last}, in<F>(x),
                     static_cast<typename F::Bits*>(call.output.raw()), mean(), invStd(), call.params[1]->data(),
                     call.params[0]->data());
  }

  template <typename F>
  void backwardIn(KernelCall& call) {
    Tensor* dx = call.inputGrads[0];
    Tensor* dbeta = call.paramGrads.size() > 0 ? call.paramGrads[0] : nullptr;
    Tensor* dgamma = call.paramGrads.size() > 1 ? call.paramGrads[1] : nullptr;
    if (!dx && !dbeta && !dgamma) return;
    auto& c = ctx(call);
    const Tensor& x = *call.inputs[0];
    const int64_t batch = x.dim(0), C = m_channels, S = m_spatial;
    const LaunchShape partialsShape = perChannelSlice("batchNormalizationGradientSums", C, kSlices, kThreads);
    channelPartials<F><<<gridOf(partialsShape), partialsShape.block, 0, c.stream()>>>(
        1, in<F>(x), in<F>(*call.outputGrad), mean(), batch, C, S, m_last, partials());
    const LaunchShape finishShape = perThread("batchNormalizationFinishGradients", C, 128);
    finishGradients<<<gridOf(finishShape), finishShape.block, 0, c.stream()>>>(
        partials(), call.params[1]->data(), invStd(), C, batch * S, m_usedBatchStats, dbeta ? dbeta->data() : nullptr,
        dgamma ? dgamma->data() : nullptr, coefficients());
    NS_CUDA_CHECK_LAUNCH();
    if (dx)
      launchGridStride("batchNormalizationInputGradient", c.stream(), x.size(), bn::InputGradientOf<F>{C, S, m_last}, in<F>(x),
                       in<F>(*call.outputGrad), mean(), coefficients(), static_cast<typename F::Bits*>(dx->raw()));
  }

  float* mean() { return m_stats.data(); }
  float* invStd() { return m_stats.data() + m_channels; }
  float* coefficients() { return m_stats.data() + 2 * m_channels; }
  double* partials() { return reinterpret_cast<double*>(m_partials.data()); }

  int64_t m_channels, m_spatial;
  float m_eps, m_decay;
  bool m_batchStat;
  bool m_usedBatchStats = false;
  bool m_relu = false;  // Note [GPU fused epilogues]
  bool m_last = false;  // the activations channels last (Note [Channels last])
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
  }, Activations::Also16Bit, Layouts::AlsoChannelsLast);
}

}  // namespace netsmith::cuda
