// netsmith-cli import MODEL.onnx|NET.nntxt|MODEL.nnp --output DIR/NAME.nsproj: an ONNX model or a
// Neural Network Console / nnabla network as a Netsmith project and its initial parameters (Note
// [ONNX import], Note [NNabla import], Note [Imported output head], Note [Atomic import]).
#include "engine/cli/import_command.h"

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "engine/core/error.h"
#include "engine/import/imported_project.h"
#include "engine/import/nnabla/nnabla_importer.h"
#include "engine/import/nnabla/nnabla_settings.h"
#include "engine/import/onnx/onnx_importer.h"
#include "engine/import/onnx/onnx_reader.h"

namespace fs = std::filesystem;

namespace netsmith::cli {

const CommandSpec kImport{
    "import",
    "MODEL.onnx|NET.nntxt|MODEL.nnp --output DIR/NAME.nsproj [--loss TYPE] [--input-shape C,H,W] [--network NAME] "
    "[--dataset CSV] [--force] [--dry-run] [--json]",
    "Imports an ONNX model (opsets 7 to 18) or a Neural Network Console / nnabla network (.nntxt, .nnp) as a project.",
    "Writes DIR/NAME.nsproj and DIR/NAME.nsparams (config.initial_parameters), both or neither. Each ONNX\n"
    "operator becomes a Netsmith layer (Conv → Convolution, Gemm and MatMul+Add → Affine, Clip(0, 6) →\n"
    "ReLU6, x·Sigmoid(x) → Swish, ...); constant subgraphs such as the shape arithmetic before a Reshape are\n"
    "folded. An operator with no Netsmith equivalent is an error naming the node and its op type, and\n"
    "nothing is written. The network ends in a loss, chosen from its last layers and printed with the reason:\n"
    "SoftmaxCrossEntropy in place of a final Softmax, and for a classifier's raw scores (K >= 2 from a final\n"
    "Gemm, MatMul or Linear, or a 1x1 Conv and global pooling, as PyTorch's classifiers end; `infer` then\n"
    "gives their softmax); SigmoidCrossEntropy in place of a final Sigmoid; else SquaredError (`infer` gives\n"
    "the model's output values); a model Netsmith exported gets its own loss back. --loss chooses another.\n"
    "`netsmith-cli infer NAME.nsproj --input X.npy` runs the imported model; `train` starts from its weights.\n"
    "A .nntxt or .nnp (Neural Network Console's project export, nnabla's saved network) brings its training\n"
    "network (the optimizer's, NNC's \"Main\"; else the executor's; --network picks another) with its repeat\n"
    "blocks expanded, its loss, its parameters (a .nnp's parameter.protobuf; a .nntxt alone has none, so no\n"
    "NAME.nsparams is written and training starts from the initialisers) and the settings that map: epochs,\n"
    "batch size, the dataset CSVs, shuffle, the solver and its learning rate, weight decay, the learning-rate\n"
    "multiplier; what does not map is listed. A function with no Netsmith layer is an error naming it and its\n"
    "type, with the file, line and column. Exit status: 0 done, 1 failed, 2 bad command line.",
    {{"--output", "FILE.nsproj", "the project to write; its parameters go beside it as NAME.nsparams"},
     {"--loss", "TYPE", "the loss layer to end in (default: the file's loss, else chosen from the last layer, see above)"},
     {"--input-shape", "C,H,W", "ONNX: the per-sample input shape, for a model whose input has symbolic sizes"},
     {"--network", "NAME", ".nntxt/.nnp: the network to import (default: the optimizer's, else the executor's)"},
     {"--dataset", "CSV", "dataset.training of the project (default: the file's training dataset when it is a CSV path here, else NAME.csv beside it, to be made)"},
     {"--validation", "CSV", "dataset.validation of the project"},
     {"--force", "", "replace an existing project and parameters file"},
     {"--dry-run", "", "convert and print the summary (the loss and why) without writing anything; --output is optional"},
     {"--json", "", "print a JSON summary"}},
    1,
    1};

namespace {

Shape parseShape(const std::string& text) {
  Shape s;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end || v < 1 || v > (1LL << 31))
      throw UsageError{"--input-shape: expected positive sizes separated by commas such as 3,224,224, got '" + text + "'"};
    s.push_back(v);
  }
  if (s.empty()) throw UsageError{"--input-shape: expected sizes such as 3,224,224"};
  return s;
}

