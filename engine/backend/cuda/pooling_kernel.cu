#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_op.h"
#include "engine/backend/cuda/pooling_kernel.h"

namespace netsmith::cuda {
namespace {

struct Axis {
  int in, out, kernel, stride, pad;
  __device__ int start(int o) const { return o * stride - pad; }
  __device__ int begin(int o) const { return max(start(o), 0); }
  __device__ int end(int o) const { return min(start(o) + kernel, in); }
  __device__ int paddedExtent(int o) const { return min(start(o) + kernel, in + pad) - start(o); }
  // Outputs whose window covers input i: start(o) <= i < start(o) + kernel.
  __device__ int firstCovering(int i) const {
    const int num = i + pad - kernel + 1;
    const int o = num <= 0 ? 0 : (num + stride - 1) / stride;
    return o;
  }
  __device__ int lastCovering(int i) const { return min((i + pad) / stride, out - 1); }
};

Axis axisOf(const ops::PoolingAxis& a) {
  return {static_cast<int>(a.in), static_cast<int>(a.out), static_cast<int>(a.kernel), static_cast<int>(a.stride),
          static_cast<int>(a.pad)};
}

// One thread per output element; argmax (plane-local input index) kept when given.
__global__ void maxForward(const float* x, float* y, int* argmax, int64_t planes, Axis h, Axis w) {
  const int64_t total = planes * h.out * w.out;
  NS_GRID_STRIDE(i, total) {
    const int ow = static_cast<int>(i % w.out);
    const int oh = static_cast<int>((i / w.out) % h.out);
    const int64_t plane = i / (static_cast<int64_t>(w.out) * h.out);
    const float* xp = x + plane * h.in * w.in;
    float best = -INFINITY;
    int where = h.begin(oh) * w.in + w.begin(ow);
    for (int ih = h.begin(oh); ih < h.end(oh); ++ih)
      for (int iw = w.begin(ow); iw < w.end(ow); ++iw) {
        const float v = xp[ih * w.in + iw];
        if (v > best) {  // strict: ties keep the first in row-major order
          best = v;
          where = ih * w.in + iw;
        }
      }
    if (y) y[i] = best;
    if (argmax) argmax[i] = where;
  }
}

__global__ void maxBackward(const float* dy, const int* argmax, float* dx, int64_t planes, Axis h, Axis w) {
  const int64_t total = planes * h.in * w.in;
  NS_GRID_STRIDE(i, total) {
    const int iw = static_cast<int>(i % w.in);
    const int ih = static_cast<int>((i / w.in) % h.in);
    const int64_t plane = i / (static_cast<int64_t>(w.in) * h.in);
    const int self = ih * w.in + iw;
    const int64_t outBase = plane * h.out * w.out;
    float sum = 0.0f;
    for (int oh = h.firstCovering(ih); oh <= h.lastCovering(ih); ++oh)
      for (int ow = w.firstCovering(iw); ow <= w.lastCovering(iw); ++ow) {
        const int64_t o = outBase + oh * w.out + ow;
        if (argmax[o] == self) sum += dy[o];
      }
    dx[i] = sum;
  }
}

__device__ inline float averageScale(const Axis& h, const Axis& w, int oh, int ow, bool includingPad) {
  const int count = includingPad ? h.paddedExtent(oh) * w.paddedExtent(ow)
                                 : (h.end(oh) - h.begin(oh)) * (w.end(ow) - w.begin(ow));
  return 1.0f / static_cast<float>(count);
}

__global__ void averageForward(const float* x, float* y, int64_t planes, Axis h, Axis w, bool includingPad) {
  const int64_t total = planes * h.out * w.out;
  NS_GRID_STRIDE(i, total) {
    const int ow = static_cast<int>(i % w.out);
    const int oh = static_cast<int>((i / w.out) % h.out);
    const int64_t plane = i / (static_cast<int64_t>(w.out) * h.out);
    const float* xp = x + plane * h.in * w.in;
    float sum = 0.0f;
    for (int ih = h.begin(oh); ih < h.end(oh); ++ih)
      for (int iw = w.begin(ow); iw < w.end(ow); ++iw) sum += xp[ih * w.in + iw];
    y[i] = sum * averageScale(h, w, oh, ow, includingPad);
  }
}

__global__ void averageBackward(const float* dy, float* dx, int64_t planes, Axis h, Axis w, bool includingPad) {
  const int64_t total = planes * h.in * w.in;
  NS_GRID_STRIDE(i, total) {
    const int iw = static_cast<int>(i % w.in);
    const int ih = static_cast<int>((i / w.in) % h.in);
    const int64_t plane = i / (static_cast<int64_t>(w.in) * h.in);
    const int64_t outBase = plane * h.out * w.out;
    float sum = 0.0f;
    for (int oh = h.firstCovering(ih); oh <= h.lastCovering(ih); ++oh)
      for (int ow = w.firstCovering(iw); ow <= w.lastCovering(iw); ++ow)
        sum += dy[outBase + oh * w.out + ow] * averageScale(h, w, oh, ow, includingPad);
    dx[i] = sum;
  }
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
      maxForward<<<blocksFor(n), kThreads, 0, c.stream()>>>(call.inputs[0]->data(), call.output.data(), argmax, planes,
                                                            m_h, m_w);
      m_argmaxPlanes = call.training ? planes : -1;
    } else {
      averageForward<<<blocksFor(n), kThreads, 0, c.stream()>>>(call.inputs[0]->data(), call.output.data(), planes, m_h,
                                                                m_w, m_includingPad);
    }
    NS_CUDA_CHECK_LAUNCH();
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
        maxForward<<<blocksFor(outs), kThreads, 0, c.stream()>>>(call.inputs[0]->data(), nullptr,
                                                                 argmaxBuffer(c, outs), planes, m_h, m_w);
        m_argmaxPlanes = planes;
      }
      maxBackward<<<blocksFor(n), kThreads, 0, c.stream()>>>(call.outputGrad->data(), argmaxInts(), dx->data(), planes,
                                                             m_h, m_w);
    } else {
      averageBackward<<<blocksFor(n), kThreads, 0, c.stream()>>>(call.outputGrad->data(), dx->data(), planes, m_h, m_w,
                                                                 m_includingPad);
    }
    NS_CUDA_CHECK_LAUNCH();
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
  Axis m_h, m_w;
  Tensor m_argmax;
  int64_t m_argmaxPlanes = -1;
};

}  // namespace

std::unique_ptr<Kernel> makeCudaPoolingKernel(const ops::PoolingGeometry& geometry, bool max, bool includingPad) {
  return std::make_unique<CudaPoolingKernel>(geometry, max, includingPad);
}

}  // namespace netsmith::cuda
