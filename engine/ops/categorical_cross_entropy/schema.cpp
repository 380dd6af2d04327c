// CategoricalCrossEntropy: -log x[label] for a vector of class probabilities (a Softmax's output)
// and a class index (nnabla's CategoricalCrossEntropy; log(0) guarded as nnabla does, cuda_math.h).
#include <memory>

#include "engine/core/error.h"
#include "engine/op_interface/op_registry.h"

namespace netsmith::cpu {
std::unique_ptr<Kernel> makeCategoricalCrossEntropyKernel(const KernelSetup& setup);
}

namespace netsmith::ops {

void register_categorical_cross_entropy(OpRegistry& registry) {
  OpSchema s;
  s.name = "CategoricalCrossEntropy";
  s.category = "Loss";
  s.doc = "Classification loss: -log of the probability of the correct class, from a vector of C class "
          "probabilities per sample (already softmaxed: put a Softmax before it) and the class index from the "
          "dataset's label.";
  s.inputs = {"x"};
  s.lossTarget = LossTarget::ClassIndex;
  s.outputHead = OutputHead::Identity;  // Note [Output head]: the prediction is probabilities already
  s.prediction = LossPrediction::ClassProbabilities;
  // nnabla's axis counts the batch axis and defaults to the last; Netsmith's counts per-sample
  // axes, and a loss gives one value per sample from one class index, so the classes are the one
  // axis of a (C) vector: axis 0.
  s.params = {{.name = "axis", .type = ParamType::Int, .defaultValue = 0, .min = 0.0,
               .help = "the per-sample axis of the classes, not counting the batch axis; the input is a (C) vector "
                       "of probabilities, so 0"}};
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams& params) {
    const Shape& x = inputs.at(0);
    NS_CHECK(x.size() == 1,
             "CategoricalCrossEntropy expects one probability per class, a vector (C), but gets ({}): put a Softmax "
             "over an Affine with as many outputs as classes (or a Flatten) before it",
             shapeToString(x));
    NS_CHECK(params.integer("axis") == 0,
             "axis {} does not exist in the (C) input: the classes are axis 0 (per-sample axes, not counting the "
             "batch axis)",
             params.integer("axis"));
    NS_CHECK(x[0] >= 2, "CategoricalCrossEntropy gets {} class probability(ies): it needs 2 or more classes", x[0]);
    return Shape{1};
  };
  s.kernels["cpu"] = cpu::makeCategoricalCrossEntropyKernel;
  // Note [Op examples]: the main case and cases the tests that walk the registry add to it.
  s.examples = {
      {.name = "", .inputs = {{6}}, .params = Json::object()},
      {.name = "classes100", .inputs = {{100}}, .params = Json::object()},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