// "Loss SoftmaxCrossEntropy: the model ends in ..." and, when the import chose it, how to choose
// another (Note [Imported output head]).
void printLoss(const ParsedArgs& args, const std::string& loss, const std::string& reason) {
  std::printf("Loss %s: %s.\n", loss.c_str(), reason.c_str());
  if (!args.has("--loss"))
    std::printf("  Another loss: import again with --loss TYPE (SoftmaxCrossEntropy for class labels, SquaredError for "
                "values; `netsmith-cli ops` lists the loss layers), or change the loss block in the editor.\n");
}

int64_t parameterValues(const onnx_import::ImportedNetwork& network) {
  int64_t n = 0;
  for (const auto& [name, tensor] : network.parameters) n += tensor.size();
  return n;
}

// Writes the project, or with --dry-run only counts what would be written.
ImportedProjectFiles writeUnlessDryRun(const ParsedArgs& args, onnx_import::ImportedNetwork& network,
                                       const ImportedProjectOptions& target) {
  if (!args.has("--dry-run")) return writeImportedProject(network, target);
  return {{}, {}, parameterValues(network)};
}

void printWritten(const ParsedArgs& args, const ImportedProjectFiles& files, bool withParameters) {
  if (args.has("--dry-run")) {
    std::printf("Nothing written (--dry-run).\n");
  } else if (withParameters) {
    std::printf("Wrote %s and %s (%lld parameter values)\n", files.project.c_str(), files.parameters.c_str(),
                static_cast<long long>(files.parameterValues));
  } else {
    std::printf("Wrote %s (the file holds no parameter values: training starts from the initialisers)\n", files.project.c_str());
  }
}

void printDatasetHint(const ParsedArgs& args, const ImportedProjectOptions& target, const ImportedProjectFiles& files) {
  if (!target.trainingCsv.empty() || args.has("--dry-run")) return;
  std::printf("Before training, make %s (or choose a dataset on the Dataset page).\n",
              (fs::path(files.project).parent_path() / (fs::path(files.project).stem().string() + ".csv")).c_str());
}

// Note [NNabla import]: a .nntxt or .nnp file.
int runNnablaImport(const ParsedArgs& args, const std::string& source) {
  if (args.has("--input-shape")) throw UsageError{"--input-shape is for ONNX models; a .nntxt declares its input's shape"};
  nnabla_import::NnablaImportOptions options;
  if (args.has("--loss")) options.loss = args.value("--loss");
  options.network = args.value("--network");
  const nnabla_import::NnablaFile file = nnabla_import::readNnablaFile(source);
  nnabla_import::NnablaImport imported = nnabla_import::importNnabla(file, options);
  nnabla_import::NnablaSettings settings = nnabla_import::mapSettings(file, imported.networkName);
  settings.notMapped.insert(settings.notMapped.end(), imported.notMapped.begin(), imported.notMapped.end());
  onnx_import::ImportedNetwork& network = imported.network;
  const size_t layers = network.network.nodes.size();
  const Shape inputShape = network.inputShape;
  const std::string loss = network.loss, lossReason = network.lossReason, output = network.outputNode;
  const std::vector<std::string> notes = network.notes;
  const bool withParameters = !file.parameters.empty();
  ImportedProjectOptions target;
  target.projectPath = args.value("--output");
  target.sourceFile = source;
  target.trainingCsv = args.has("--dataset") ? args.value("--dataset") : settings.trainingCsv;
  target.validationCsv = args.has("--validation") ? args.value("--validation") : settings.validationCsv;
  target.overwrite = args.has("--force");
  target.writeParameters = withParameters;
  target.adjust = [&settings](Project& p) { settings.apply(p); };
  const ImportedProjectFiles files = writeUnlessDryRun(args, network, target);
  if (args.has("--json")) {
    const Json summary = {{"model", source},
                          {"network", imported.networkName},
                          {"nnp_version", file.version},
                          {"functions", imported.functions},
                          {"layers", layers},
                          {"input_shape", inputShape},
                          {"output_layer", output},
                          {"output_shape", imported.outputShape},
                          {"loss", loss},
                          {"loss_reason", lossReason},
                          {"dry_run", args.has("--dry-run")},
                          {"trainable_parameters", imported.trainableParameters},
                          {"source_trainable_parameters", imported.sourceTrainableParameters},
                          {"parameter_values", files.parameterValues},
                          {"project", files.project},
                          {"parameters", files.parameters},
                          {"notes", notes},
                          {"not_mapped", settings.notMapped}};
    std::printf("%s\n", summary.dump(-1, ' ', false, Json::error_handler_t::replace).c_str());
    return 0;
  }
  std::printf("Imported network '%s' of %s: %lld functions as %zu layers, %lld trainable parameters (the file's: %lld)\n",
              imported.networkName.c_str(), source.c_str(), static_cast<long long>(imported.functions), layers,
              static_cast<long long>(imported.trainableParameters), static_cast<long long>(imported.sourceTrainableParameters));
  std::printf("  input (%s), output of layer '%s' (%s), loss %s\n", shapeToString(inputShape).c_str(), output.c_str(),
              shapeToString(imported.outputShape).c_str(), loss.c_str());
  for (const auto& n : notes) std::printf("  %s\n", n.c_str());
  printLoss(args, loss, lossReason);
  if (!settings.notMapped.empty()) {
    std::printf("Not mapped (set these in the project if they matter):\n");
    for (const auto& n : settings.notMapped) std::printf("  %s\n", n.c_str());
  }
  printWritten(args, files, withParameters);
  printDatasetHint(args, target, files);
  return 0;
}

}  // namespace

