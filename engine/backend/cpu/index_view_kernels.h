// The CPU kernels of the index-view layers (Note [Index views]): the host-device bodies of
// engine/host_device/index_view.h in parallelFor loops. cuda/index_view_kernels.cuh is the same on the GPU.
#pragma once

#include <memory>
#include <optional>

#include "engine/backend/cpu/parallel_for.h"
#include "engine/host_device/index_view_build.h"
#include "engine/op_interface/op_schema.h"

namespace netsmith::cpu {

// y = x seen through `view` (`fill` outside the input). Backward: each input element's gradient
// is the dy it was read into (a view that reads each element once), or, with `backwardSum`, the
// sum of dy over the output elements that read it (Unpooling's repeats), or for a reflecting view
// the sum over its mirrors (Pad's reflect).
class GatherKernel final : public Kernel {
 public:
  GatherKernel(cuda::IndexView view, float fill, std::optional<cuda::ReduceView> backwardSum = std::nullopt)
      : m_view(view), m_fill(fill), m_backwardSum(backwardSum) {}

  void forward(KernelCall& call) override {
    const cuda::body::GatherForward f{cuda::withBatchSize(m_view, call.output.dim(0)), m_fill};
    const float* x = call.inputs[0]->data();
    float* y = call.output.data();
    parallelFor(call.output.size(), [&](int64_t i) { f(i, x, y); });
  }

  void backward(KernelCall& call) override {
    Tensor* dx = call.inputGrads[0];
    if (!dx) return;
    const int64_t batch = call.outputGrad->dim(0);
    const float* dy = call.outputGrad->data();
    float* out = dx->data();
    if (m_backwardSum) {
      const cuda::body::SumReduce f{cuda::withBatchSize(*m_backwardSum, batch), 1.0f};
      parallelFor(dx->size(), [&](int64_t j) { f(j, dy, out); });
      return;
    }
    if (m_view.reflect) {
      const cuda::body::ReflectBackward f{cuda::withBatchSize(m_view, batch)};
      parallelFor(dx->size(), [&](int64_t j) { f(j, dy, out); });
      return;
    }
    call.device.fill(out, dx->size(), 0.0f);
    const cuda::body::ScatterBackward f{cuda::withBatchSize(m_view, batch)};
    parallelFor(call.outputGrad->size(), [&](int64_t i) { f(i, dy, out); });
  }

 private:
  cuda::IndexView m_view;
  float m_fill;
  std::optional<cuda::ReduceView> m_backwardSum;
};

// Sum (scale 1), Mean (scale 1 / count) or Max over the reduced axes of `view`.
class ReduceKernel final : public Kernel {
 public:
  ReduceKernel(cuda::ReduceView view, bool max, float scale) : m_view(view), m_max(max), m_scale(scale) {}

  void forward(KernelCall& call) override {
    const cuda::ReduceView v = cuda::withBatchSize(m_view, call.output.dim(0));
    const float* x = call.inputs[0]->data();
    float* y = call.output.data();
    if (m_max) {
      const cuda::body::MaxReduce f{v};
      parallelFor(call.output.size(), [&](int64_t o) { f(o, x, y); });
    } else {
      const cuda::body::SumReduce f{v, m_scale};
      parallelFor(call.output.size(), [&](int64_t o) { f(o, x, y); });
    }
  }

  void backward(KernelCall& call) override {
    Tensor* dx = call.inputGrads[0];
    if (!dx) return;
    const cuda::ReduceView v = cuda::withBatchSize(m_view, call.outputGrad->dim(0));
    const float* dy = call.outputGrad->data();
    float* out = dx->data();
    if (m_max) {
      const cuda::body::MaxReduceBackward f{v};
      const float* x = call.inputs[0]->data();
      parallelFor(call.outputGrad->size(), [&](int64_t o) { f(o, x, dy, out); });
    } else {
      const cuda::body::SumReduceBackward f{v, m_scale};
      parallelFor(call.outputGrad->size(), [&](int64_t o) { f(o, dy, out); });
    }
  }

 private:
  cuda::ReduceView m_view;
  bool m_max;
  float m_scale;
};

// Mul2, Sub2, Div2 with numpy broadcasting of the per-sample shapes.
class BinaryKernel final : public Kernel {
 public:
  BinaryKernel(cuda::body::BinaryOp op, const Shape& a, const Shape& b, const Shape& out)
      : m_op(op), m_view(cuda::broadcastView(a, b, out)), m_gradA(cuda::broadcastGradView(a, out)),
        m_gradB(cuda::broadcastGradView(b, out)) {}

  void forward(KernelCall& call) override {
    const cuda::body::BinaryForward f{cuda::withBatchSize(m_view, call.output.dim(0)), m_op};
    const float* a = call.inputs[0]->data();
    const float* b = call.inputs[1]->data();
    float* y = call.output.data();
    parallelFor(call.output.size(), [&](int64_t i) { f(i, a, b, y); });
  }

  void backward(KernelCall& call) override {
    const int64_t batch = call.outputGrad->dim(0);
    const cuda::BroadcastView view = cuda::withBatchSize(m_view, batch);
    const float* a = call.inputs[0]->data();
    const float* b = call.inputs[1]->data();
    const float* dy = call.outputGrad->data();
    for (int k = 0; k < 2; ++k) {
      Tensor* dx = call.inputGrads[k];
      if (!dx) continue;
      const cuda::body::BinaryBackward f{view, cuda::withBatchSize(k == 0 ? m_gradA : m_gradB, batch), m_op, k == 1};
      float* out = dx->data();
      parallelFor(dx->size(), [&](int64_t j) { f(j, a, b, dy, out); });
    }
  }

 private:
  cuda::body::BinaryOp m_op;
  cuda::BroadcastView m_view;
  cuda::ReduceView m_gradA, m_gradB;
};

}  // namespace netsmith::cpu
