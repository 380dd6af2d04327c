// The CUDA kernels of the index-view layers (Note [Index views]): the bodies of index_view.h in
// grid-stride loops, as cpu/index_view_kernels.h runs them on the CPU. One thread per output
// element (per input element for the gradients of broadcast inputs): no atomics, deterministic.
#pragma once

#include <memory>
#include <optional>

#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_op.h"
#include "engine/host_device/index_view_build.h"

namespace netsmith::cuda {

class CudaGatherKernel final : public Kernel {
 public:
  CudaGatherKernel(const char* name, IndexView view, float fill, std::optional<ReduceView> backwardSum = std::nullopt)
      : m_name(name), m_view(view), m_fill(fill), m_backwardSum(backwardSum) {}

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
      launchGridStride(m_name, ctx(call).stream(), dx->size(), body::SumReduce{withBatchSize(*m_backwardSum, batch), 1.0f},
                       call.outputGrad->data(), dx->data());
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
      : m_name(name), m_view(view), m_max(max), m_scale(scale) {}

  void forward(KernelCall& call) override {
    const ReduceView v = withBatchSize(m_view, call.output.dim(0));
    if (m_max)
      launchGridStride(m_name, ctx(call).stream(), call.output.size(), body::MaxReduce{v}, call.inputs[0]->data(),
                       call.output.data());
    else
      launchGridStride(m_name, ctx(call).stream(), call.output.size(), body::SumReduce{v, m_scale},
                       call.inputs[0]->data(), call.output.data());
  }

  void backward(KernelCall& call) override {
    Tensor* dx = call.inputGrads[0];
    if (!dx) return;
    const ReduceView v = withBatchSize(m_view, call.outputGrad->dim(0));
    if (m_max)
      launchGridStride(m_name, ctx(call).stream(), call.outputGrad->size(), body::MaxReduceBackward{v},
                       call.inputs[0]->data(), call.outputGrad->data(), dx->data());
    else
      launchGridStride(m_name, ctx(call).stream(), call.outputGrad->size(), body::SumReduceBackward{v, m_scale},
                       call.outputGrad->data(), dx->data());
  }

 private:
  const char* m_name;
  ReduceView m_view;
  bool m_max;
  float m_scale;
};

class CudaBinaryKernel final : public Kernel {
 public:
  CudaBinaryKernel(const char* name, body::BinaryOp op, const Shape& a, const Shape& b, const Shape& out)
      : m_name(name), m_op(op), m_view(broadcastView(a, b, out)), m_gradA(broadcastGradView(a, out)),
        m_gradB(broadcastGradView(b, out)) {}

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
      launchGridStride(m_name, ctx(call).stream(), dx->size(),
                       body::BinaryBackward{view, withBatchSize(k == 0 ? m_gradA : m_gradB, batch), m_op, k == 1},
                       call.inputs[0]->data(), call.inputs[1]->data(), call.outputGrad->data(), dx->data());
    }
  }

 private:
  const char* m_name;
  body::BinaryOp m_op;
  BroadcastView m_view;
  ReduceView m_gradA, m_gradB;
};

}  // namespace netsmith::cuda
