// Affine on the GPU: cuBLAS GEMMs over the (rows, inner) view of the input (affine/cpu.cpp).
// Row-major W (inner, outmaps) is a column-major (outmaps × inner) matrix, so with column-major
// cuBLAS:  Y' = W'·X'  (forward),  dX' = W'ᵀ·dY'  and  dW' = dY'·X'ᵀ  (backward), no transposes of
// the data. The bias gradient is dY'·1 (a GEMV with a vector of ones), the bias itself a small
// broadcast kernel. Compute type by precision: Note [Precision] (precision_math.h).
// With 16-bit activations (Note [16-bit activations], engine/model/network.cpp) X, Y and their
// gradients are 16-bit; cuBLAS wants A and B of one type, so each forward rounds W into a 16-bit
// copy (backward uses it too), and dW and the bias gradient come out of 16-bit products straight
// into their float32 tensors (C in float32). Products accumulate in float32 (CUBLAS_COMPUTE_32F).
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
    const Storage storage = call.output.storage();
    const int rows = static_cast<int>(call.inputs[0]->dim(0) * m_rowsPerSample);
    const float one = 1.0f, zero = 0.0f;
    const Tensor* w = call.params[0];
    if (storage != Storage::Float32) {
      if (!m_w16.allocator() || m_w16.storage() != storage) m_w16 = Tensor(c.deviceAllocator(), storage);
      if (m_w16.size() != w->size()) m_w16.resize(w->shape());
      c.convert(m_w16, *w);
      w = &m_w16;
    }
    gemm(c, CUBLAS_OP_N, CUBLAS_OP_N, m_outmaps, rows, m_inner, *w, m_outmaps, *call.inputs[0], m_inner, &zero,
         call.output, m_outmaps, &one);
    if (m_withBias)
      withFormat(storage, [&](auto format) {
        using F = decltype(format);
        launchGridStride("affineAddBias", c.stream(), rows * m_outmaps, body::AddBiasOf<F>{m_outmaps, m_relu},
                         static_cast<typename F::Bits*>(call.output.raw()), call.params[1]->data());
      });
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
    const Tensor& dy = *call.outputGrad;
    const bool narrow = dy.storage() != Storage::Float32;
    const Tensor& w = narrow ? m_w16 : *call.params[0];  // 16-bit: the forward's copy of these weights
    Tensor* dx = call.inputGrads.empty() ? nullptr : call.inputGrads[0];
    Tensor* dw = call.paramGrads.size() > 0 ? call.paramGrads[0] : nullptr;
    Tensor* db = m_withBias && call.paramGrads.size() > 1 ? call.paramGrads[1] : nullptr;
    if (dx) gemm(c, CUBLAS_OP_T, CUBLAS_OP_N, m_inner, rows, m_outmaps, w, m_outmaps, dy, m_outmaps, &zero, *dx, m_inner, &one);
    if (dw)
      gemm(c, CUBLAS_OP_N, CUBLAS_OP_T, m_outmaps, m_inner, rows, dy, m_outmaps, *call.inputs[0], m_inner, &zero, *dw,
           m_outmaps, &one);
    if (db) {
      if (m_ones.size() < rows || m_ones.storage() != dy.storage()) {
        if (!m_onesFloat.allocator()) m_onesFloat = Tensor(c.deviceAllocator());
        m_onesFloat.resize({rows});
        c.fill(m_onesFloat.data(), rows, 1.0f);
        m_ones = Tensor(c.deviceAllocator(), dy.storage());
        m_ones.resize({rows});
        c.convert(m_ones, m_onesFloat);
      }
      if (narrow)  // db (outmaps × 1) = dY' (outmaps × rows) · ones (rows × 1), C in float32
        gemm(c, CUBLAS_OP_N, CUBLAS_OP_N, m_outmaps, 1, rows, dy, m_outmaps, m_ones, rows, &zero, *db, m_outmaps, &one);
      else
        NS_CUBLAS_CHECK(cublasSgemv(c.cublas(), CUBLAS_OP_N, static_cast<int>(m_outmaps), rows, &one, dy.data(),
                                    static_cast<int>(m_outmaps), m_ones.data(), 1, &zero, db->data(), 1));
    }
  }

 private:
  static cudaDataType_t typeOf(const Tensor& t) {
    switch (t.storage()) {
      case Storage::Float16: return CUDA_R_16F;
      case Storage::BFloat16: return CUDA_R_16BF;
      case Storage::Float32: break;
    }
    return CUDA_R_32F;
  }

  // a and b of one type; 16-bit ones accumulate in float32 (the FAST_16F/16BF compute types are
  // for float32 inputs).
  void gemm(CudaDeviceContext& c, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n, int64_t k,
            const Tensor& a, int64_t lda, const Tensor& b, int64_t ldb, const float* beta, Tensor& out, int64_t ldc,
            const float* alpha) {
    const cublasComputeType_t compute = a.storage() == Storage::Float32 ? m_compute : CUBLAS_COMPUTE_32F;
    NS_CUBLAS_CHECK(cublasGemmEx(c.cublas(), ta, tb, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha,
                                 a.raw(), typeOf(a), static_cast<int>(lda), b.raw(), typeOf(b), static_cast<int>(ldb),
                                 beta, out.raw(), typeOf(out), static_cast<int>(ldc), compute, CUBLAS_GEMM_DEFAULT));
  }

  int64_t m_rowsPerSample, m_inner, m_outmaps;
  bool m_withBias;
  bool m_relu = false;  // Note [GPU fused epilogues]
  cublasComputeType_t m_compute;
  Tensor m_ones;  // (rows) of 1 in dY's storage: the bias gradient's GEMV (or GEMM)
  Tensor m_onesFloat;  // what m_ones is converted from
  Tensor m_w16;   // 16-bit activations: the weights' copy for the products
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
  }, Activations::Also16Bit);
}

}  // namespace netsmith::cuda
