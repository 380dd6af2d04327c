#include "engine/backend/cuda/activation_kernel.h"

#include "engine/backend/cuda/cuda_op.h"

namespace netsmith::cuda {
namespace {

// The tensor is seen as (1, 1, 1, n): cuDNN's activations are element-wise, so the shape does not
// matter. Backward uses the forward's input and output, which the network keeps until then —
// except ReLU's, which reads only its output (y > 0 exactly where x > 0): a layer that writes its
// ReLU's output itself never writes the ReLU's input (Note [GPU fused epilogues]).
class CudnnActivationKernel final : public Kernel {
 public:
  CudnnActivationKernel(cudnnActivationMode_t mode, double coef) : m_readsOutputOnly(mode == CUDNN_ACTIVATION_RELU) {
    NS_CUDNN_CHECK(cudnnCreateActivationDescriptor(&m_act));
    NS_CUDNN_CHECK(cudnnSetActivationDescriptor(m_act, mode, CUDNN_NOT_PROPAGATE_NAN, coef));
    if (mode == CUDNN_ACTIVATION_SWISH) NS_CUDNN_CHECK(cudnnSetActivationDescriptorSwishBeta(m_act, coef));
  }
  ~CudnnActivationKernel() override { cudnnDestroyActivationDescriptor(m_act); }

  void forward(KernelCall& call) override {
    auto& c = ctx(call);
    prepare(call.inputs[0]->size(), call.output.storage());
    const float one = 1.0f, zero = 0.0f;
    NS_CUDNN_CHECK(cudnnActivationForward(c.cudnn(), m_act, &one, m_desc.get(), call.inputs[0]->raw(), &zero,
                                          m_desc.get(), call.output.raw()));
  }

  void backward(KernelCall& call) override {
    if (!call.inputGrads[0]) return;
    auto& c = ctx(call);
    prepare(call.output.size(), call.output.storage());
    const float one = 1.0f, zero = 0.0f;
    const void* x = m_readsOutputOnly ? call.output.raw() : call.inputs[0]->raw();
    NS_CUDNN_CHECK(cudnnActivationBackward(c.cudnn(), m_act, &one, m_desc.get(), call.output.raw(), m_desc.get(),
                                           call.outputGrad->raw(), m_desc.get(), x, &zero, m_desc.get(),
                                           call.inputGrads[0]->raw()));
  }

 private:
  // Every tensor in one storage: float32, or the device's 16-bit one (Note [16-bit activations]),
  // which cuDNN's activations take with float32 arithmetic inside.
  void prepare(int64_t n, Storage storage) {
    if (n == m_size && storage == m_storage) return;
    NS_CHECK(n < (int64_t{1} << 31), "an activation over {} values exceeds cuDNN's 2^31 limit: lower the batch size", n);
    m_desc.set(1, 1, 1, n, TensorFormat{storage, Layout::ChannelsFirst});  // element-wise: any layout
    m_size = n;
    m_storage = storage;
  }
  const bool m_readsOutputOnly;  // ReLU: its input may never be written (a fused producer)
  cudnnActivationDescriptor_t m_act = nullptr;
  TensorDesc m_desc;
  int64_t m_size = -1;
  Storage m_storage = Storage::Float32;
};

}  // namespace

std::unique_ptr<Kernel> makeCudnnActivationKernel(cudnnActivationMode_t mode, double coef) {
  return std::make_unique<CudnnActivationKernel>(mode, coef);
}

}  // namespace netsmith::cuda
