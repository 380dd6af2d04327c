// The CUDA kernel of LayerNormalization, InstanceNormalization and GroupNormalization (Note [Row
// normalization], row_normalization.h), included by each of their cuda.cu files (nvcc only; the
// kernels are in an unnamed namespace, one copy per op). One block per row for the statistics and
// for the input gradient's row sums (two passes in double, blockSum's fixed order); element-wise
// bodies for the output and dx; one block per parameter for dgamma and dbeta. Deterministic: no
// atomics.
#pragma once

#include <memory>
#include <string>

#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_op.h"
#include "engine/ops/row_normalization.h"

namespace netsmith::cuda {
namespace {

// Block r: the mean and 1/std of row r.
__global__ void rowStatistics(const float* x, int64_t rowLength, float eps, float* mean, float* invStd) {
  const float* row = x + blockIdx.x * rowLength;
  double sum = 0.0;
  for (int64_t j = threadIdx.x; j < rowLength; j += blockDim.x) sum += row[j];
  sum = blockSum(sum);
  __shared__ double rowMean;
  if (threadIdx.x == 0) rowMean = sum / static_cast<double>(rowLength);
  __syncthreads();
  const double m = rowMean;
  double squares = 0.0;
  for (int64_t j = threadIdx.x; j < rowLength; j += blockDim.x) {
    const double d = row[j] - m;
    squares += d * d;
  }
  squares = blockSum(squares);
  if (threadIdx.x == 0) {
    mean[blockIdx.x] = static_cast<float>(m);
    invStd[blockIdx.x] = rownorm::inverseStd(squares, rowLength, eps);
  }
}

// Block r: (Σ g, Σ g·x̂) over row r, g = dy·gamma.
__global__ void rowGradientSums(const float* x, const float* dy, const float* gamma, const float* mean,
                                const float* invStd, int64_t rowLength, int64_t paramInner, int64_t paramCount,
                                double* rowSums) {
  const int64_t r = blockIdx.x;
  double a = 0.0, b = 0.0;
  for (int64_t j = threadIdx.x; j < rowLength; j += blockDim.x) {
    const int64_t i = r * rowLength + j;
    const float gv = gamma ? gamma[rownorm::paramOf(i, paramInner, paramCount)] : 1.0f;
    rownorm::addGradientTerms(x[i], dy[i], gv, mean[r], invStd[r], a, b);
  }
  a = blockSum(a);
  b = blockSum(b);
  if (threadIdx.x == 0) {
    rowSums[2 * r] = a;
    rowSums[2 * r + 1] = b;
  }
}

// Block p: dbeta[p] = Σ dy and dgamma[p] = Σ dy·x̂ over the elements parameter p multiplies.
__global__ void rowNormParamGradients(const float* x, const float* dy, const float* mean, const float* invStd,
                                      int64_t perParam, int64_t rowLength, int64_t paramInner, int64_t paramCount,
                                      float* dbeta, float* dgamma) {
  const int64_t p = blockIdx.x;
  double sb = 0.0, sg = 0.0;
  for (int64_t k = threadIdx.x; k < perParam; k += blockDim.x) {
    const int64_t i = rownorm::paramElement(k, p, paramInner, paramCount);
    const int64_t r = i / rowLength;
    sb += dy[i];
    sg += static_cast<double>(dy[i]) * rownorm::normalized(x[i], mean[r], invStd[r]);
  }
  sb = blockSum(sb);
  sg = blockSum(sg);
  if (threadIdx.x == 0) {
    if (dbeta) dbeta[p] = static_cast<float>(sb);
    if (dgamma) dgamma[p] = static_cast<float>(sg);
  }
}

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
    const LaunchShape shape = perBlock((m_op + " statistics").c_str(), rows, kThreads);
    rowStatistics<<<gridOf(shape), shape.block, 0, c.stream()>>>(x.data(), m_g.rowLength, m_g.eps, mean(), invStd());
    NS_CUDA_CHECK_LAUNCH();
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
      const LaunchShape shape = perBlock((m_op + " gradient sums").c_str(), rows, kThreads);
      rowGradientSums<<<gridOf(shape), shape.block, 0, c.stream()>>>(x.data(), dy, gamma(call), mean(), invStd(),
                                                                     m_g.rowLength, m_g.paramInner, m_g.paramCount,
                                                                     rowSums());
      NS_CUDA_CHECK_LAUNCH();
      launchGridStride("rowNormalizationInputGradient", c.stream(), x.size(),
                       rownorm::InputGradient{m_g.rowLength, m_g.paramInner, m_g.paramCount}, x.data(), dy,
                       static_cast<const float*>(mean()), static_cast<const float*>(invStd()), gamma(call),
                       static_cast<const double*>(rowSums()), dx->data());
    }
    Tensor* dbeta = m_g.bias && !call.paramGrads.empty() ? call.paramGrads[m_g.betaBlob()] : nullptr;
    Tensor* dgamma = m_g.scale && !call.paramGrads.empty() ? call.paramGrads[m_g.gammaBlob()] : nullptr;
    if (!dbeta && !dgamma) return;
    const LaunchShape shape = perBlock((m_op + " parameter gradients").c_str(), m_g.paramCount, kThreads);
    rowNormParamGradients<<<gridOf(shape), shape.block, 0, c.stream()>>>(
        x.data(), dy, mean(), invStd(), x.size() / m_g.paramCount, m_g.rowLength, m_g.paramInner, m_g.paramCount,
        dbeta ? dbeta->data() : nullptr, dgamma ? dgamma->data() : nullptr);
    NS_CUDA_CHECK_LAUNCH();
  }

 private:
  // Row statistics and sums for `rows` rows: mean (rows), invStd (rows), then 2·rows doubles.
  void reserve(int64_t rows) {
    if (rows <= m_rows) return;
    m_scratch = std::make_unique<Tensor>(Shape{6 * rows}, m_memory);
    m_rows = rows;
  }
  float* mean() { return m_scratch->data(); }
  float* invStd() { return m_scratch->data() + m_rows; }
  double* rowSums() { return reinterpret_cast<double*>(m_scratch->data() + 2 * m_rows); }
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
