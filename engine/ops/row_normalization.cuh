// The CUDA kernel of LayerNormalization, InstanceNormalization and GroupNormalization (Note [Row
// normalization], row_normalization.h), included by each of their cuda.cu files (nvcc only; the
// kernel is in an unnamed namespace, one copy per op). Every sum is a reduction of Note
// [Deterministic GPU reductions] with the terms of row_normalization_reductions.h: the statistics
// (mean, then Σ(x − mean)², in double) and the input gradient's row sums per row, a block per row
// reading it in order (coalesced), or several blocks per row for long rows, a thread per row for
// short ones; dgamma and dbeta per parameter, with LayerNormalization's (a column of the
// (rows, L) input each) a thread per (parameter, run of rows), so a warp reads 32 adjacent
// parameters' values. The output and dx are element-wise bodies. Deterministic: no atomics.
#pragma once

#include <memory>
#include <string>

#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_op.h"
#include "engine/backend/cuda/deterministic_reduction.cuh"
#include "engine/ops/row_normalization.h"
#include "engine/ops/row_normalization_reductions.h"

namespace netsmith::cuda {
namespace {

class RowNormalizationKernel final : public Kernel {
 public:
  RowNormalizationKernel(const ops::RowNormGeometry& g, std::string op, TensorAllocator* memory)
      : m_g(g), m_op(std::move(op)), m_memory(memory) {}

  void forward(KernelCall& call) override {
    const Tensor& x = *call.inputs[0];
    const int64_t rows = x.size() / m_g.rowLength;
    if (rows == 0) return;
    reserve(rows);
    auto& c = ctx(call);
    const std::string name = m_op + " statistics";
    launchReduction(name.c_str(), c, rows, m_g.rowLength, ReduceLayout::Rows,
                    rownorm::RowValueTerms{x.data(), m_g.rowLength}, rownorm::RowMeanSink{rowMean(), m_g.rowLength});
    launchReduction(name.c_str(), c, rows, m_g.rowLength, ReduceLayout::Rows,
                    rownorm::RowSquaredDeviationTerms{x.data(), rowMean(), m_g.rowLength},
                    rownorm::RowStatisticsSink{rowMean(), m_g.rowLength, m_g.eps, mean(), invStd()});
    launchGridStride("rowNormalizationForward", c.stream(), x.size(),
                     rownorm::Normalize{m_g.rowLength, m_g.paramInner, m_g.paramCount}, x.data(),
                     static_cast<const float*>(mean()), static_cast<const float*>(invStd()), gamma(call), beta(call),
                     call.output.data());
  }

  void backward(KernelCall& call) override {
    const Tensor& x = *call.inputs[0];
    const int64_t rows = x.size() / m_g.rowLength;
    if (rows == 0) return;
    auto& c = ctx(call);
    const float* dy = call.outputGrad->data();
    if (Tensor* dx = call.inputGrads[0]) {
      launchReduction((m_op + " gradient sums").c_str(), c, rows, m_g.rowLength, ReduceLayout::Rows,
                      rownorm::RowGradientTerms{x.data(), dy, gamma(call), mean(), invStd(), m_g.rowLength,
                                                m_g.paramInner, m_g.paramCount},
                      rownorm::RowGradientSink{rowSums()});
      launchGridStride("rowNormalizationInputGradient", c.stream(), x.size(),
                       rownorm::InputGradient{m_g.rowLength, m_g.paramInner, m_g.paramCount}, x.data(), dy,
                       static_cast<const float*>(mean()), static_cast<const float*>(invStd()), gamma(call),
                       static_cast<const double*>(rowSums()), dx->data());
    }
    Tensor* dbeta = m_g.bias && !call.paramGrads.empty() ? call.paramGrads[m_g.betaBlob()] : nullptr;
    Tensor* dgamma = m_g.scale && !call.paramGrads.empty() ? call.paramGrads[m_g.gammaBlob()] : nullptr;
    if (!dbeta && !dgamma) return;
    launchReduction((m_op + " parameter gradients").c_str(), c, m_g.paramCount, x.size() / m_g.paramCount,
                    rownorm::paramGradientLayout(m_g.paramInner, m_g.paramCount),
                    rownorm::ParamGradientTerms{x.data(), dy, mean(), invStd(), m_g.rowLength, m_g.paramInner,
                                                m_g.paramCount},
                    rownorm::ParamGradientSink{dbeta ? dbeta->data() : nullptr, dgamma ? dgamma->data() : nullptr});
  }

 private:
  // Row statistics and sums for `rows` rows: mean (rows floats), invStd (rows floats), the
  // gradient's row sums (2·rows doubles), the mean in double between the statistics' two passes
  // (rows doubles). The reductions' partials are in the context's workspace.
  void reserve(int64_t rows) {
    if (rows <= m_rows) return;
    m_scratch = std::make_unique<Tensor>(Shape{8 * rows}, m_memory);
    m_rows = rows;
  }
  float* mean() { return m_scratch->data(); }
  float* invStd() { return m_scratch->data() + m_rows; }
  double* rowSums() { return reinterpret_cast<double*>(m_scratch->data() + 2 * m_rows); }
  double* rowMean() { return reinterpret_cast<double*>(m_scratch->data() + 6 * m_rows); }
  const float* gamma(const KernelCall& call) const { return m_g.scale ? call.params[m_g.gammaBlob()]->data() : nullptr; }
  const float* beta(const KernelCall& call) const { return m_g.bias ? call.params[m_g.betaBlob()]->data() : nullptr; }

  ops::RowNormGeometry m_g;
  std::string m_op;
  TensorAllocator* m_memory;
  std::unique_ptr<Tensor> m_scratch;
  int64_t m_rows = 0;
};

// For an op's cuda.cu: the kernel factory of layer type `op`, from its geometry function.
template <typename GeometryOf>
void addRowNormalizationKernel(OpRegistry& registry, const char* op, GeometryOf geometryOf) {
  addCudaKernel(registry, op, [op, geometryOf](const KernelSetup& setup) -> std::unique_ptr<Kernel> {
    return std::make_unique<RowNormalizationKernel>(geometryOf(setup.inputShapes.at(0), setup.params), op,
                                                    setup.device.deviceAllocator());
  });
}

}  // namespace
}  // namespace netsmith::cuda
