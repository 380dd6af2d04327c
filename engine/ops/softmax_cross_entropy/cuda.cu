// SoftmaxCrossEntropy on the GPU: one block per sample, log-sum-exp with the maximum taken out and
// the sum in double, as softmax_cross_entropy/cpu.cpp. The labels are on the device, so a label
// that is not a class index cannot be reported with its row before the kernel: its loss is NaN,
// and the trainer stops with "the training loss became nan" (the CPU kernel names the row). The
// per-element and per-row steps are in cuda_math.h.
#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_op.h"
#include "engine/ops/class_index_target.h"
#include "engine/ops/softmax_cross_entropy/cuda_math.h"

namespace netsmith::cuda {
namespace {

__device__ double rowLogSumExp(const float* row, int64_t classes) {
  float m = -INFINITY;
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) m = fmaxf(m, row[c]);
  m = blockMax(m);
  __shared__ float shared;
  if (threadIdx.x == 0) shared = m;
  __syncthreads();
  m = shared;
  double sum = 0.0;
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) sum += sce::expTerm(row[c], m);
  sum = blockSum(sum);
  __shared__ double lse;
  if (threadIdx.x == 0) lse = sce::logSumExp(m, sum);
  __syncthreads();
  return lse;
}

__global__ void sceForward(const float* x, const float* t, float* y, int64_t classes) {
  const float* row = x + blockIdx.x * classes;
  const double lse = rowLogSumExp(row, classes);
  if (threadIdx.x == 0) y[blockIdx.x] = sce::sampleLoss(row, lse, t[blockIdx.x], classes);
}

__global__ void sceBackward(const float* x, const float* t, const float* w, float* dx, int64_t classes) {
  const float* row = x + blockIdx.x * classes;
  const double lse = rowLogSumExp(row, classes);
  const int64_t target = sce::targetClass(t[blockIdx.x], classes);
  const double weight = w[blockIdx.x];
  float* g = dx + blockIdx.x * classes;
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) g[c] = sce::gradient(row[c], lse, c, target, weight);
}

class SoftmaxCrossEntropyKernel final : public Kernel {
 public:
  void forward(KernelCall& call) override {
    const Tensor& x = *call.inputs[0];
    check(call);
    if (x.dim(0) == 0) return;
    const LaunchShape shape = perBlock("softmaxCrossEntropyForward", x.dim(0), 128);
    sceForward<<<gridOf(shape), shape.block, 0, ctx(call).stream()>>>(x.data(), call.target->data(), call.output.data(),
                                                                      x.dim(1));
    NS_CUDA_CHECK_LAUNCH();
  }
  void backward(KernelCall& call) override {
    Tensor* dx = call.inputGrads[0];
    if (!dx) return;
    const Tensor& x = *call.inputs[0];
    check(call);
    if (x.dim(0) == 0) return;
    const LaunchShape shape = perBlock("softmaxCrossEntropyBackward", x.dim(0), 128);
    sceBackward<<<gridOf(shape), shape.block, 0, ctx(call).stream()>>>(x.data(), call.target->data(),
                                                                       call.outputGrad->data(), dx->data(), x.dim(1));
    NS_CUDA_CHECK_LAUNCH();
  }

 private:
  static void check(const KernelCall& call) { checkClassIndexTarget(call, "SoftmaxCrossEntropy", call.inputs[0]->dim(0)); }
};

}  // namespace

void register_softmax_cross_entropy(OpRegistry& registry) {
  addCudaKernel(registry, "SoftmaxCrossEntropy",
                [](const KernelSetup&) { return std::make_unique<SoftmaxCrossEntropyKernel>(); });
}

}  // namespace netsmith::cuda
