// OnnxGraph: the exported model in plain C++ — ONNX nodes, attributes and initializers — built
// from a Graph by the per-layer mappings (onnx_layers.h) and turned into an onnx::ModelProto by
// onnx_writer.h. Kept free of protobuf so the mapping is testable in the engine alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/shape.h"

namespace netsmith {

// ONNX operator set the mappings target: every operator used means what opset 13 says.
// Note [Opset per model]: a model declares opset 13 unless one of its layers needs an operator
// that came later (LayerNormalization: 17), whose mapping raises OnnxGraph::opset. The
// operators the other mappings write mean the same in every opset up to 17 (14-17 only widened
// their types or added operators), so raising it changes nothing else; 18 would (ReduceMean's
// axes became an input), and no mapping asks for it.
constexpr int64_t kOnnxOpset = 13;
constexpr int64_t kOnnxMaxOpset = 17;

struct OnnxAttribute {
  enum class Kind { Int, Float, Ints, String };
  std::string name;
  Kind kind = Kind::Int;
  int64_t i = 0;
  float f = 0;
  std::vector<int64_t> ints;
  std::string s;

  static OnnxAttribute integer(std::string name, int64_t v) { return {std::move(name), Kind::Int, v, 0, {}, {}}; }
  static OnnxAttribute real(std::string name, float v) { return {std::move(name), Kind::Float, 0, v, {}, {}}; }
  static OnnxAttribute integers(std::string name, std::vector<int64_t> v) {
    return {std::move(name), Kind::Ints, 0, 0, std::move(v), {}};
  }
};

struct OnnxNode {
  std::string name;    // unique; the Netsmith layer id, with a suffix for a layer's extra nodes
  std::string opType;  // "Conv"
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<OnnxAttribute> attributes;
};

// A constant tensor: float data, or int64 data (shape operands of Reshape).
struct OnnxInitializer {
  std::string name;
  Shape dims;
  std::vector<float> floats;
  std::vector<int64_t> int64s;
  bool isInt64 = false;
};

struct OnnxGraph {
  std::string name;
  std::string inputName = "x";
  Shape inputShape;   // per sample; the batch axis is a symbolic "N"
  std::string outputName = "y";
  Shape outputShape;  // per sample
  std::vector<OnnxNode> nodes;  // in topological order
  std::vector<OnnxInitializer> initializers;
  std::vector<std::pair<std::string, std::string>> metadata;  // model metadata_props
  int64_t opset = kOnnxOpset;  // Note [Opset per model]
};

}  // namespace netsmith
