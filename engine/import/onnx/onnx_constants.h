// Constant folding for the ONNX importer (Note [Folded constants]): the shape arithmetic that
// exporters write around Reshape (Shape → Gather → Unsqueeze → Concat) and any other operator
// whose inputs are all constants is computed at import time, so the network keeps only layers.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "engine/import/onnx/onnx_model.h"

namespace netsmith::onnx_import {

// Note [Folded constants]
// A Shape of a layer's output is known at import time except for its batch axis, which Netsmith
// leaves open: that element is kBatchDim. It travels through Gather, Unsqueeze, Squeeze, Concat,
// Slice, Cast to an integer type, Identity, and multiplication or division by 1, so that
// `x.view(x.size(0), -1)` arrives at Reshape as (kBatchDim, -1): "keep the batch axis". Any other
// arithmetic on it is an error naming the node: the value would depend on the batch size.
inline constexpr int64_t kBatchDim = std::numeric_limits<int64_t>::min() + 1;

// True when foldConstant() computes `opType` (on constant inputs).
bool canFoldConstant(const std::string& opType);

// The outputs of node `n` whose inputs are all constants (a null entry: an omitted optional
// input). Error names the node and says what it cannot compute.
std::vector<OnnxTensor> foldConstant(const OnnxNodeDef& n, const std::vector<const OnnxTensor*>& inputs, int64_t opset);

// A Shape node applied to a tensor of full shape `dims` (the batch axis as kBatchDim).
OnnxTensor shapeTensor(const OnnxNodeDef& n, const std::vector<int64_t>& dims);

// "3, 224, 224" with the batch axis shown as N.
std::string dimsText(const std::vector<int64_t>& dims);

}  // namespace netsmith::onnx_import
