// Affine on the GPU: cuBLAS GEMMs over the (rows, inner) view of the input (affine/cpu.cpp).
// Row-major W (inner, outmaps) is a column-major (outmaps × inner) matrix, so with column-major
// cuBLAS:  Y' = W'·X'  (forward),  dX' = W'ᵀ·dY'  and  dW' = dY'·X'ᵀ  (backward), no transposes of
// the data. The bias gradient is dY'·1 (a GEMV with a vector of ones), the bias itself a small
// broadcast kernel. Compute type by precision: Note [Precision] (precision_math.h).
#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_op.h"
#include "engine/ops/affine/cuda_math.h"

namespace netsmith::cuda {
namespace {

class AffineKernel final : public Kernel {
 public:
  AffineKernel(int64_t rowsPerSample, int64_t inner, int64_t outmaps, bool withBias, Precision precision)
      : m_rowsPerSample(rowsPerSample), m_inner(inner), m_outmaps(outmaps), m_withBias(withBias) {
    m_compute = precisionMath(precision).gemm;
  }

  void forward(KernelCall& call) override {
    auto& c = ctx(call);
    const int rows = static_cast<int>(call.inputs[0]->dim(0) * m_rowsPerSample);
    const float one = 1.0f, zero = 0.0f;
    gemm(c, CUBLAS_OP_N, CUBLAS_OP_N, m_outmaps, rows, m_inner, call.params[0]->data(), m_outmaps,
         call.inputs[0]->data(), m_inner, &zero, call.output.data(), m_outmaps, &one);
    if (m_withBias)
      launchGridStride("affineAddBias", c.stream(), rows * m_outmaps, body::AddBias{m_outmaps, m_relu}, call.output.data(),
                       call.params[1]->data());
  }

  // Note [GPU fused epilogues]: with a bias the ReLU rides on the bias kernel's pass; without one
  // it would be a pass of its own, no cheaper than the ReLU's. Backward never reads y.
  bool fuseRelu() override {
    m_relu = m_withBias;
    return m_withBias;
  }

  void backward(KernelCall& call) override {
    auto& c = ctx(call);
    const int rows = static_cast<int>(call.inputs[0]->dim(0) * m_rowsPerSample);
    const float one = 1.0f, zero = 0.0f;
    const float* dy = call.outputGrad->data();
    Tensor* dx = call.inputGrads.empty() ? nullptr : call.inputGrads[0];
    Tensor* dw = call.paramGrads.size() > 0 ? call.paramGrads[0] : nullptr;
    Tensor* db = m_withBias && call.paramGrads.size() > 1 ? call.paramGrads[1] : nullptr;
    if (dx)
      gemm(c, CUBLAS_OP_T, CUBLAS_OP_N, m_inner, rows, m_outmaps, call.params[0]->data(), m_outmaps, dy, m_outmaps,
           &zero, dx->data(), m_inner, &one);
    if (dw)
      gemm(c, CUBLAS_OP_N, CUBLAS_OP_T, m_outmaps, m_inner, rows, dy, m_outmaps, call.inputs[0]->data(), m_inner,
           &zero, dw->data(), m_outmaps, &one);
    if (db) {
      if (m_ones.size() < rows) {
        if (!m_ones.allocator()) m_ones = Tensor(c.deviceAllocator());
        m_ones.resize({rows});
        c.fill(m_ones.data(), rows, 1.0f);
      }
      NS_CUBLAS_CHECK(cublasSgemv(c.cublas(), CUBLAS_OP_N, static_cast<int>(m_outmaps), rows, &one, dy,
                                  static_cast<int>(m_outmaps), m_ones.data(), 1, &zero, db->data(), 1));
    }
  }

 private:
  void gemm(CudaDeviceContext& c, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n, int64_t k,
            const float* a, int64_t lda, const float* b, int64_t ldb, const float* beta, float* out, int64_t ldc,
            const float* alpha) {
    NS_CUBLAS_CHECK(cublasGemmEx(c.cublas(), ta, tb, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha,
                                 a, CUDA_R_32F, static_cast<int>(lda), b, CUDA_R_32F, static_cast<int>(ldb), beta, out,
                                 CUDA_R_32F, static_cast<int>(ldc), m_compute, CUBLAS_GEMM_DEFAULT));
  }

  int64_t m_rowsPerSample, m_inner, m_outmaps;
  bool m_withBias;
  bool m_relu = false;  // Note [GPU fused epilogues]
  cublasComputeType_t m_compute;
  Tensor m_ones;  // (rows) of 1: the bias gradient's GEMV
};

}  // namespace

void register_affine(OpRegistry& registry) {
  addCudaKernel(registry, "Affine", [](const KernelSetup& setup) -> std::unique_ptr<Kernel> {
    const Shape& in = setup.inputShapes.at(0);
    const Shape& out = setup.outputShape;
    const Shape outmaps = setup.params.ints("n_outmaps");
    const size_t kept = out.size() - outmaps.size();
    const int64_t rowsPerSample = numel(Shape(out.begin(), out.begin() + static_cast<ptrdiff_t>(kept)));
    return std::make_unique<AffineKernel>(rowsPerSample, numel(in) / rowsPerSample, numel(outmaps),
                                          setup.params.flag("with_bias"), cudaContext(setup.device).options().precision);
  });
}

}  // namespace netsmith::cuda
