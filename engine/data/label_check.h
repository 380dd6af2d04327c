// Labels checked against the network's loss once, when the data is loaded, rather than when a
// sample first reaches a batch (an epoch late for the validation set, with no file or row to name).
#pragma once

#include <cstdint>
#include <string>

#include "engine/data/dataset.h"

namespace netsmith {

struct Graph;

// What the loss accepts as a sample's label row: the rule of Note [Loss targets]
// (engine/model/network.cpp), where a batch's labels become the loss's target.
struct LabelRule {
  std::string loss;            // the loss layer, for messages: "SoftmaxCrossEntropy 'loss'"
  std::string prediction;      // the layer before it, for messages: "'fc3'"
  int64_t predictionSize = 0;  // values per sample of the prediction
  // The loss takes one class index per sample (SoftmaxCrossEntropy); otherwise it takes a target
  // of the prediction's size, or one class label that is one-hot encoded over the prediction.
  bool classIndex = false;
  // The loss compares values (LossPrediction::Values: SquaredError, AbsoluteError, HuberLoss...).
  bool regression = false;
};

LabelRule labelRuleOf(const Graph& graph);

// Checks every label of `data` against `rule`. Labels of the wrong width for the loss are always
// an error (a fault of the whole file, or of the network). A row whose label the loss cannot take
// (a class index outside [0, classes), a value that is not finite) is an error naming the file,
// the row and what was expected; with onError "skip" such samples are left out and counted in
// the dataset's skipped-rows warning (skipSamples).
void checkLabels(Dataset& data, const LabelRule& rule, const std::string& onError);

// Note [Regression loss on class labels]
// A regression loss trains on class labels when the dataset gives one class index per sample and
// the prediction has several values: the trainer one-hot encodes each label (Note [Loss targets])
// and the loss fits those 0s and 1s value by value. It runs, but it is not how a classifier learns
// (an imported classifier that kept the SquaredError of an older import, a loss block left as it
// was). The plan's warning says what it saw (the loss, the labels' file and classes, the outputs)
// and suggests SoftmaxCrossEntropy; empty when the loss is not a regression's, the labels are
// vectors, or the prediction is one value.
std::string regressionLossOnClassLabels(const Dataset& data, const LabelRule& rule);

}  // namespace netsmith
