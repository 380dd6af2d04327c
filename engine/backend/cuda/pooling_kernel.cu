// The pooling kernels (pooling_kernel.h): one grid-stride kernel per body of pooling_math.h.
#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_op.h"
#include "engine/backend/cuda/pooling_kernel.h"
#include "engine/backend/cuda/pooling_math.h"

namespace netsmith::cuda {
namespace {

pool::Axis axisOf(const ops::PoolingAxis& a) {
  return {static_cast<int>(a.in), static_cast<int>(a.out), static_cast<int>(a.kernel), static_cast<int>(a.stride),
          static_cast<int>(a.pad)};
}

class CudaPoolingKernel final : public Kernel {
 public:
  CudaPoolingKernel(const ops::PoolingGeometry& g, bool max, bool includingPad)
      : m_max(max), m_includingPad(includingPad), m_channels(g.channels), m_h(axisOf(g.height)), m_w(axisOf(g.width)) {}

  // Every activation in the storage of the input (Note [16-bit activations]).
  void forward(KernelCall& call) override {
    withFormat(call.inputs[0]->storage(), [&](auto format) { forwardIn<decltype(format)>(call); });
  }
  void backward(KernelCall& call) override {
    withFormat(call.inputs[0]->storage(), [&](auto format) { backwardIn<decltype(format)>(call); });
  }

 private:
  // Note [Channels last]: the activations' layout.
  pool::Planes planesOf(const KernelCall& call) const {
    return {m_channels, call.inputs[0]->layout() == Layout::ChannelsLast};
  }

  template <typename F>
  static const typename F::Bits* in(const Tensor& t) { return static_cast<const typename F::Bits*>(t.raw()); }
  template <typename F>
  static typename F::Bits* out(Tensor& t) { return static_cast<typename F::Bits*>(t.raw()); }

  template <typename F>
  void forwardIn(KernelCall& call) {
    auto& c = ctx(call);
    const int64_t planes = call.inputs[0]->dim(0) * m_channels;
    const int64_t n = call.output.size();
    if (m_max) {
      int* argmax = nullptr;
      if (call.training) argmax = argmaxBuffer(c, n);
      launchGridStride("maxPoolingForward", c.stream(), n, pool::MaxForwardOf<F>{m_h, m_w, planesOf(call)},
                       in<F>(*call.inputs[0]), out<F>(call.output), argmax);
      m_argmaxPlanes = call.training ? planes : -1;
    } else {
      launchGridStride("averagePoolingForward", c.stream(), n, pool::AverageForwardOf<F>{m_h, m_w, m_includingPad, planesOf(call)},
                       in<F>(*call.inputs[0]), out<F>(call.output));
    }
  }

  template <typename F>
  void backwardIn(KernelCall& call) {
    Tensor* dx = call.inputGrads[0];
    if (!dx) return;
    auto& c = ctx(call);
    const int64_t planes = call.inputs[0]->dim(0) * m_channels;
    const int64_t n = dx->size();
    if (m_max) {
      if (m_argmaxPlanes != planes) {  // backward after an inference forward: find the maxima again
        const int64_t outs = call.output.size();
        launchGridStride("maxPoolingArgmax", c.stream(), outs, pool::MaxForwardOf<F>{m_h, m_w, planesOf(call)},
                         in<F>(*call.inputs[0]), static_cast<typename F::Bits*>(nullptr), argmaxBuffer(c, outs));
        m_argmaxPlanes = planes;
      }
      launchGridStride("maxPoolingBackward", c.stream(), n, pool::MaxBackwardOf<F>{m_h, m_w, planesOf(call)}, in<F>(*call.outputGrad),
                       argmaxInts(), out<F>(*dx));
    } else {
      launchGridStride("averagePoolingBackward", c.stream(), n, pool::AverageBackwardOf<F>{m_h, m_w, m_includingPad, planesOf(call)},
                       in<F>(*call.outputGrad), out<F>(*dx));
    }
  }

  // int32 indices kept in a float tensor's memory (same size) from the device pool.
  int* argmaxBuffer(CudaDeviceContext& c, int64_t n) {
    if (!m_argmax.allocator()) m_argmax = Tensor(c.deviceAllocator());
    if (m_argmax.size() != n) m_argmax.resize({n});
    return argmaxInts();
  }
  int* argmaxInts() { return reinterpret_cast<int*>(m_argmax.data()); }

  bool m_max;
  bool m_includingPad;
  int64_t m_channels;
  pool::Axis m_h, m_w;
  Tensor m_argmax;
  int64_t m_argmaxPlanes = -1;
};

}  // namespace

std::unique_ptr<Kernel> makeCudaPoolingKernel(const ops::PoolingGeometry& geometry, bool max, bool includingPad) {
  return std::make_unique<CudaPoolingKernel>(geometry, max, includingPad);
}

}  // namespace netsmith::cuda
