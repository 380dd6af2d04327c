// Dropout on the GPU: the same mask as dropout/cpu.cpp, element for element — the value drawn for
// (sample, element) comes from RandomKey's counter-based stream (cuda_kernels.cuh repeats its
// arithmetic), so a sample is masked alike on any device and at any batch position. The batch's
// global sample ids are copied to the device with the call.
#include <vector>

#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_op.h"

namespace netsmith::cuda {
namespace {

__global__ void dropoutForward(const float* x, float* y, float* mask, int64_t batch, int64_t perSample, uint64_t seed,
                               const int64_t* sampleIds, float p, float scale) {
  NS_GRID_STRIDE(i, batch * perSample) {
    const int64_t row = i / perSample, element = i % perSample;
    const uint64_t sample = sampleIds ? static_cast<uint64_t>(sampleIds[row]) : static_cast<uint64_t>(row);
    const float m = counterUniformDevice(seed, sample, static_cast<uint64_t>(element)) < p ? 0.0f : scale;
    mask[i] = m;
    y[i] = x[i] * m;
  }
}

__global__ void multiply(const float* a, const float* b, float* out, int64_t n) {
  NS_GRID_STRIDE(i, n) out[i] = a[i] * b[i];
}

class DropoutKernel final : public Kernel {
 public:
  explicit DropoutKernel(float p) : m_p(p), m_scale(1.0f / (1.0f - p)) {}

  void forward(KernelCall& call) override {
    auto& c = ctx(call);
    const Tensor& x = *call.inputs[0];
    const int64_t batch = x.dim(0);
    const int64_t perSample = batch ? x.size() / batch : 0;
    m_masked = call.training && m_p > 0.0f;
    if (!m_masked) {
      c.copy(call.output.data(), x.data(), x.size());
      return;
    }
    if (!m_mask.allocator()) {
      m_mask = Tensor(c.deviceAllocator());
      m_ids = Tensor(c.deviceAllocator());
    }
    m_mask.resize(x.shape());
    const int64_t* ids = nullptr;
    if (call.random.sampleIds) {
      m_ids.resize({2 * batch});  // int64 ids in float-sized storage
      NS_CUDA_CHECK(gpuRuntime().memcpyAsync(m_ids.data(), call.random.sampleIds, static_cast<size_t>(batch) * sizeof(int64_t),
                                    cudaMemcpyHostToDevice, c.stream()));
      ids = reinterpret_cast<const int64_t*>(m_ids.data());
    }
    const RandomKey& k = call.random;
    const uint64_t seed = k.seed ^ mix64Device(k.node * 0x1000193u + k.pass);
    dropoutForward<<<blocksFor(x.size()), kThreads, 0, c.stream()>>>(x.data(), call.output.data(), m_mask.data(), batch,
                                                                      perSample, seed, ids, m_p, m_scale);
    NS_CUDA_CHECK_LAUNCH();
  }

  void backward(KernelCall& call) override {
    Tensor* dx = call.inputGrads[0];
    if (!dx) return;
    auto& c = ctx(call);
    const Tensor& dy = *call.outputGrad;
    if (!m_masked) {
      c.copy(dx->data(), dy.data(), dy.size());
      return;
    }
    multiply<<<blocksFor(dy.size()), kThreads, 0, c.stream()>>>(dy.data(), m_mask.data(), dx->data(), dy.size());
    NS_CUDA_CHECK_LAUNCH();
  }

 private:
  float m_p;
  float m_scale;
  bool m_masked = false;
  Tensor m_mask;  // the factor each element was multiplied by (0 or 1 / (1 - p))
  Tensor m_ids;   // the batch's sample ids on the device
};

}  // namespace

void register_dropout(OpRegistry& registry) {
  addCudaKernel(registry, "Dropout", [](const KernelSetup& setup) {
    return std::make_unique<DropoutKernel>(static_cast<float>(setup.params.number("p")));
  });
}

}  // namespace netsmith::cuda
