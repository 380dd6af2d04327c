// The Neural Network Console / nnabla importer: the training network of an NnablaFile
// (nnabla_file.h) becomes a Netsmith network, its parameters (when the file holds them) and the
// settings that map (Note [NNabla import]).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/import/nnabla/nnabla_file.h"
#include "engine/import/onnx/onnx_importer.h"
#include "engine/op_interface/op_registry.h"
#include "engine/project/project.h"

namespace netsmith::nnabla_import {

// Note [NNabla import]
// Which network: --network NAME, else the optimizer's network (NNC's "Main", the training
// network), else the executor's ("MainRuntime"), else the file's only network. Its repeat blocks
// are expanded (Note [Repeat expansion]), its functions put in dependency order, and each becomes
// one Netsmith layer of the same name with nnabla's arguments (the layer types and parameter
// names are nnabla's, so the mapping is mostly one to one; axis arguments lose the batch axis);
// parameters are the function's inputs by position (Affine's W and b, BatchNormalization's beta,
// gamma, mean, var), so their names do not matter. Every function's output shape is checked
// against the shape the file declares for its variable. The variable that no function computes
// and that is not a loss's target is the Input. A loss function becomes the network's loss (one
// at most); a network without one (an executor's) ends as Note [Imported output head] says. A
// function type with no Netsmith layer (RandomFlip, ImageAugmentation, Delay, ...) is an error
// naming the function and its type, and nothing is written.
struct NnablaImportOptions {
  std::string loss = "auto";  // "auto": the file's loss, else Note [Imported output head]; or a loss type
  std::string network;        // empty: chosen as above
};

struct NnablaImport {
  onnx_import::ImportedNetwork network;  // parameters empty when the file holds none
  std::string networkName;
  int64_t functions = 0;                  // after repeat expansion (RepeatStart/End not counted)
  int64_t sourceTrainableParameters = 0;  // in the file's network (BatchNormalization's mean and var not counted)
  int64_t trainableParameters = 0;        // in the imported network (Graph::parameterCount)
  Shape outputShape;                      // per sample, of the output layer
  std::vector<std::string> notMapped;     // settings and parts of the file the project does not take
};

// Converts the network. Error names the file, line and column, the function and its type.
NnablaImport importNnabla(const NnablaFile& file, const NnablaImportOptions& options = {},
                          const OpRegistry& registry = OpRegistry::builtin());

}  // namespace netsmith::nnabla_import
