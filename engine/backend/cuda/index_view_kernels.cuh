// The CUDA kernels of the index-view layers (Note [Index views]). The moves (gather, scatter,
// reflect) and the broadcasting forward are the bodies of index_view.h in grid-stride loops, as
// cpu/index_view_kernels.h runs them on the CPU, one thread per output element. The sums and
// maxima (Sum, Mean, Max, a broadcast input's gradient, a summing gather's backward) are spread
// over many threads by launchReduction (Note [Deterministic GPU reductions]) with the terms of
// index_view_reductions.h; their backwards write one element per thread. No atomics: deterministic.
#pragma once

#include <memory>
#include <optional>

#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_op.h"
#include "engine/backend/cuda/deterministic_reduction.cuh"
#include "engine/host_device/index_view_build.h"
#include "engine/host_device/index_view_reductions.h"

namespace netsmith::cuda {

class CudaGatherKernel final : public Kernel {
 public:
  CudaGatherKernel(const char* name, IndexView view, float fill, std::optional<ReduceView> backwardSum = std::nullopt)
      : m_name(name), m_view(view), m_fill(fill) {
    if (backwardSum) m_backwardSum = collapsed(*backwardSum);
  }

  void forward(KernelCall& call) override {
    launchGridStride(m_name, ctx(call).stream(), call.output.size(),
                     body::GatherForward{withBatchSize(m_view, call.output.dim(0)), m_fill}, call.inputs[0]->data(),
                     call.output.data());
  }

  void backward(KernelCall& call) override {
    Tensor* dx = call.inputGrads[0];
    if (!dx) return;
    const int64_t batch = call.outputGrad->dim(0);
    if (m_backwardSum) {
      const ReduceView v = withBatchSize(*m_backwardSum, batch);
      launchReduction(m_name, ctx(call), dx->size(), v.count, reduceLayout(v),
                      body::ReduceSumTerms{v, call.outputGrad->data()}, ScaledSumSink{dx->data()});
      return;
    }
    if (m_view.reflect) {
      launchGridStride(m_name, ctx(call).stream(), dx->size(), body::ReflectBackward{withBatchSize(m_view, batch)},
                       call.outputGrad->data(), dx->data());
      return;
    }
    ctx(call).fill(dx->data(), dx->size(), 0.0f);
    launchGridStride(m_name, ctx(call).stream(), call.outputGrad->size(),
                     body::ScatterBackward{withBatchSize(m_view, batch)}, call.outputGrad->data(), dx->data());
  }

 private:
  const char* m_name;
  IndexView m_view;
  float m_fill;
  std::optional<ReduceView> m_backwardSum;
};

class CudaReduceKernel final : public Kernel {
 public:
  CudaReduceKernel(const char* name, ReduceView view, bool max, float scale)
      : m_name(name), m_view(collapsed(view)), m_layout(reduceLayout(view)), m_max(max), m_scale(scale) {}

  void forward(KernelCall& call) override {
    const ReduceView v = withBatchSize(m_view, call.output.dim(0));
    const float* x = call.inputs[0]->data();
    if (m_max)
      launchReduction(m_name, ctx(call), call.output.size(), v.count, m_layout, body::ReduceMaxTerms{v, x},
                      body::MaxValueSink{call.output.data()});
    else
      launchReduction(m_name, ctx(call), call.output.size(), v.count, m_layout, body::ReduceSumTerms{v, x},
                      ScaledSumSink{call.output.data(), m_scale});
  }

  void backward(KernelCall& call) override {
    Tensor* dx = call.inputGrads[0];
    if (!dx) return;
    const ReduceView v = withBatchSize(m_view, call.outputGrad->dim(0));
    const float* dy = call.outputGrad->data();
    if (m_max) {
      // Every element but each output's arg-max gets 0; the arg-max is found again, in parallel.
      ctx(call).fill(dx->data(), dx->size(), 0.0f);
      launchReduction(m_name, ctx(call), call.outputGrad->size(), v.count, m_layout,
                      body::ReduceMaxTerms{v, call.inputs[0]->data()}, body::MaxGradientSink{v, dy, dx->data()});
    } else {
      launchGridStride(m_name, ctx(call).stream(), call.outputGrad->size() * v.count, body::SumReduceSpread{v, m_scale},
                       dy, dx->data());
    }
  }

 private:
  const char* m_name;
  ReduceView m_view;  // collapsed: the same elements with fewer dimensions
  ReduceLayout m_layout;
  bool m_max;
  float m_scale;
};

class CudaBinaryKernel final : public Kernel {
 public:
  CudaBinaryKernel(const char* name, body::BinaryOp op, const Shape& a, const Shape& b, const Shape& out)
      : m_name(name), m_op(op), m_view(broadcastView(a, b, out)), m_gradA(collapsed(broadcastGradView(a, out))),
        m_gradB(collapsed(broadcastGradView(b, out))) {}

  void forward(KernelCall& call) override {
    launchGridStride(m_name, ctx(call).stream(), call.output.size(),
                     body::BinaryForward{withBatchSize(m_view, call.output.dim(0)), m_op}, call.inputs[0]->data(),
                     call.inputs[1]->data(), call.output.data());
  }

  void backward(KernelCall& call) override {
    const int64_t batch = call.outputGrad->dim(0);
    const BroadcastView view = withBatchSize(m_view, batch);
    for (int k = 0; k < 2; ++k) {
      Tensor* dx = call.inputGrads[k];
      if (!dx) continue;
      // Element j of the input sums over the output elements that read it: for a (C, 1, 1)
      // input against (C, H, W), H·W terms per (sample, channel), spread over a block or more.
      const ReduceView sum = withBatchSize(k == 0 ? m_gradA : m_gradB, batch);
      launchReduction(m_name, ctx(call), dx->size(), sum.count, reduceLayout(sum),
                      body::BinaryGradientTerms{view, sum, m_op, k == 1, call.inputs[0]->data(),
                                                call.inputs[1]->data(), call.outputGrad->data()},
                      ScaledSumSink{dx->data()});
    }
  }

 private:
  const char* m_name;
  body::BinaryOp m_op;
  BroadcastView m_view;
  ReduceView m_gradA, m_gradB;
};

}  // namespace netsmith::cuda
