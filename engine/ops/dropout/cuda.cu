// Dropout on the GPU: the same mask as dropout/cpu.cpp, element for element — the value drawn for
// (sample, element) comes from RandomKey's counter-based stream (the bodies in cuda_math.h repeat
// its arithmetic), so a sample is masked alike on any device and at any batch position. The
// batch's global sample ids are copied to the device with the call.
#include <vector>

#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_op.h"
#include "engine/ops/dropout/cuda_math.h"

namespace netsmith::cuda {
namespace {

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
    const body::DropoutForward draw{dropoutSeed(k.seed, k.node, k.pass), m_p, m_scale};
    launchGridStride("dropoutForward", c.stream(), x.size(), draw, x.data(), call.output.data(), m_mask.data(),
                     perSample, ids);
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
    launchGridStride("dropoutBackward", c.stream(), dy.size(), body::Multiply{}, dy.data(), m_mask.data(), dx->data());
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
