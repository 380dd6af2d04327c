#include "engine/backend/cuda/activation_kernel.h"

#include "engine/backend/cuda/cuda_launch.h"
#include "engine/backend/cuda/cuda_op.h"

namespace netsmith::cuda {
namespace {

// The tensor is seen as (1, 1, 1, n): cuDNN's activations are element-wise, so the shape does not
// matter. Backward uses the forward's input and output, which the network keeps until then —
// except ReLU's, which reads only its output (y > 0 exactly where x > 0): a layer that writes its
// ReLU's output itself never writes the ReLU's input (Note [GPU fused epilogues]). On 16-bit
// activations (Note [16-bit activations]: ReLU and ReLU6, element-wise in any layout) the clamp
// bodies of elementwise_bodies.h run instead of cuDNN.
class CudnnActivationKernel final : public Kernel {
 public:
  CudnnActivationKernel(cudnnActivationMode_t mode, double coef)
      : m_readsOutputOnly(mode == CUDNN_ACTIVATION_RELU),
        m_clampCeiling(mode == CUDNN_ACTIVATION_RELU           ? 0.0f
                       : mode == CUDNN_ACTIVATION_CLIPPED_RELU ? static_cast<float>(coef)
                                                               : -1.0f) {
    NS_CUDNN_CHECK(cudnnCreateActivationDescriptor(&m_act));
    NS_CUDNN_CHECK(cudnnSetActivationDescriptor(m_act, mode, CUDNN_NOT_PROPAGATE_NAN, coef));
    if (mode == CUDNN_ACTIVATION_SWISH) NS_CUDNN_CHECK(cudnnSetActivationDescriptorSwishBeta(m_act, coef));
  }
  ~CudnnActivationKernel() override { cudnnDestroyActivationDescriptor(m_act); }

  void forward(KernelCall& call) override {
    auto& c = ctx(call);
    if (call.output.storage() != Storage::Float32) {  // Note [16-bit activations]: ReLU and ReLU6 only
      NS_CHECK(m_clampCeiling >= 0.0f, "a 16-bit activation reached a cuDNN activation that takes float32 only");
      launchClampForward(call.inputs[0]->raw(), call.output.raw(), call.output.storage(), call.output.size(),
                         m_clampCeiling, c.stream());
      return;
    }
    prepare(call.inputs[0]->size());
    const float one = 1.0f, zero = 0.0f;
    NS_CUDNN_CHECK(cudnnActivationForward(c.cudnn(), m_act, &one, m_desc.get(), call.inputs[0]->raw(), &zero,
                                          m_desc.get(), call.output.raw()));
  }

  void backward(KernelCall& call) override {
    if (!call.inputGrads[0]) return;
    auto& c = ctx(call);
    const void* x = m_readsOutputOnly ? call.output.raw() : call.inputs[0]->raw();
    if (call.output.storage() != Storage::Float32) {
      launchClampBackward(x, call.outputGrad->raw(), call.inputGrads[0]->raw(), call.output.storage(), call.output.size(),
                          m_clampCeiling, c.stream());
      return;
    }
    prepare(call.output.size());
    const float one = 1.0f, zero = 0.0f;
    NS_CUDNN_CHECK(cudnnActivationBackward(c.cudnn(), m_act, &one, m_desc.get(), call.output.raw(), m_desc.get(),
                                           call.outputGrad->raw(), m_desc.get(), x, &zero, m_desc.get(),
                                           call.inputGrads[0]->raw()));
  }

 private:
  void prepare(int64_t n) {
    if (n == m_size) return;
    NS_CHECK(n < (int64_t{1} << 31), "an activation over {} values exceeds cuDNN's 2^31 limit: lower the batch size", n);
    m_desc.set(1, 1, 1, n);
    m_size = n;
  }
  const bool m_readsOutputOnly;  // ReLU: its input may never be written (a fused producer)
  // 16-bit activations: ReLU (0) and ReLU6 (6) run body::ClampForward/ClampBackward instead of
  // cuDNN, whose activations take float32 here; -1: not a clamp (float32 only).
  const float m_clampCeiling;
  cudnnActivationDescriptor_t m_act = nullptr;
  TensorDesc m_desc;
  int64_t m_size = -1;
};

}  // namespace

std::unique_ptr<Kernel> makeCudnnActivationKernel(cudnnActivationMode_t mode, double coef) {
  return std::make_unique<CudnnActivationKernel>(mode, coef);
}

}  // namespace netsmith::cuda
