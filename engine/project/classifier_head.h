// The classifier head of a network: the layer whose output count is the number of classes, and
// setting it to another count (issue 18 item 5: a model fine-tuned on a dataset with other
// classes). netsmith-cli train and `project set-classes`, and the GUI's Config page, use it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/project/graph.h"
#include "engine/project/project.h"

namespace netsmith {

// Note [Classifier head]
// A classification loss (one class index per sample, or one-hot labels over the prediction)
// reads one value per class. The head is the Affine, Convolution or Deconvolution that makes
// those values: the layer before the loss, or before the parameterless one-input layers between
// them (Softmax, Flatten, GlobalAveragePooling, Dropout, Reshape... as in SqueezeNet's conv head).
// Its output count (Affine's n_outmaps, a convolution's outmaps) must equal the prediction's
// values per sample, so that changing it changes the number of classes. Setting it to N writes
// n_outmaps [N] or outmaps N; with config.initial_parameters its weights then have another shape
// than the file's and are re-initialised and reported (Note [Initial parameters]).
struct ClassifierHead {
  std::string nodeId;
  std::string type;     // Affine | Convolution | Deconvolution
  int specIndex = 0;    // in NetworkSpec::nodes
  int64_t outputs = 0;  // the prediction's values per sample: the classes the network tells apart
};

// The head of `graph`, or nullopt when its loss is not a classification loss (a regression) or
// no such layer makes the prediction.
std::optional<ClassifierHead> findClassifierHead(const Graph& graph);

// Sets the head's output count to `classes` in `project` (its NetworkSpec): Error when the
// network has no head, or classes < 2. Returns the head as it was.
ClassifierHead setClassCount(Project& project, int64_t classes);

// "The dataset has 5 classes but the network outputs 10 (head 'fc3', Affine)"; empty when they agree.
std::string classCountMismatch(const ClassifierHead& head, int64_t datasetClasses);

// What training says about the dataset's classes against the head (netsmith-cli train, the
// GUI's plan): `message` is empty when they agree or there is no head; `fatal` when the dataset
// has more classes than the network has outputs (its labels cannot be trained), else a warning.
// The message names the command that sets the head.
struct ClassCountCheck {
  std::string message;
  bool fatal = false;
};
ClassCountCheck checkClassCount(const Graph& graph, int64_t datasetClasses, const std::string& projectPath);

}  // namespace netsmith
