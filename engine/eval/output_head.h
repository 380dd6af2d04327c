// Note [Output head] (engine/op_interface/op_schema.h): what a trained network's output means once the
// loss is taken away. Each loss declares it in its own folder (OpSchema::outputHead and
// OpSchema::prediction): SoftmaxCrossEntropy → softmax over the prediction (class likelihoods),
// SigmoidCrossEntropy → sigmoid per element, every other loss (BinaryCrossEntropy, KLDivergence
// and CategoricalCrossEntropy read probabilities already; SquaredError, HuberLoss, AbsoluteError)
// → the prediction as it is. evaluate, infer and the ONNX export all use this one rule, so their
// numbers agree.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "engine/project/graph.h"

namespace netsmith {

OutputHead outputHeadOf(const Graph& graph);

// "softmax", "sigmoid" or "identity": the head's name in reports and infer's JSON.
const char* outputHeadName(OutputHead head);

// Writes the head of one sample's prediction `in` into `out` (same length).
void applyOutputHead(OutputHead head, std::span<const float> in, std::span<float> out);

// How a network's outputs are read as classes.
struct ClassReading {
  bool classification = false;  // false: regression (values, no classes)
  int64_t classes = 0;          // number of classes when classification
  bool binary = false;          // one output read as class 1 when its likelihood exceeds 0.5
  std::string why;              // when not classification: why, for messages
};

// From the loss's OpSchema::prediction. Multi-class: C > 1 class scores or probabilities read by
// arg-max. Binary: one value (under a per-label loss, or a class loss given one output). A
// per-label loss over several outputs is multi-label and a regression loss has no classes: both
// are not classification, and `why` says so.
ClassReading classReadingOf(const Graph& graph);

// The class a likelihood row stands for (arg-max; the first of equal values; binary: > 0.5).
int64_t predictedClass(const ClassReading& reading, std::span<const float> likelihoods);

// Likelihood of class c in a row (binary: class 0 is 1 - p).
double classLikelihood(const ClassReading& reading, std::span<const float> likelihoods, int64_t c);

}  // namespace netsmith
