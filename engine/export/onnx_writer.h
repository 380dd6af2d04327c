// Writes an OnnxGraph as an ONNX model file (onnx::ModelProto from Debian's libonnx-dev, IR
// version 7 or 8, the graph's opset: Note [Opset per model]) and runs ONNX's own checker on it before the file appears.
#pragma once

#include <string>

#include "engine/export/onnx_graph.h"

namespace netsmith {

// False when this build has no libonnx (export then explains what to install).
bool onnxExportAvailable();

// Serialises `graph` to `path` atomically (temporary file, rename). Error names the path, or
// the checker's complaint.
void writeOnnxModel(const OnnxGraph& graph, const std::string& path);

}  // namespace netsmith
