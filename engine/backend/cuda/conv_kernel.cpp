// cuDNN's convolution over NCHW tensors; its algorithms: Note [cuDNN convolution algorithms]
// (conv_algorithms.cpp). Math type by precision: Note [Precision] (precision_math.h).
//
// With 16-bit activations (Note [16-bit activations], engine/model/network.cpp) x, y and their
// gradients are 16-bit for cuDNN, which then needs the filter in the same type: each forward
// rounds the float32 weights into a 16-bit copy (backward uses it too), and the filter gradient
// comes back 16-bit and is widened into the float32 gradient — what PyTorch's autocast does. The
// products accumulate in float32 (compute type FLOAT) on tensor cores. The bias (and a fused
// ReLU) is then our own pass over y, and its gradient our own per-channel sum, in float32: cuDNN's
// fused call and bias functions are not used on 16-bit tensors. Channels last (Note [Channels
// last]): x, y and the filter's copy (K, R, S, C) in NHWC order, the filter gradient turned back.
#include "engine/backend/cuda/conv_kernel.h"

#include <algorithm>
#include <array>

#include "engine/backend/cuda/conv_algorithms.h"
#include "engine/backend/cuda/cuda_launch.h"
#include "engine/backend/cuda/cuda_op.h"

namespace netsmith::cuda {
namespace {

class CudnnConvKernel final : public Kernel {
 public:
  CudnnConvKernel(const KernelSetup& setup, bool transposed) : m_transposed(transposed) {
    const Shape& in = setup.inputShapes.at(0);
    const Shape& out = setup.outputShape;
    const OpParams& p = setup.params;
    const auto k = p.ints("kernel"), stride = p.ints("stride"), pad = p.ints("pad"), dil = p.ints("dilation");
    const int64_t group = p.integer("group");
    m_withBias = p.flag("with_bias");
    // The convolution cuDNN sees maps (convC, convH, convW) to (convK, convOH, convOW).
    const Shape& convIn = transposed ? out : in;
    const Shape& convOut = transposed ? in : out;
    m_convIn = convIn;
    m_convOut = convOut;
    m_biasChannels = out[0];
    NS_CUDNN_CHECK(cudnnCreateFilterDescriptor(&m_filter));
    NS_CUDNN_CHECK(cudnnSetFilter4dDescriptor(m_filter, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, static_cast<int>(convOut[0]),
                                              static_cast<int>(convIn[0] / group), static_cast<int>(k[0]),
                                              static_cast<int>(k[1])));
    NS_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&m_conv));
    NS_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(m_conv, static_cast<int>(pad[0]), static_cast<int>(pad[1]),
                                                   static_cast<int>(stride[0]), static_cast<int>(stride[1]),
                                                   static_cast<int>(dil[0]), static_cast<int>(dil[1]),
                                                   CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    NS_CUDNN_CHECK(cudnnSetConvolutionGroupCount(m_conv, static_cast<int>(group)));
    const auto& options = cudaContext(setup.device).options();
    m_deterministic = options.deterministic;
    const cudnnMathType_t math = precisionMath(options.precision).convolution;
    NS_CUDNN_CHECK(cudnnSetConvolutionMathType(m_conv, math));
    m_bias.set(1, m_biasChannels, 1, 1);
    m_filterCount = convOut[0] * (convIn[0] / group) * k[0] * k[1];
    m_filterDims = {static_cast<int>(convOut[0]), static_cast<int>(convIn[0] / group), static_cast<int>(k[0]),
                    static_cast<int>(k[1])};
    // Everything that makes two convolutions the same problem for cuDNN but the batch size.
    m_key = format("in {} out {} kernel {}x{} stride {}x{} pad {}x{} dilation {}x{} group {} math {} deterministic {}",
                   shapeToString(convIn), shapeToString(convOut), k[0], k[1], stride[0], stride[1], pad[0], pad[1], dil[0],
                   dil[1], group, static_cast<int>(math), m_deterministic);
  }
  ~CudnnConvKernel() override {
    if (m_reluDesc) cudnnDestroyActivationDescriptor(m_reluDesc);
    cudnnDestroyConvolutionDescriptor(m_conv);
    cudnnDestroyFilterDescriptor(m_filter);
  }

