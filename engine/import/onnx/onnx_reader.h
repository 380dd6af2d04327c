// Reads an ONNX model file into an OnnxModel (onnx_model.h) with Debian's libonnx protobuf
// classes. Every problem is a netsmith::Error that names the file: not a file, not an ONNX model
// (protobuf cannot parse it), an opset outside kMinImportOpset..kMaxImportOpset, a tensor whose
// data does not match its dims, dims that are negative or too large, an external data file, a
// data type the importer does not read. Never a crash on a damaged file (tst_onnx_import_fuzz).
#pragma once

#include <string>

#include "engine/import/onnx/onnx_model.h"

namespace netsmith::onnx_import {

// False when this build has no libonnx (import then explains what to install).
bool onnxImportAvailable();

OnnxModel readOnnxModel(const std::string& path);

}  // namespace netsmith::onnx_import
