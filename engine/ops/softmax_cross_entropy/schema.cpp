// SoftmaxCrossEntropy: -log softmax(x)[label] for a vector of class scores and a class index.
#include <memory>

#include "engine/core/error.h"
#include "engine/op_interface/op_registry.h"

namespace netsmith::cpu {
std::unique_ptr<Kernel> makeSoftmaxCrossEntropyKernel(const KernelSetup& setup);
}

namespace netsmith::ops {

void register_softmax_cross_entropy(OpRegistry& registry) {
  OpSchema s;
  s.name = "SoftmaxCrossEntropy";
  s.category = "Loss";
  s.doc = "Classification loss: -log of the softmax probability of the correct class, from a vector of C class "
          "scores (logits) per sample and the class index from the dataset's label.";
  s.inputs = {"x"};
  s.lossTarget = LossTarget::ClassIndex;
  s.outputHead = OutputHead::Softmax;  // Note [Output head]
  s.prediction = LossPrediction::ClassScores;
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams&) {
    const Shape& x = inputs.at(0);
    NS_CHECK(x.size() == 1,
             "SoftmaxCrossEntropy expects one score per class, a vector (C), but gets ({}): put an Affine with "
             "as many outputs as classes (or a Flatten) before it",
             shapeToString(x));
    NS_CHECK(x[0] >= 2, "SoftmaxCrossEntropy gets {} class score(s): it needs 2 or more classes", x[0]);
    return Shape{1};
  };
  s.kernels["cpu"] = cpu::makeSoftmaxCrossEntropyKernel;
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "classes100", .inputs = {{100}}, .params = Json::object()},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
