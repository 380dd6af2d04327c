// GlobalAveragePooling on the CPU: one mean per (sample, channel) plane, written directly (a plain
// reduction; oneDNN's pooling would first transpose the NCHW tensor).
#include <memory>

#include "engine/backend/cpu/parallel_for.h"
#include "engine/op_interface/op_schema.h"

namespace netsmith::cpu {
namespace {

class GlobalAveragePoolingKernel final : public Kernel {
 public:
  GlobalAveragePoolingKernel(int64_t channels, int64_t planeSize) : m_channels(channels), m_planeSize(planeSize) {}

  void forward(KernelCall& call) override {
    const Tensor& x = *call.inputs[0];
    const int64_t planes = x.dim(0) * m_channels;
    const int64_t size = m_planeSize;
    const float scale = 1.0f / static_cast<float>(size);
    const float* in = x.data();
    float* out = call.output.data();
    parallelFor(planes, [&](int64_t p) {
      const float* xp = in + p * size;
      float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
      for (int64_t i = 0; i < size; ++i) sum += xp[i];
      out[p] = sum * scale;
    });
  }

  void backward(KernelCall& call) override {
    Tensor* dx = call.inputGrads[0];
    if (!dx) return;
    const int64_t planes = dx->dim(0) * m_channels;
    const int64_t size = m_planeSize;
    const float scale = 1.0f / static_cast<float>(size);
    const float* dy = call.outputGrad->data();
    float* out = dx->data();
    parallelFor(planes, [&](int64_t p) {
      const float g = dy[p] * scale;
      float* dp = out + p * size;
      for (int64_t i = 0; i < size; ++i) dp[i] = g;
    });
  }

 private:
  int64_t m_channels;
  int64_t m_planeSize;  // height × width
};

}  // namespace

std::unique_ptr<Kernel> makeGlobalAveragePoolingKernel(const KernelSetup& setup) {
  const Shape& x = setup.inputShapes.at(0);
  return std::make_unique<GlobalAveragePoolingKernel>(x.at(0), x.at(1) * x.at(2));
}

}  // namespace netsmith::cpu