  void forward(KernelCall& call) override {
    auto& c = ctx(call);
    useFormat(call.inputs[0]->format());
    plan(c, call.inputs[0]->dim(0));
    const float one = 1.0f, zero = 0.0f;
    const void* x = call.inputs[0]->raw();
    const void* w = weights(c, *call.params[0]);
    void* y = call.output.raw();
    if (m_format.storage != Storage::Float32) {
      forward16(c, x, w, y, call);
      return;
    }
    if (m_relu && m_fusedCallWorks) {
      // Note [GPU fused epilogues]: y = max(conv(x) + b, 0) in one cuDNN call (alpha2 = 0: no z).
      const cudnnStatus_t status = cudnnConvolutionBiasActivationForward(
          c.cudnn(), &one, m_x.get(), x, m_filter, w, m_conv, m_fwdAlgo, c.workspace(m_fwdBytes), m_fwdBytes, &zero,
          m_y.get(), y, m_bias.get(), call.params[1]->data(), m_reluDesc, m_y.get(), y);
      if (status != CUDNN_STATUS_NOT_SUPPORTED) {
        NS_CUDNN_CHECK(status);
        return;
      }
      m_fusedCallWorks = false;  // not for this algorithm: the three calls below from now on
    }
    if (!m_transposed) {
      NS_CUDNN_CHECK(cudnnConvolutionForward(c.cudnn(), &one, m_x.get(), x, m_filter, w, m_conv, m_fwdAlgo,
                                             c.workspace(m_fwdBytes), m_fwdBytes, &zero, m_y.get(), y));
    } else {
      // y is the convolution's input: the gradient of that convolution with "dy" = x.
      NS_CUDNN_CHECK(cudnnConvolutionBackwardData(c.cudnn(), &one, m_filter, w, m_y.get(), x, m_conv, m_dataAlgo,
                                                  c.workspace(m_dataBytes), m_dataBytes, &zero, m_x.get(), y));
    }
    if (m_withBias)
      NS_CUDNN_CHECK(cudnnAddTensor(c.cudnn(), &one, m_bias.get(), call.params[1]->data(), &one, outDesc(), y));
    if (m_relu) NS_CUDNN_CHECK(cudnnActivationForward(c.cudnn(), m_reluDesc, &one, outDesc(), y, &zero, outDesc(), y));
  }

