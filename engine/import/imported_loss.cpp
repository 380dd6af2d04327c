// Note [Classifier output recognised] (imported_loss.h).
#include "engine/import/imported_loss.h"

#include <algorithm>
#include <set>

#include "engine/core/error.h"

namespace netsmith {
namespace {

// Layers that pass values through unchanged (at inference), only reshaped: a classifier's scores
// may go through them after the layer that makes them (`x.view(N, -1)`, `nn.Dropout`).
const std::set<std::string>& reshapesOnly() {
  static const std::set<std::string> kTypes{"Flatten", "Reshape", "Dropout", "Identity"};
  return kTypes;
}

// Pooling to one value per channel: GlobalAveragePooling (GlobalAveragePool, ReduceMean over
// height and width), or a window over the whole map (GlobalMaxPool) giving (C, 1, 1).
bool poolsWholeMap(const ImportedLayerView& l) {
  const std::string& type = l.spec->type;
  if (type != "GlobalAveragePooling" && type != "MaxPooling" && type != "AveragePooling") return false;
  const Shape& s = *l.shape;
  return s.size() == 3 && s[1] == 1 && s[2] == 1;
}

bool isOneByOneConvolution(const ImportedLayerView& l) {
  if (l.spec->type != "Convolution") return false;
  const Json kernel = l.spec->params.value("kernel", Json());
  if (!kernel.is_array() || kernel.empty()) return false;
  return std::all_of(kernel.begin(), kernel.end(), [](const Json& k) { return k.is_number_integer() && k.get<int64_t>() == 1; });
}

// The only producer of `l`, when it has exactly one.
ImportedLayerView producerOf(const ImportedLayerView& l, const ImportedLayerLookup& layer) {
  if (l.inputs->size() != 1) return {};
  return layer(l.inputs->front());
}

std::string describeImportedLayer(const ImportedLayerView& l) { return format("{} '{}'", l.spec->type, l.spec->id); }

const char* kImportedRegressionHead = "SquaredError, whose output head is the identity, so infer gives the model's own output values";

}  // namespace

ImportedLossChoice chooseImportedLoss(const std::string& output, const ImportedLayerLookup& layer) {
  const ImportedLayerView last = layer(output);
  NS_CHECK(last.spec, "internal: no imported layer '{}'", output);
  const Shape& shape = *last.shape;
  const int64_t values = numel(shape);
  const bool vector = shape.size() == 1;
  const std::string type = last.spec->type;
  if (vector && last.inputs->size() == 1 && type == "Softmax")
    return {"SoftmaxCrossEntropy",
            format("the model ends in {} over {} classes: class probabilities, so SoftmaxCrossEntropy, with the Softmax as "
                   "its output head (infer still gives the probabilities)",
                   describeImportedLayer(last), values)};
  if (vector && last.inputs->size() == 1 && type == "Sigmoid")
    return {"SigmoidCrossEntropy",
            format("the model ends in {} over {} outputs: independent yes/no probabilities, so SigmoidCrossEntropy, with "
                   "the Sigmoid as its output head (infer still gives the probabilities)",
                   describeImportedLayer(last), values)};
  if (!vector)
    return {"SquaredError",
            format("the model's output has shape ({}) per sample (from {}), not a vector of class scores: {}", shapeToString(shape),
                   describeImportedLayer(last), kImportedRegressionHead)};
  if (values < 2)
    return {"SquaredError",
            format("the model's output is one value per sample (from {}), as a regression's: {}", describeImportedLayer(last),
                   kImportedRegressionHead)};

  // Back through the layers that only reshape, to the layer that makes the scores.
  ImportedLayerView maker = last;
  while (maker.spec && reshapesOnly().count(maker.spec->type)) maker = producerOf(maker, layer);
  if (maker.spec && maker.spec->type == "Affine")
    return {"SoftmaxCrossEntropy",
            format("the model ends in {} (a fully connected layer: ONNX Gemm or MatMul, PyTorch Linear) giving {} raw "
                   "scores per sample, as a classifier does: SoftmaxCrossEntropy trains it on class labels (infer then "
                   "gives the softmax of the scores)",
                   describeImportedLayer(maker), values)};
  if (maker.spec && poolsWholeMap(maker)) {
    ImportedLayerView conv = producerOf(maker, layer);
    // SqueezeNet: Conv 1x1, ReLU, global pooling.
    while (conv.spec && (conv.spec->type == "ReLU" || reshapesOnly().count(conv.spec->type))) conv = producerOf(conv, layer);
    if (conv.spec && isOneByOneConvolution(conv))
      return {"SoftmaxCrossEntropy",
              format("the model ends in a 1x1 {} and global pooling ({}) giving {} raw scores per sample, as a classifier "
                     "does (SqueezeNet's head): SoftmaxCrossEntropy trains it on class labels (infer then gives the "
                     "softmax of the scores)",
                     describeImportedLayer(conv), describeImportedLayer(maker), values)};
  }
  return {"SquaredError",
          format("the model's output ({} values per sample) comes from {}, not from a final fully connected layer or a "
                 "1x1 convolution with global pooling as a classifier's scores do: {}",
                 values, maker.spec ? describeImportedLayer(maker) : describeImportedLayer(last), kImportedRegressionHead)};
}

}  // namespace netsmith
