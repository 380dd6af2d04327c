// The GUI's side of Note [Classifier head]: when the training data has another number of classes
// than the network's classifier head outputs, the replacement the engine makes (`netsmith-cli
// project set-classes`) offered as one undoable edit of the head's parameters.
#pragma once

#include <QString>
#include <optional>
#include <string>

#include "gui/document/project_document.h"

namespace netsmith::gui {

struct ClassCountFix {
  std::string nodeId;  // the head
  std::string type;    // Affine | Convolution | Deconvolution
  int64_t outputs = 0; // what the head outputs now
  int64_t classes = 0; // what the dataset has (DatasetShapeProbe)
};

// The head and the dataset's classes when they differ; nullopt when they agree, when the class
// count is not known yet (or the labels are not class indices), when the network has problems or
// no classifier head (a regression).
std::optional<ClassCountFix> classCountFix(const GraphDocument& graph);

// "The dataset has 3 classes but the network outputs 10 (head 'fc3', Affine)": the engine's words.
QString classCountFixText(const ClassCountFix& fix);

// Sets the head to fix.classes as the engine's setClassCount does (Affine's n_outmaps, a
// convolution's outmaps), pushed on the document's undo stack as one step. Returns the engine's
// refusal (the change would break the network), with nothing pushed; empty when done.
QString applyClassCountFix(ProjectDocument* doc, const ClassCountFix& fix);

}  // namespace netsmith::gui
