#include "engine/project/classifier_head.h"

#include "engine/core/error.h"

namespace netsmith {

std::optional<ClassifierHead> findClassifierHead(const Graph& graph) {
  const GraphNode& loss = graph.loss();
  const bool classIndex = loss.schema->lossTarget == LossTarget::ClassIndex;
  const int64_t outputs = numel(graph.prediction().outputShape);
  // One-hot losses (SigmoidCrossEntropy...) also take one class label over several outputs.
  if (!classIndex && outputs < 2) return std::nullopt;
  int at = loss.inputs.at(0);
  for (;;) {
    const GraphNode& node = graph.nodes[static_cast<size_t>(at)];
    const std::string& type = node.schema->name;
    if (type == "Affine" || type == "Convolution" || type == "Deconvolution") {
      const int64_t made = type == "Affine" ? numel(node.outputShape) : node.outputShape.at(0);
      if (made != outputs) return std::nullopt;
      return ClassifierHead{node.id, type, node.specIndex, outputs};
    }
    if (!node.blobs.empty() || node.inputs.size() != 1 || node.schema->isInput) return std::nullopt;
    at = node.inputs[0];
  }
}

ClassifierHead setClassCount(Project& project, int64_t classes) {
  NS_CHECK(classes >= 2, "the number of classes must be at least 2, got {}", classes);
  const Graph graph = buildGraph(project.network, OpRegistry::builtin());
  const auto head = findClassifierHead(graph);
  NS_CHECK(head, "{}: no classifier head found: the loss '{}' ({}) does not read the outputs of an Affine or "
                 "Convolution with one output per class",
           project.path.empty() ? project.name : project.path, graph.loss().id, graph.loss().schema->name);
  NodeSpec& node = project.network.nodes[static_cast<size_t>(head->specIndex)];
  if (!node.params.is_object()) node.params = Json::object();
  if (head->type == "Affine") node.params["n_outmaps"] = Json::array({classes});
  else node.params["outmaps"] = classes;
  // The network must still be valid (a later Reshape may fix the count): refuse what breaks it.
  const auto problems = checkNetwork(project.network, OpRegistry::builtin());
  NS_CHECK(problems.empty(), "setting '{}' to {} outputs breaks the network: {}", head->nodeId, classes,
           problems.empty() ? "" : problems.front().text());
  return *head;
}

std::string classCountMismatch(const ClassifierHead& head, int64_t datasetClasses) {
  if (datasetClasses <= 0 || datasetClasses == head.outputs) return {};
  return format("The dataset has {} classes but the network outputs {} (head '{}', {})", datasetClasses, head.outputs,
                head.nodeId, head.type);
}

ClassCountCheck checkClassCount(const Graph& graph, int64_t datasetClasses, const std::string& projectPath) {
  const auto head = findClassifierHead(graph);
  if (!head) return {};
  const std::string mismatch = classCountMismatch(*head, datasetClasses);
  if (mismatch.empty()) return {};
  const bool fatal = datasetClasses > head->outputs;
  return {format("{}{}: set the head to {} classes with `netsmith-cli project set-classes {} {}` (or the Config page's "
                 "button); with initial parameters its weights are then re-initialized",
                 mismatch, fatal ? ", so labels from " + std::to_string(head->outputs) + " up cannot be trained" : "",
                 datasetClasses, projectPath.empty() ? "PROJECT.nsproj" : projectPath, datasetClasses),
          fatal};
}

}  // namespace netsmith
