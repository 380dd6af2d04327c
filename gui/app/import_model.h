// File ▸ Import…: asks for an ONNX model or NNC file, the loss to end in (ImportLossDialog,
// preselected by what `netsmith-cli import --dry-run` recognised) and the project to write, and
// runs `netsmith-cli import` (the reader of ONNX files lives in the engine's command,
// docs/onnx-import.md).
#pragma once

#include <QString>

class QWidget;

namespace netsmith::gui {

// What the import would make of `model` (`netsmith-cli import MODEL --dry-run --json`).
struct ImportPreview {
  bool ok = false;
  QString error;       // the engine's message (naming the node and op type) when !ok
  QString loss;        // the loss it chooses
  QString lossReason;  // why (Note [Classifier output recognised])
};
// Blocks (with a wait cursor) until the engine has read the model.
ImportPreview previewImport(const QString& model);

// Imports `model` as `project` (replacing it) ending in `loss` (empty: the loss the import
// chooses). Returns the project written, or an empty string after a message box that says why.
QString runImport(QWidget* parent, const QString& model, const QString& project, const QString& loss);

// The whole dialog: the project written, or an empty string when the person cancelled or the
// import failed (then a message box has said why, with the engine's message naming the node and
// op type).
QString importModelDialog(QWidget* parent, const QString& startFolder);

}  // namespace netsmith::gui
