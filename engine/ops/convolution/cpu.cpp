// Convolution on oneDNN (Note [Conv layouts] in cpu_conv_kernel.h).
#include "engine/ops/convolution/cpu_conv_kernel.h"

namespace netsmith::cpu {

std::unique_ptr<Kernel> makeConvolutionKernel(const KernelSetup& setup) {
  const auto k = setup.params.ints("kernel");
  const int64_t group = setup.params.integer("group");
  ConvGeometry g = convGeometryOf(setup);
  if (group == 1) {
    g.weightDims = {g.outC, g.inC, k[0], k[1]};
    g.weightTag = dnnl::memory::format_tag::oihw;
  } else {
    g.weightDims = {group, g.outC / group, g.inC / group, k[0], k[1]};
    g.weightTag = dnnl::memory::format_tag::goihw;
  }
  using K = ConvKernel<dnnl::convolution_forward, dnnl::convolution_backward_data, dnnl::convolution_backward_weights>;
  return std::make_unique<K>(g, dnnl::algorithm::convolution_direct, computeType(cpuContext(setup.device).precision()));
}

}  // namespace netsmith::cpu
