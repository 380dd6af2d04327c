// BinaryCrossEntropy: cross-entropy of probabilities against a target.
#include <algorithm>
#include <cmath>

#include "engine/backend/cpu/elementwise_loss_kernel.h"
#include "engine/op_interface/op_registry.h"

namespace netsmith::ops {
namespace {

// A probability of exactly 0 or 1 (a saturated Sigmoid in float32) would give log(0); it is
// clamped to [eps, 1 - eps]. The gradient is taken at the clamped value rather than being 0
// there, so a saturated prediction that is wrong still gets pushed back.
struct BinaryCrossEntropyFormula {
  static constexpr double kEps = 1e-7;
  double loss(double x, double t) const {
    const double p = std::clamp(x, kEps, 1.0 - kEps);
    return -(t * std::log(p) + (1.0 - t) * std::log(1.0 - p));
  }
  double grad(double x, double t) const {
    const double p = std::clamp(x, kEps, 1.0 - kEps);
    return (p - t) / (p * (1.0 - p));
  }
};

}  // namespace

void register_binary_cross_entropy(OpRegistry& registry) {
  OpSchema s;
  s.name = "BinaryCrossEntropy";
  s.category = "Loss";
  s.doc = "Cross-entropy between probabilities x in (0, 1) (e.g. a Sigmoid output) and a target in [0, 1] of the "
          "same shape: -(t log x + (1 - t) log(1 - x)), summed over each sample's elements.";
  s.inputs = {"x"};
  s.lossTarget = LossTarget::SameAsPrediction;
  s.prediction = LossPrediction::LabelProbabilities;
  s.inferShape = [](const std::vector<Shape>&, const OpParams&) { return Shape{1}; };
  s.kernels["cpu"] = [](const KernelSetup&) {
    return cpu::makeElementwiseLossKernel("BinaryCrossEntropy", BinaryCrossEntropyFormula{});
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
