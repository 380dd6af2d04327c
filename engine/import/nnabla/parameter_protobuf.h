// nnabla's binary parameter file (parameter.protobuf in a .nnp): an NNablaProtoBuf message whose
// `parameter` entries (field 200) are Parameter { variable_name = 1; Shape shape = 20 (Shape {
// repeated int64 dim = 1 }); repeated float data = 100; bool need_grad = 101 }, field numbers as
// nnabla's nnabla.proto gives them. Decoded by hand from the wire format, every length checked.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace netsmith::nnabla_import {

struct NnablaParameter {
  std::string name;            // the variable's name: "conv1/conv/W"
  std::vector<int64_t> dims;
  std::vector<float> values;   // row-major, as many as dims multiply to
  bool needGrad = true;
  std::string origin;          // where it was read, for messages: "model.nnp: parameter.protobuf"
};

// Decodes `bytes` (`origin` names them in errors: "FILE: member 'parameter.protobuf'"). Fields other
// than `parameter` are skipped. Error names the origin, the parameter and what is wrong: a length
// past the end, a wire type that cannot be, a value count that is not the product of the dims.
std::vector<NnablaParameter> decodeParameterProtobuf(std::string_view bytes, const std::string& origin);

}  // namespace netsmith::nnabla_import
