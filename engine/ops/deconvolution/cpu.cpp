// Deconvolution on oneDNN (Note [Conv layouts] in convolution/cpu_conv_kernel.h).
#include "engine/ops/convolution/cpu_conv_kernel.h"

namespace netsmith::cpu {

std::unique_ptr<Kernel> makeDeconvolutionKernel(const KernelSetup& setup) {
  const Shape& in = setup.inputShapes.at(0);
  const Shape& out = setup.outputShape;
  const OpParams& p = setup.params;
  const auto stride = p.ints("stride"), dilation = p.ints("dilation"), pad = p.ints("pad"), k = p.ints("kernel");
  const int64_t group = p.integer("group");
  ConvGeometry g;
  g.inC = in[0], g.inH = in[1], g.inW = in[2];
  g.outC = out[0], g.outH = out[1], g.outW = out[2];
  g.withBias = p.flag("with_bias");
  g.strides = {stride[0], stride[1]};
  g.dilates = {dilation[0] - 1, dilation[1] - 1};
  g.padding = {pad[0], pad[1]};
  // oneDNN's deconvolution weights are (OC, IC, kh, kw) with OC the output maps; nnabla's W is
  // (inmaps, outmaps/group, kh, kw), i.e. iohw, or giohw with groups.
  if (group == 1) {
    g.weightDims = {g.outC, g.inC, k[0], k[1]};
    g.weightTag = dnnl::memory::format_tag::iohw;
  } else {
    g.weightDims = {group, g.outC / group, g.inC / group, k[0], k[1]};
    g.weightTag = dnnl::memory::format_tag::giohw;
  }
  using K = ConvKernel<dnnl::deconvolution_forward, dnnl::deconvolution_backward_data,
                       dnnl::deconvolution_backward_weights>;
  return std::make_unique<K>(g, dnnl::algorithm::deconvolution_direct);
}

}  // namespace netsmith::cpu
