// HuberLoss: squared error near the target, absolute error (times 2 delta) far from it.
#include <cmath>

#include "engine/backend/cpu/elementwise_loss_kernel.h"
#include "engine/core/error.h"
#include "engine/op_interface/op_registry.h"

namespace netsmith::ops {
namespace {

// nnabla's definition: d^2 for |d| < delta, delta (2 |d| - delta) otherwise, with d = x - t.
struct HuberFormula {
  double delta;
  double loss(double x, double t) const {
    const double d = std::fabs(x - t);
    return d < delta ? d * d : delta * (2.0 * d - delta);
  }
  double grad(double x, double t) const {
    const double d = x - t;
    if (std::fabs(d) < delta) return 2.0 * d;
    return d > 0 ? 2.0 * delta : -2.0 * delta;
  }
};

}  // namespace

void register_huber_loss(OpRegistry& registry) {
  OpSchema s;
  s.name = "HuberLoss";
  s.category = "Loss";
  s.doc = "Huber loss against a target of the same shape: d^2 for |d| < delta, delta (2|d| - delta) otherwise, "
          "with d = x - t; summed over each sample's elements. Less sensitive to outliers than SquaredError.";
  s.inputs = {"x"};
  s.params = {{.name = "delta", .type = ParamType::Float, .defaultValue = 1.0, .min = 0.0,
               .help = "distance from the target where the loss turns from quadratic to linear; > 0"}};
  s.lossTarget = LossTarget::SameAsPrediction;
  s.prediction = LossPrediction::Values;
  s.inferShape = [](const std::vector<Shape>&, const OpParams& params) {
    NS_CHECK(params.number("delta") > 0.0, "delta = 0 makes HuberLoss constant: choose a delta above 0");
    return Shape{1};
  };
  s.kernels["cpu"] = [](const KernelSetup& setup) {
    return cpu::makeElementwiseLossKernel("HuberLoss", HuberFormula{setup.params.number("delta")});
  };
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      // reaches the linear part too
      {.name = "delta0.2", .inputs = {{6}}, .params = {{"delta", 0.2}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
