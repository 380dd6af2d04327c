// OnnxModel: an ONNX file as plain C++ — its graph's nodes, attributes, initializers, input and
// output — read from the protobuf by onnx_reader.h and turned into a Netsmith network by
// onnx_importer.h. Kept free of protobuf (as the exporter's OnnxGraph is) so the conversion builds
// and is testable in the engine alone; only the reader needs Debian's libonnx-dev.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace netsmith::onnx_import {

// A constant tensor: float data (FLOAT, and FLOAT16/DOUBLE converted) or integer data (INT64,
// INT32, INT8, UINT8, BOOL as int64). dims empty: a scalar.
struct OnnxTensor {
  std::string name;
  std::vector<int64_t> dims;
  bool isFloat = true;
  std::vector<float> floats;
  std::vector<int64_t> ints;

  int64_t count() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
  // Element i as a double / an integer, whatever the storage.
  double real(int64_t i) const { return isFloat ? floats[static_cast<size_t>(i)] : static_cast<double>(ints[static_cast<size_t>(i)]); }
  int64_t integer(int64_t i) const { return isFloat ? static_cast<int64_t>(floats[static_cast<size_t>(i)]) : ints[static_cast<size_t>(i)]; }
};

struct OnnxAttr {
  enum class Kind { Int, Float, String, Ints, Floats, Tensor, Other };
  Kind kind = Kind::Other;
  int64_t i = 0;
  float f = 0;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<float> floats;
  std::vector<OnnxTensor> tensor;  // Kind::Tensor: one element (a vector so the struct stays copyable and small)
};

struct OnnxNodeDef {
  std::string name;    // may be empty in the file; the reader gives every node a name
  std::string opType;
  std::string domain;  // "" or "ai.onnx" for standard operators
  std::vector<std::string> inputs;   // "" for an omitted optional input
  std::vector<std::string> outputs;
  std::map<std::string, OnnxAttr> attributes;

  const OnnxAttr* attr(const std::string& key) const {
    const auto it = attributes.find(key);
    return it == attributes.end() ? nullptr : &it->second;
  }
};

// A graph input or output: its name, element type (ONNX's TensorProto data type number, 1 =
// FLOAT) and dims; a symbolic or unknown dimension is -1 with its name in `dimNames`.
struct OnnxValueInfo {
  std::string name;
  int elementType = 0;
  std::vector<int64_t> dims;
  std::vector<std::string> dimNames;
  bool hasShape = false;
};

struct OnnxModel {
  std::string path;        // the file, for messages
  int64_t opset = 0;       // the default domain's opset version
  int64_t irVersion = 0;
  std::string producer;    // "pytorch 1.13.1", "tf2onnx 1.9.3", "netsmith ..."
  std::string graphName;
  std::vector<OnnxValueInfo> inputs;   // without the initializers some exporters list as inputs
  std::vector<OnnxValueInfo> outputs;
  std::vector<OnnxTensor> initializers;
  std::vector<OnnxNodeDef> nodes;      // in the file's order (ONNX requires topological order)
  // The model's metadata_props: Netsmith's exporter writes netsmith.loss (the loss the network was
  // trained with), which the import appends again (Note [Imported output head]).
  std::map<std::string, std::string> metadata;
};

// The opsets the importer reads: the ones PyTorch's exporter, tf2onnx and the model zoo write.
inline constexpr int64_t kMinImportOpset = 7;
inline constexpr int64_t kMaxImportOpset = 18;

}  // namespace netsmith::onnx_import
