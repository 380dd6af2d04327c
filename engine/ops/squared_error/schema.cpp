// SquaredError: (x - t)^2 summed over each sample's elements.
#include "engine/backend/cpu/elementwise_loss_kernel.h"
#include "engine/op_interface/op_registry.h"

namespace netsmith::ops {
namespace {

struct SquaredErrorFormula {
  double loss(double x, double t) const { return (x - t) * (x - t); }
  double grad(double x, double t) const { return 2.0 * (x - t); }
};

}  // namespace

void register_squared_error(OpRegistry& registry) {
  OpSchema s;
  s.name = "SquaredError";
  s.category = "Loss";
  // nnabla's SquaredError is element-wise; a loss node here yields one value per sample, so the
  // elements are summed (a mean would make the loss depend on the output size).
  s.doc = "Squared error (x - t)^2 against a target of the same shape, summed over each sample's elements.";
  s.inputs = {"x"};
  s.lossTarget = LossTarget::SameAsPrediction;
  s.prediction = LossPrediction::Values;
  s.inferShape = [](const std::vector<Shape>&, const OpParams&) { return Shape{1}; };
  s.kernels["cpu"] = [](const KernelSetup&) {
    return cpu::makeElementwiseLossKernel("SquaredError", SquaredErrorFormula{});
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
