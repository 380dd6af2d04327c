// SigmoidCrossEntropy: binary cross-entropy of sigmoid(x) against a target, from logits.
#include <algorithm>
#include <cmath>

#include "engine/backend/cpu/elementwise_loss_kernel.h"
#include "engine/op_interface/op_registry.h"

namespace netsmith::ops {
namespace {

// -(t log s + (1 - t) log(1 - s)) with s = sigmoid(x), rewritten as max(x, 0) - x t + log(1 + exp(-|x|))
// so that no exp overflows and no log sees 0, however large |x| is.
struct SigmoidCrossEntropyFormula {
  double loss(double x, double t) const { return std::max(x, 0.0) - x * t + std::log1p(std::exp(-std::fabs(x))); }
  double grad(double x, double t) const {
    const double e = std::exp(-std::fabs(x));
    const double sigmoid = x >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
    return sigmoid - t;
  }
};

}  // namespace

void register_sigmoid_cross_entropy(OpRegistry& registry) {
  OpSchema s;
  s.name = "SigmoidCrossEntropy";
  s.category = "Loss";
  s.doc = "Cross-entropy between sigmoid(x) and a target in [0, 1] of the same shape, computed from the logits x "
          "in a numerically stable way; summed over each sample's elements.";
  s.inputs = {"x"};
  s.lossTarget = LossTarget::SameAsPrediction;
  s.outputHead = OutputHead::Sigmoid;  // Note [Output head]
  s.prediction = LossPrediction::LabelLogits;
  s.inferShape = [](const std::vector<Shape>&, const OpParams&) { return Shape{1}; };
  s.kernels["cpu"] = [](const KernelSetup&) {
    return cpu::makeElementwiseLossKernel("SigmoidCrossEntropy", SigmoidCrossEntropyFormula{});
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
