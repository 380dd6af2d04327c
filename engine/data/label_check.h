// Labels checked against the network's loss once, when the data is loaded, rather than when a
// sample first reaches a batch (an epoch late for the validation set, with no file or row to name).
#pragma once

#include <cstdint>
#include <string>

#include "engine/data/dataset.h"

namespace netsmith {

struct Graph;

// What the loss accepts as a sample's label row: the rule of Note [Loss targets]
// (engine/train/network.cpp), where a batch's labels become the loss's target.
struct LabelRule {
  std::string loss;            // the loss layer, for messages: "SoftmaxCrossEntropy 'loss'"
  std::string prediction;      // the layer before it, for messages: "'fc3'"
  int64_t predictionSize = 0;  // values per sample of the prediction
  // The loss takes one class index per sample (SoftmaxCrossEntropy); otherwise it takes a target
  // of the prediction's size, or one class label that is one-hot encoded over the prediction.
  bool classIndex = false;
};

LabelRule labelRuleOf(const Graph& graph);

// Checks every label of `data` against `rule`. Labels of the wrong width for the loss are always
// an error (a fault of the whole file, or of the network). A row whose label the loss cannot take
// (a class index outside [0, classes), a value that is not finite) is an error naming the file,
// the row and what was expected; with onError "skip" such samples are left out and counted in
// the dataset's skipped-rows warning (skipSamples).
void checkLabels(Dataset& data, const LabelRule& rule, const std::string& onError);

}  // namespace netsmith
