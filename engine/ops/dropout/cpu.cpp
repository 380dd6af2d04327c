// Dropout on the CPU, written directly: the mask comes from RandomKey, so an element's fate
// depends on (seed, node, epoch, sample id, element) only and is the same on every device and
// at every batch position.
#include <cstring>
#include <memory>

#include "engine/backend/cpu/parallel_for.h"
#include "engine/op_interface/op_schema.h"

namespace netsmith::cpu {
namespace {

class DropoutKernel final : public Kernel {
 public:
  explicit DropoutKernel(float p) : m_p(p), m_scale(1.0f / (1.0f - p)) {}

  void forward(KernelCall& call) override {
    const Tensor& x = *call.inputs[0];
    Tensor& y = call.output;
    const int64_t batch = x.dim(0);
    const int64_t perSample = batch ? x.size() / batch : 0;
    m_masked = call.training && m_p > 0.0f;
    if (!m_masked) {
      std::memcpy(y.data(), x.data(), sizeof(float) * static_cast<size_t>(x.size()));
      return;
    }
    // The mask holds the factor each element was multiplied by (0 or 1 / (1 - p)), kept for
    // backward; resized only when the shape changes (Note [Primitives across steps]).
    if (m_mask.shape() != x.shape()) m_mask.resize(x.shape());
    const RandomKey key = call.random;
    parallelFor(batch, [&](int64_t n) {
      const float* xs = x.data() + n * perSample;
      float* ys = y.data() + n * perSample;
      float* ms = m_mask.data() + n * perSample;
      for (int64_t i = 0; i < perSample; ++i) {
        ms[i] = key.uniform(n, i) < m_p ? 0.0f : m_scale;
        ys[i] = xs[i] * ms[i];
      }
    });
  }

  void backward(KernelCall& call) override {
    Tensor* dx = call.inputGrads[0];
    if (!dx) return;
    const Tensor& dy = *call.outputGrad;
    if (!m_masked) {
      std::memcpy(dx->data(), dy.data(), sizeof(float) * static_cast<size_t>(dy.size()));
      return;
    }
    const int64_t size = dy.size();
    const float* mask = m_mask.data();
    const float* g = dy.data();
    float* out = dx->data();
    parallelFor(size, [&](int64_t i) { out[i] = g[i] * mask[i]; });
  }

 private:
  float m_p;
  float m_scale;
  bool m_masked = false;  // the last forward applied a mask (training with p > 0)
  Tensor m_mask;
};

}  // namespace

std::unique_ptr<Kernel> makeDropoutKernel(const KernelSetup& setup) {
  return std::make_unique<DropoutKernel>(static_cast<float>(setup.params.number("p")));
}

}  // namespace netsmith::cpu
