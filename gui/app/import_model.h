// File ▸ Import…: asks for an ONNX model and the project to write, and runs `netsmith-cli import`
// (the reader of ONNX files lives in the engine's command, docs/onnx-import.md).
#pragma once

#include <QString>

class QWidget;

namespace netsmith::gui {

// The project written, or an empty string when the person cancelled or the import failed (then a
// message box has said why, with the engine's message naming the node and op type).
QString importModelDialog(QWidget* parent, const QString& startFolder);

}  // namespace netsmith::gui
