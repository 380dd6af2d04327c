// Deconvolution: the transpose of Convolution (nnabla's Deconvolution with base_axis 1).
// W is (inmaps, outmaps/group, kh, kw), b is (outmaps).
#include "engine/ops/convolution/conv_shape.h"
#include "engine/ops/convolution/cpu_conv_kernel.h"
#include "engine/op_interface/op_registry.h"

namespace netsmith::ops {

namespace {
int64_t deconvOutput(int64_t in, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation, const char* axis) {
  const int64_t out = (in - 1) * stride - 2 * pad + dilation * (kernel - 1) + 1;
  NS_CHECK(out >= 1,
           "Deconvolution output {} would be {} ((input {} - 1)×stride {} - 2×pad {} + dilation {}×(kernel {} - 1) "
           "+ 1): use less padding or a larger kernel",
           axis, out, in, stride, pad, dilation, kernel);
  return out;
}
}  // namespace

void register_deconvolution(OpRegistry& registry) {
  OpSchema s;
  s.name = "Deconvolution";
  s.category = "Basic";
  s.doc = "2-D transposed convolution (the gradient of Convolution), which enlarges a (channels, height, width) "
          "input; output size (in - 1)×stride - 2×pad + dilation×(kernel - 1) + 1.";
  s.inputs = {"x"};
  s.params = convParams("number of output maps");
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams& p) {
    const Shape& x = inputs.at(0);
    checkImageInput("Deconvolution", x);
    const int64_t outmaps = p.integer("outmaps");
    checkGroups("Deconvolution", x[0], outmaps, p.integer("group"));
    const auto k = p.ints("kernel"), pad = p.ints("pad"), stride = p.ints("stride"), dil = p.ints("dilation");
    return Shape{outmaps, deconvOutput(x[1], k[0], pad[0], stride[0], dil[0], "height"),
                 deconvOutput(x[2], k[1], pad[1], stride[1], dil[1], "width")};
  };
  s.parameterBlobs = [](const std::vector<Shape>& inputs, const OpParams& p) {
    const int64_t inmaps = inputs.at(0).at(0), outmaps = p.integer("outmaps"), group = p.integer("group");
    const auto k = p.ints("kernel");
    // nnabla: calc_uniform_lim_glorot(outmaps, inmaps, kernel), the roles of the maps swapped.
    std::vector<ParamBlob> blobs{
        {"W", Shape{inmaps, outmaps / group, k[0], k[1]}, Initializer::glorotUniform(outmaps * k[0] * k[1], inmaps)}};
    if (p.flag("with_bias")) blobs.push_back({"b", Shape{outmaps}, Initializer::constant(0.0f)});
    return blobs;
  };
  s.multiplyAdds = [](const std::vector<Shape>& inputs, const Shape&, const OpParams& p) {
    const auto k = p.ints("kernel");
    return numel(inputs.at(0)) * (p.integer("outmaps") / p.integer("group")) * k[0] * k[1];
  };
  s.kernels["cpu"] = [](const KernelSetup& setup) { return cpu::makeDeconvolutionKernel(setup); };
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "stride2_pad1_group2", .inputs = {{4, 5, 5}},
       .params = {{"outmaps", 6}, {"kernel", {3, 3}}, {"pad", {1, 1}}, {"stride", {2, 2}}, {"group", 2}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
