// Convolution: 2-D convolution with optional groups, padding, stride and dilation (nnabla's
// Convolution with base_axis 1). W is (outmaps, inmaps/group, kh, kw), b is (outmaps).
#include "engine/ops/convolution/conv_shape.h"
#include "engine/ops/convolution/cpu_conv_kernel.h"
#include "engine/op_interface/op_registry.h"
#include "engine/op_interface/shape_rules.h"

namespace netsmith::ops {

void register_convolution(OpRegistry& registry) {
  OpSchema s;
  s.name = "Convolution";
  s.category = "Basic";
  s.doc = "2-D convolution of a (channels, height, width) input with outmaps learned kernels, plus a bias.";
  s.inputs = {"x"};
  s.params = convParams("number of output maps (filters)");
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams& p) {
    const Shape& x = inputs.at(0);
    checkImageInput("Convolution", x);
    const int64_t outmaps = p.integer("outmaps");
    checkGroups("Convolution", x[0], outmaps, p.integer("group"));
    const auto k = p.ints("kernel"), pad = p.ints("pad"), stride = p.ints("stride"), dil = p.ints("dilation");
    return Shape{outmaps, windowOutput(x[1], k[0], pad[0], stride[0], dil[0], "height"),
                 windowOutput(x[2], k[1], pad[1], stride[1], dil[1], "width")};
  };
  s.parameterBlobs = [](const std::vector<Shape>& inputs, const OpParams& p) {
    const int64_t inmaps = inputs.at(0).at(0), outmaps = p.integer("outmaps"), group = p.integer("group");
    const auto k = p.ints("kernel");
    // nnabla's calc_uniform_lim_glorot(inmaps, outmaps, kernel) takes all input maps, not inmaps/group.
    std::vector<ParamBlob> blobs{
        {"W", Shape{outmaps, inmaps / group, k[0], k[1]}, Initializer::glorotUniform(inmaps * k[0] * k[1], outmaps)}};
    if (p.flag("with_bias")) blobs.push_back({"b", Shape{outmaps}, Initializer::constant(0.0f)});
    return blobs;
  };
  s.multiplyAdds = [](const std::vector<Shape>& inputs, const Shape& out, const OpParams& p) {
    const auto k = p.ints("kernel");
    return numel(out) * (inputs.at(0).at(0) / p.integer("group")) * k[0] * k[1];
  };
  s.kernels["cpu"] = [](const KernelSetup& setup) { return cpu::makeConvolutionKernel(setup); };
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "stride2_pad1_dil2_group2", .inputs = {{4, 9, 9}},
       .params = {{"outmaps", 6}, {"kernel", {3, 3}}, {"pad", {1, 1}}, {"stride", {2, 2}}, {"dilation", {2, 2}},
                  {"group", 2}}},
      {.name = "nobias", .inputs = {{3, 8, 8}}, .params = {{"outmaps", 4}, {"with_bias", false}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