  // Note [GPU fused epilogues]: a convolution with a bias (not a deconvolution) writes its ReLU's
  // output through cudnnConvolutionBiasActivationForward; backward reads x and dy, never y.
  bool fuseRelu() override {
    if (m_transposed || !m_withBias) return false;
    NS_CUDNN_CHECK(cudnnCreateActivationDescriptor(&m_reluDesc));
    NS_CUDNN_CHECK(cudnnSetActivationDescriptor(m_reluDesc, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    m_relu = true;
    return true;
  }

  void backward(KernelCall& call) override {
    auto& c = ctx(call);
    useFormat(call.inputs[0]->format());
    plan(c, call.inputs[0]->dim(0));
    const float one = 1.0f, zero = 0.0f;
    const bool narrow = m_format.storage != Storage::Float32;
    const void* x = call.inputs[0]->raw();
    // 16-bit: the copy the forward pass made of these weights (the optimizer runs after backward).
    const void* w = narrow ? m_w16.raw() : call.params[0]->raw();
    const void* dy = call.outputGrad->raw();
    Tensor* dx = call.inputGrads.empty() ? nullptr : call.inputGrads[0];
    Tensor* dw = call.paramGrads.size() > 0 ? call.paramGrads[0] : nullptr;
    Tensor* db = m_withBias && call.paramGrads.size() > 1 ? call.paramGrads[1] : nullptr;
    // In cuDNN's terms: convX is the convolution's input, convDy the gradient of its output.
    const void* convX = m_transposed ? dy : x;
    const void* convDy = m_transposed ? x : dy;
    if (db) {
      if (narrow)
        launchChannelBiasGradient(db->data(), dy, m_format, call.inputs[0]->dim(0), m_biasChannels,
                                  call.outputGrad->size() / std::max<int64_t>(1, call.inputs[0]->dim(0) * m_biasChannels),
                                  c.stream());
      else
        NS_CUDNN_CHECK(cudnnConvolutionBackwardBias(c.cudnn(), &one, outDesc(), dy, &zero, m_bias.get(), db->data()));
    }
    if (dw) {
      void* filterGrad = dw->raw();
      if (narrow) {
        fitFilter(c, m_dw16);
        filterGrad = m_dw16.raw();
      }
      NS_CUDNN_CHECK(cudnnConvolutionBackwardFilter(c.cudnn(), &one, m_x.get(), convX, m_y.get(), convDy, m_conv,
                                                    m_filterAlgo, c.workspace(m_filterBytes), m_filterBytes, &zero,
                                                    m_filter, filterGrad));
      if (narrow) c.convert(*dw, m_dw16);
    }
    if (dx) {
      if (!m_transposed)
        NS_CUDNN_CHECK(cudnnConvolutionBackwardData(c.cudnn(), &one, m_filter, w, m_y.get(), dy, m_conv, m_dataAlgo,
                                                    c.workspace(m_dataBytes), m_dataBytes, &zero, m_x.get(),
                                                    dx->raw()));
      else
        NS_CUDNN_CHECK(cudnnConvolutionForward(c.cudnn(), &one, m_x.get(), dy, m_filter, w, m_conv, m_fwdAlgo,
                                               c.workspace(m_fwdBytes), m_fwdBytes, &zero, m_y.get(), dx->raw()));
    }
  }

 private:
  // The activations' format, known at the first call (the network's choice for this layer): a
  // 16-bit one makes the filter 16-bit for cuDNN, on tensor cores, in the activations' layout.
  void useFormat(TensorFormat format) {
    if (format == m_format) return;
    m_format = format;
    NS_CUDNN_CHECK(cudnnSetFilter4dDescriptor(m_filter, cudnnTypeOf(format.storage), cudnnLayoutOf(format.layout),
                                              m_filterDims[0], m_filterDims[1], m_filterDims[2], m_filterDims[3]));
    if (format.storage != Storage::Float32) NS_CUDNN_CHECK(cudnnSetConvolutionMathType(m_conv, CUDNN_TENSOR_OP_MATH));
    m_batch = -1;  // descriptors and algorithms again
  }

  void fitFilter(CudaDeviceContext& c, Tensor& t) {
    if (!t.allocator() || t.format() != m_format) t = Tensor(c.deviceAllocator(), m_format);
    if (t.size() != m_filterCount) t.resize({m_filterDims[0], m_filterDims[1], m_filterDims[2], m_filterDims[3]});
  }

  // The weights as cuDNN takes them: the float32 blob, or its 16-bit copy made now.
  const void* weights(CudaDeviceContext& c, const Tensor& w) {
    if (m_format.storage == Storage::Float32) return w.raw();
    fitFilter(c, m_w16);
    c.convert(m_w16, w);
    return m_w16.raw();
  }

  void forward16(CudaDeviceContext& c, const void* x, const void* w, void* y, KernelCall& call) {
    const float one = 1.0f, zero = 0.0f;
    if (!m_transposed)
      NS_CUDNN_CHECK(cudnnConvolutionForward(c.cudnn(), &one, m_x.get(), x, m_filter, w, m_conv, m_fwdAlgo,
                                             c.workspace(m_fwdBytes), m_fwdBytes, &zero, m_y.get(), y));
    else
      NS_CUDNN_CHECK(cudnnConvolutionBackwardData(c.cudnn(), &one, m_filter, w, m_y.get(), x, m_conv, m_dataAlgo,
                                                  c.workspace(m_dataBytes), m_dataBytes, &zero, m_x.get(), y));
    const int64_t n = call.output.size();
    const int64_t spatial = n / std::max<int64_t>(1, call.output.dim(0) * m_biasChannels);
    if (m_withBias)
      launchChannelBias(y, m_format, call.params[1]->data(), n, m_biasChannels, spatial, m_relu, c.stream());
    else if (m_relu)
      NS_CUDNN_CHECK(cudnnActivationForward(c.cudnn(), m_reluDesc, &one, outDesc(), y, &zero, outDesc(), y));
  }

  // The op's output descriptor: the convolution's output, or its input for Deconvolution.
  cudnnTensorDescriptor_t outDesc() const { return m_transposed ? m_x.get() : m_y.get(); }

  void plan(CudaDeviceContext& c, int64_t batch) {
    if (batch == m_batch) return;
    m_x.set(batch, m_convIn[0], m_convIn[1], m_convIn[2], m_format);
    m_y.set(batch, m_convOut[0], m_convOut[1], m_convOut[2], m_format);
    ConvProblem problem{m_x.get(), m_filter, m_conv, m_y.get(), batch * numel(m_convIn), m_filterCount,
                        batch * numel(m_convOut), m_deterministic,
                        format("input {} and output {}", shapeToString(m_convIn), shapeToString(m_convOut))};
    const ConvAlgorithms a = convAlgorithms(c, problem, format("batch {} {} storage {} {}", batch, m_key, storageName(m_format.storage),
                                                           m_format.layout == Layout::ChannelsLast ? "NHWC" : "NCHW"));
    m_fwdAlgo = a.forward;
    m_dataAlgo = a.backwardData;
    m_filterAlgo = a.backwardFilter;
    m_fwdBytes = a.forwardBytes;
    m_dataBytes = a.backwardDataBytes;
    m_filterBytes = a.backwardFilterBytes;
    m_batch = batch;
  }

  bool m_transposed;
  bool m_withBias = false;
  bool m_relu = false;  // Note [GPU fused epilogues]
  bool m_fusedCallWorks = true;  // cuDNN may refuse the fused call for an algorithm: then unfused
  cudnnActivationDescriptor_t m_reluDesc = nullptr;
  bool m_deterministic = false;
  Shape m_convIn, m_convOut;  // per sample (C, H, W)
  int64_t m_biasChannels = 0;
  int64_t m_filterCount = 0;
  std::array<int, 4> m_filterDims{};  // (K, C / group, kh, kw)
  TensorFormat m_format;
  Tensor m_w16, m_dw16;  // 16-bit activations: the weights' copy and the filter gradient for cuDNN
  std::string m_key;  // Note [cuDNN convolution algorithms]: the problem, less the batch size
  int64_t m_batch = -1;
  cudnnFilterDescriptor_t m_filter = nullptr;
  cudnnConvolutionDescriptor_t m_conv = nullptr;
  TensorDesc m_x, m_y, m_bias;  // the convolution's input and output, (1, K, 1, 1)
  cudnnConvolutionFwdAlgo_t m_fwdAlgo{};
  cudnnConvolutionBwdDataAlgo_t m_dataAlgo{};
  cudnnConvolutionBwdFilterAlgo_t m_filterAlgo{};
  size_t m_fwdBytes = 0, m_dataBytes = 0, m_filterBytes = 0;
};

}  // namespace

std::unique_ptr<Kernel> makeCudnnConvKernel(const KernelSetup& setup, bool transposed) {
  return std::make_unique<CudnnConvKernel>(setup, transposed);
}

}  // namespace netsmith::cuda
