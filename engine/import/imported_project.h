// Writes an imported network as a project and its parameters: DIR/NAME.nsproj and
// DIR/NAME.nsparams, the project's config.initial_parameters naming the parameters file.
#pragma once

#include <functional>
#include <string>

#include "engine/import/onnx/onnx_importer.h"

namespace netsmith {

struct ImportedProjectOptions {
  std::string projectPath;   // DIR/NAME.nsproj
  std::string sourceFile;    // the imported model, for the parameters' meta and the project's name
  std::string trainingCsv;   // dataset.training (a dataset CSV); empty: NAME.csv beside the project, to be made
  std::string validationCsv; // dataset.validation; empty: none
  bool overwrite = false;    // replace existing files (otherwise an existing project is an error)
  // false: the source has no weights (an .nntxt network alone): no NAME.nsparams is written and
  // config.initial_parameters stays empty, so training starts from the layers' initialisers.
  bool writeParameters = true;
  // Settings the source file gives (an nnabla import's solver, epochs, ...), applied last.
  std::function<void(Project&)> adjust;
};

// What was written.
struct ImportedProjectFiles {
  std::string project;
  std::string parameters;
  int64_t parameterValues = 0;  // floats in the parameters file
};

// The project an import makes: its name from the file, the network, the dataset sources (relative
// to the project), config.initial_parameters = "NAME.nsparams", one CPU worker; other settings at
// their defaults.
Project importedProject(const onnx_import::ImportedNetwork& network, const ImportedProjectOptions& options);

// Note [Atomic import]: nothing is written until the import has succeeded; then both files are
// written under temporary names in DIR, flushed, and renamed into place, parameters first, so the
// project never names a parameters file that is not there. On a failure the temporary files are
// removed and the error names the file. DIR is created when missing.
ImportedProjectFiles writeImportedProject(onnx_import::ImportedNetwork& network, const ImportedProjectOptions& options);

}  // namespace netsmith
