// The ONNX importer: an OnnxModel (onnx_model.h) becomes a Netsmith network and its initial
// parameters (Note [ONNX import]). Plain C++ on the op registry; the file is read by onnx_reader.h.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/import/onnx/onnx_model.h"
#include "engine/op_interface/op_registry.h"
#include "engine/project/project.h"

namespace netsmith::onnx_import {

// Note [ONNX import]
// Each ONNX node is, in file order (ONNX's topological order):
//   - folded, when all its inputs are constants (Note [Folded constants]): shape arithmetic,
//     constant subgraphs, Constant nodes;
//   - mapped to one Netsmith layer (Conv → Convolution, Gemm → Affine, MaxPool → MaxPooling, ...),
//     its initializers becoming the layer's blobs in Netsmith's layout (Gemm's B transposed into
//     Affine's W (inputs, outputs), alpha and beta multiplied in);
//   - merged into the layer before or after it where Netsmith has one layer for an ONNX pattern:
//     MatMul + Add of a constant → Affine with bias, Conv without bias + Add → Convolution with
//     bias, x · Sigmoid(x) → Swish, x · HardSigmoid(x; 1/6, 1/2) → HardSwish, Pad (zeros, both
//     sides alike) → the padding of the Convolution or AveragePooling reading it;
//   - an alias of its input (Identity, Dropout with ratio 0, a Reshape or Cast that changes
//     nothing);
//   - or an error naming the node and its op type, when no Netsmith layer computes it.
// The batch axis stays open: ONNX's axis 0 is the batch, every other axis is per sample, and an
// operator that mixes samples (a Reshape across the batch axis, a Concat on axis 0) is an error.
//
// Note [Imported output head]
// Netsmith networks end in a loss (DESIGN.md §5), so the importer appends one to the layer that
// computes the model's output, chosen so that `infer` gives that layer's values — the ONNX model's
// output — and training is possible:
//   - the model ends in Softmax over its classes: the Softmax becomes the output head of a
//     SoftmaxCrossEntropy loss (Note [Output head]), so inference still gives the probabilities and
//     fine-tuning trains the classifier on class labels (a Netsmith model exported and imported
//     again gets its own network back);
//   - it ends in Sigmoid: SigmoidCrossEntropy likewise;
//   - it ends in raw class scores, as PyTorch's classifiers do (a Gemm, or a 1x1 Conv and global
//     pooling: Note [Classifier output recognised], imported_loss.h): SoftmaxCrossEntropy, so
//     fine-tuning trains the classifier on class labels; infer then gives the softmax of the scores;
//   - anything else (one value per sample, a map): SquaredError, whose head is the identity, so
//     infer gives the raw values;
//   - a model Netsmith exported (its metadata netsmith.loss names the loss it trained with): that
//     loss, so a Netsmith model exported and imported again gets its own network back.
// --loss chooses another; the summary (ImportedNetwork::lossReason) says what was chosen and why.
struct ImportOptions {
  std::string loss = "auto";     // "auto" (above) or a loss layer type
  std::optional<Shape> inputShape;  // per sample; for a model whose input has symbolic dims
};

struct ImportedNetwork {
  NetworkSpec network;      // laid out top to bottom (network_layout.h)
  std::vector<std::pair<std::string, Tensor>> parameters;  // "node/blob", the network's blobs in graph order
  Shape inputShape;         // per sample
  std::string outputNode;   // the layer whose values are the model's output
  std::string loss;         // the loss layer type appended
  std::string lossReason;   // why that loss: what the output's layers were, or "given with --loss"
  int64_t opset = 0;
  std::string producer;
  std::vector<std::string> notes;  // what was folded, merged or dropped, for the summary
  int64_t foldedNodes = 0;
};

// Converts `model`. Error names the node and op type that has no Netsmith equivalent, or the input
// or setting that cannot be expressed; the network always passes buildGraph() when it returns.
ImportedNetwork importOnnx(const OnnxModel& model, const ImportOptions& options = {},
                           const OpRegistry& registry = OpRegistry::builtin());

}  // namespace netsmith::onnx_import
