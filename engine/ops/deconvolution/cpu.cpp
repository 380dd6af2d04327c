// Deconvolution on oneDNN (Note [Conv layouts] in convolution/cpu_conv_kernel.h).
#include "engine/ops/convolution/cpu_conv_kernel.h"

namespace netsmith::cpu {

std::unique_ptr<Kernel> makeDeconvolutionKernel(const KernelSetup& setup) {
  const auto k = setup.params.ints("kernel");
  const int64_t group = setup.params.integer("group");
  ConvGeometry g = convGeometryOf(setup);
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
  return std::make_unique<K>(g, dnnl::algorithm::deconvolution_direct, computeType(cpuContext(setup.device).precision()));
}

}  // namespace netsmith::cpu
