// netsmith-cli export RUN --onnx model.onnx: the trained network as a standard ONNX model.
#include <cstdio>
#include <filesystem>
#include <map>

#include "engine/cli/eval_commands.h"
#include "engine/core/error.h"
#include "engine/eval/run_model.h"
#include "engine/export/onnx_layers.h"
#include "engine/export/onnx_writer.h"

namespace fs = std::filesystem;

namespace netsmith::cli {

const CommandSpec kExport{
    "export",
    "RUN_FOLDER [--onnx FILE.onnx] [--parameters last|best]",
    "Exports a trained run as an ONNX model (opset 13; 17 when it has a LayerNormalization) with its trained parameters.",
    "Every layer becomes standard ONNX operators; the loss becomes the output head (Softmax for\n"
    "SoftmaxCrossEntropy, Sigmoid for SigmoidCrossEntropy, Identity otherwise). The model's input 'x'\n"
    "is (N, Input shape) already multiplied by dataset.scale (recorded in the model's metadata as\n"
    "netsmith.input_scale); its output 'y' is what `netsmith-cli infer` writes. When the run's classes\n"
    "have names (its classes.txt), the metadata's class_names holds them as a JSON array in class order.\n"
    "A layer with no ONNX equivalent is an error naming it. Exit status: 0 done, 1 failed, 2 bad command\n"
    "line.",
    {{"--onnx", "FILE", "where to write the model (default RUN_FOLDER/model.onnx)"},
     {"--parameters", "WHICH", "last (default) or best"}},
    1,
    1};

int runExport(const ParsedArgs& args) {
  const RunModel model(args.positional[0], parametersOption(args));
  const std::string path = args.has("--onnx") ? args.value("--onnx") : (fs::path(model.runDir()) / "model.onnx").string();
  std::map<std::string, const Tensor*> byName;
  for (const auto& [name, tensor] : model.parameters().data.tensors) byName[name] = &tensor;
  const Graph& graph = model.graph();
  OnnxGraph onnx = buildOnnxGraph(graph, model.project().name, [&](size_t node, size_t blob) -> const Tensor* {
    const auto it = byName.find(graph.nodes[node].id + "/" + graph.nodes[node].blobs[blob].name);
    return it == byName.end() ? nullptr : it->second;
  });
  onnx.metadata = {{"netsmith.project", model.project().name},
                   {"netsmith.run", model.runDir()},
                   {"netsmith.parameters", model.parameters().path},
                   {"netsmith.input_scale", [&] {
                     char buf[32];
                     std::snprintf(buf, sizeof buf, "%.17g", model.project().dataset.scale);
                     return std::string(buf);
                   }()},
                   {"netsmith.loss", graph.loss().schema->name}};
  // Note [Run class names]: the names of output classes 0, 1, ... as a JSON array of strings, the
  // form other tools can read without Netsmith; absent when the classes are unnamed. (Bytes that
  // are not UTF-8 become U+FFFD: protobuf strings must be UTF-8.)
  if (!model.classNames().empty())
    onnx.metadata.emplace_back("class_names", Json(model.classNames()).dump(-1, ' ', false, Json::error_handler_t::replace));
  writeOnnxModel(onnx, path);
  std::printf("Exported %zu layers as %zu ONNX nodes (opset %lld) to %s\n", graph.nodes.size(), onnx.nodes.size(),
              static_cast<long long>(onnx.opset), path.c_str());
  return 0;
}

}  // namespace netsmith::cli
