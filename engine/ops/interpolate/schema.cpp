// Interpolate: resizes the last two axes, nearest or bilinear (nnabla's Interpolate; coordinates in
// Note [Interpolate coordinates]).
#include <memory>

#include "engine/backend/cpu/parallel_for.h"
#include "engine/ops/interpolate/interpolate_shape.h"
#include "engine/op_interface/op_registry.h"

namespace netsmith::cpu {
namespace {

class InterpolateKernel final : public Kernel {
 public:
  explicit InterpolateKernel(ops::InterpolateGeometry g) : m_g(g) {}

  void forward(KernelCall& call) override {
    const cuda::interp::body::InterpolateForward f{m_g.h, m_g.w};
    const float* x = call.inputs[0]->data();
    float* y = call.output.data();
    parallelFor(call.output.size(), [&](int64_t i) { f(i, x, y); });
  }

  void backward(KernelCall& call) override {
    Tensor* dx = call.inputGrads[0];
    if (!dx) return;
    const cuda::interp::body::InterpolateBackward f{m_g.h, m_g.w};
    const float* dy = call.outputGrad->data();
    float* out = dx->data();
    parallelFor(dx->size(), [&](int64_t j) { f(j, dy, out); });
  }

 private:
  ops::InterpolateGeometry m_g;
};

}  // namespace
}  // namespace netsmith::cpu

namespace netsmith::ops {

void register_interpolate(OpRegistry& registry) {
  OpSchema s;
  s.name = "Interpolate";
  s.category = "Shape";
  s.doc = "Resizes the last two axes (height, width) to output_size, or by scale, with bilinear (mode linear) "
          "or nearest-neighbour interpolation; align_corners and half_pixel place the samples as nnabla does.";
  s.inputs = {"x"};
  s.params = {{.name = "output_size", .type = ParamType::Ints, .defaultValue = Json::array({0, 0}), .min = 0.0,
               .length = 2, .help = "output height and width; 0,0 takes them from scale"},
              {.name = "scale", .type = ParamType::Float, .defaultValue = 2.0, .min = 0.0,
               .help = "factor on height and width (rounded down) when output_size is 0,0"},
              {.name = "mode", .type = ParamType::String, .defaultValue = "linear", .choices = {"linear", "nearest"},
               .help = "linear: bilinear interpolation; nearest: the nearest input value"},
              {.name = "align_corners", .type = ParamType::Bool, .defaultValue = true,
               .help = "linear: the corner values of input and output coincide (must be false for nearest)"},
              {.name = "half_pixel", .type = ParamType::Bool, .defaultValue = false,
               .help = "sample at pixel centres (o + 0.5) instead of pixel corners"}};
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams& params) {
    return interpolatedShape(inputs.at(0), params);
  };
  s.multiplyAdds = [](const std::vector<Shape>&, const Shape& out, const OpParams& p) {
    return numel(out) * (p.text("mode") == "linear" ? 4 : 0);
  };
  s.kernels["cpu"] = [](const KernelSetup& setup) -> std::unique_ptr<Kernel> {
    return std::make_unique<cpu::InterpolateKernel>(interpolateGeometry(setup.inputShapes.at(0), setup.params));
  };
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "half_pixel_down", .inputs = {{2, 7, 6}}, .params = {{"output_size", {4, 5}}, {"align_corners", false}, {"half_pixel", true}}},
      {.name = "asymmetric_up", .inputs = {{2, 4, 5}}, .params = {{"output_size", {7, 9}}, {"align_corners", false}}},
      {.name = "corners_down", .inputs = {{2, 7, 6}}, .params = {{"output_size", {3, 4}}}},
      {.name = "nearest_up", .inputs = {{2, 4, 5}}, .params = {{"mode", "nearest"}, {"align_corners", false}, {"output_size", {8, 7}}}},
      {.name = "nearest_half_pixel_down", .inputs = {{2, 7, 6}}, .params = {{"mode", "nearest"}, {"align_corners", false}, {"half_pixel", true}, {"output_size", {3, 4}}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
