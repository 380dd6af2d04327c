// KLDivergence: the Kullback-Leibler divergence of a predicted distribution from a target one
// (nnabla's KLMultinomial).
#include "engine/backend/cpu/elementwise_loss_kernel.h"
#include "engine/ops/kl_divergence/cuda_math.h"
#include "engine/op_interface/op_registry.h"

namespace netsmith::ops {

void register_kl_divergence(OpRegistry& registry) {
  OpSchema s;
  s.name = "KLDivergence";
  s.aliases = {"KLMultinomial"};
  s.category = "Loss";
  s.doc = "Kullback-Leibler divergence sum t (log t - log x) of probabilities x (e.g. a Softmax output) from a "
          "target distribution t of the same shape (a class label is one-hot encoded), per sample.";
  s.inputs = {"x"};
  s.lossTarget = LossTarget::SameAsPrediction;
  s.prediction = LossPrediction::ClassProbabilities;
  s.inferShape = [](const std::vector<Shape>&, const OpParams&) { return Shape{1}; };
  s.kernels["cpu"] = [](const KernelSetup&) {
    return cpu::makeElementwiseLossKernel("KLDivergence", cuda::KLDivergenceFormula{});
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