int runImport(const ParsedArgs& args) {
  if (!args.has("--output") && !args.has("--dry-run")) throw UsageError{"'import' needs --output DIR/NAME.nsproj"};
  const std::string model = args.positional[0];
  if (args.has("--output") && fs::path(args.value("--output")).extension() != ".nsproj")
    throw UsageError{"--output: expected a project file name ending in .nsproj, got '" + args.value("--output") + "'"};
  const std::string extension = fs::path(model).extension().string();
  if (extension == ".nntxt" || extension == ".nnp") return runNnablaImport(args, model);
  if (args.has("--network")) throw UsageError{"--network is for .nntxt and .nnp files"};
  onnx_import::ImportOptions options;
  if (args.has("--loss")) options.loss = args.value("--loss");
  if (args.has("--input-shape")) options.inputShape = parseShape(args.value("--input-shape"));
  const onnx_import::OnnxModel onnx = onnx_import::readOnnxModel(model);
  onnx_import::ImportedNetwork network = onnx_import::importOnnx(onnx, options);
  const size_t layers = network.network.nodes.size();
  const Shape inputShape = network.inputShape;
  const std::string loss = network.loss, lossReason = network.lossReason, output = network.outputNode;
  const std::vector<std::string> notes = network.notes;
  const int64_t folded = network.foldedNodes;
  ImportedProjectOptions target;
  target.projectPath = args.value("--output");
  target.sourceFile = model;
  target.trainingCsv = args.value("--dataset");
  target.validationCsv = args.value("--validation");
  target.overwrite = args.has("--force");
  const ImportedProjectFiles files = writeUnlessDryRun(args, network, target);
  if (args.has("--json")) {
    const Json summary = {{"model", model},
                          {"opset", onnx.opset},
                          {"producer", onnx.producer},
                          {"onnx_nodes", onnx.nodes.size()},
                          {"folded_nodes", folded},
                          {"layers", layers},
                          {"input_shape", inputShape},
                          {"output_layer", output},
                          {"loss", loss},
                          {"loss_reason", lossReason},
                          {"dry_run", args.has("--dry-run")},
                          {"parameter_values", files.parameterValues},
                          {"project", files.project},
                          {"parameters", files.parameters},
                          {"notes", notes}};
    std::printf("%s\n", summary.dump(-1, ' ', false, Json::error_handler_t::replace).c_str());
    return 0;
  }
  std::printf("Imported %s (opset %lld, %s): %zu ONNX nodes as %zu layers (%lld constant nodes folded)\n", model.c_str(),
              static_cast<long long>(onnx.opset), onnx.producer.empty() ? "unknown producer" : onnx.producer.c_str(),
              onnx.nodes.size(), layers, static_cast<long long>(folded));
  std::printf("  input (%s), output of layer '%s', loss %s appended\n", shapeToString(inputShape).c_str(), output.c_str(),
              loss.c_str());
  for (const auto& n : notes) std::printf("  %s\n", n.c_str());
  printLoss(args, loss, lossReason);
  printWritten(args, files, true);
  printDatasetHint(args, target, files);
  return 0;
}

}  // namespace netsmith::cli
