// The loss an import appends to a network that has none (Note [Imported output head],
// onnx_importer.h): chosen from the layers that compute the model's output, with the sentence that
// says why, for the CLI's summary and the console's import dialog. Both importers (ONNX, nnabla)
// use it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/core/shape.h"
#include "engine/project/project.h"

namespace netsmith {

// One layer an import has made, as the choice reads it.
struct ImportedLayerView {
  const NodeSpec* spec = nullptr;                 // id, type, params (as given, defaults not filled)
  const std::vector<std::string>* inputs = nullptr;  // producer ids, in port order
  const Shape* shape = nullptr;                   // per-sample output
};

// The layer with this id; spec null when there is none.
using ImportedLayerLookup = std::function<ImportedLayerView(const std::string& id)>;

struct ImportedLossChoice {
  std::string loss;    // a loss layer type: SoftmaxCrossEntropy, SigmoidCrossEntropy or SquaredError
  std::string reason;  // one sentence: what the output's layers are, so why this loss
};

// Note [Classifier output recognised]
// What the layers that compute the model's output (the layer `output` and those before it) say
// about the values per sample:
//   - a final Softmax of a vector: class probabilities, SoftmaxCrossEntropy (the Softmax becomes
//     its output head); a final Sigmoid of a vector: SigmoidCrossEntropy likewise;
//   - K >= 2 raw scores per sample, a vector, made by a final Affine (ONNX's Gemm or MatMul,
//     PyTorch's Linear) or by a 1x1 Convolution then global pooling over height and width
//     (SqueezeNet's head; a ReLU may sit between them), with only Flatten, Reshape or Dropout
//     after it: a classifier as PyTorch's end, SoftmaxCrossEntropy (infer then gives the softmax
//     of the scores);
//   - anything else (one value per sample, a map, a vector from another layer): a regression,
//     SquaredError, whose identity head keeps infer's values as the model's.
// The choice is a guess from the shape of the network: a box regressor may end in an Affine of
// 4; so the import says what it saw and how to choose another loss (--loss, the import dialog).
ImportedLossChoice chooseImportedLoss(const std::string& output, const ImportedLayerLookup& layer);

}  // namespace netsmith
