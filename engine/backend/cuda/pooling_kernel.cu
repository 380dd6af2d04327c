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

  void forward(KernelCall& call) override {
    auto& c = ctx(call);
    const int64_t planes = call.inputs[0]->dim(0) * m_channels;
    const int64_t n = call.output.size();
    if (m_max) {
      int* argmax = nullptr;
      if (call.training) argmax = argmaxBuffer(c, n);
      launchGridStride("maxPoolingForward", c.stream(), n, pool::MaxForward{m_h, m_w}, call.inputs[0]->data(),
                       call.output.data(), argmax);
      m_argmaxPlanes = call.training ? planes : -1;
    } else {
      launchGridStride("averagePoolingForward", c.stream(), n, pool::AverageForward{m_h, m_w, m_includingPad},
                       call.inputs[0]->data(), call.output.data());
    }
  }

  void backward(KernelCall& call) override {
    Tensor* dx = call.inputGrads[0];
    if (!dx) return;
    auto& c = ctx(call);
    const int64_t planes = call.inputs[0]->dim(0) * m_channels;
    const int64_t n = dx->size();
    if (m_max) {
      if (m_argmaxPlanes != planes) {  // backward after an inference forward: find the maxima again
        const int64_t outs = call.output.size();
        launchGridStride("maxPoolingArgmax", c.stream(), outs, pool::MaxForward{m_h, m_w}, call.inputs[0]->data(),
                         static_cast<float*>(nullptr), argmaxBuffer(c, outs));
        m_argmaxPlanes = planes;
      }
      launchGridStride("maxPoolingBackward", c.stream(), n, pool::MaxBackward{m_h, m_w}, call.outputGrad->data(),
                       argmaxInts(), dx->data());
    } else {
      launchGridStride("averagePoolingBackward", c.stream(), n, pool::AverageBackward{m_h, m_w, m_includingPad},
                       call.outputGrad->data(), dx->data());
    }
  }

 private:
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
