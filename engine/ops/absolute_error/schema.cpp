// AbsoluteError: |x - t| summed over each sample's elements (nnabla's AbsoluteError).
#include "engine/backend/cpu/elementwise_loss_kernel.h"
#include "engine/ops/absolute_error/cuda_math.h"
#include "engine/op_interface/op_registry.h"

namespace netsmith::ops {

void register_absolute_error(OpRegistry& registry) {
  OpSchema s;
  s.name = "AbsoluteError";
  s.category = "Loss";
  // nnabla's AbsoluteError is element-wise; a loss node here yields one value per sample, so the
  // elements are summed (as SquaredError's are).
  s.doc = "Absolute error |x - t| against a target of the same shape, summed over each sample's elements "
          "(a regression loss less swayed by outliers than SquaredError).";
  s.inputs = {"x"};
  s.lossTarget = LossTarget::SameAsPrediction;
  s.prediction = LossPrediction::Values;
  s.inferShape = [](const std::vector<Shape>&, const OpParams&) { return Shape{1}; };
  s.kernels["cpu"] = [](const KernelSetup&) {
    return cpu::makeElementwiseLossKernel("AbsoluteError", cuda::AbsoluteErrorFormula{});
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
