#include "gui/document/class_count_fix.h"

#include <QCoreApplication>

#include "engine/project/classifier_head.h"
#include "gui/document/graph_commands.h"

namespace netsmith::gui {

std::optional<ClassCountFix> classCountFix(const GraphDocument& graph) {
  const auto& samples = graph.datasetSamples();
  if (!samples || samples->classes <= 0 || !graph.analysis().valid) return std::nullopt;
  try {
    const auto head = findClassifierHead(buildGraph(graph.spec(), OpRegistry::builtin()));
    if (!head || head->outputs == samples->classes) return std::nullopt;
    return ClassCountFix{head->nodeId, head->type, head->outputs, samples->classes};
  } catch (const std::exception&) {
    return std::nullopt;  // the Edit page shows the network's problems
  }
}

QString classCountFixText(const ClassCountFix& fix) {
  return qs(classCountMismatch(ClassifierHead{fix.nodeId, fix.type, 0, fix.outputs}, fix.classes));
}

QString applyClassCountFix(ProjectDocument* doc, const ClassCountFix& fix) {
  GraphDocument* graph = doc->graph();
  const NodeSpec* node = graph->node(fix.nodeId);
  if (!node) return QCoreApplication::translate("ClassCountFix", "The layer '%1' is no longer in the network.").arg(qs(fix.nodeId));
  Project project;
  project.network = graph->spec();
  try {
    setClassCount(project, fix.classes);  // the engine's edit, checked as `project set-classes` checks it
  } catch (const std::exception& e) {
    return QString::fromUtf8(e.what());
  }
  const Json after = project.network.nodes.at(static_cast<size_t>(graph->nodeIndex(fix.nodeId))).params;
  if (after == node->params) return {};
  auto* command = new SetParamsCommand(graph, fix.nodeId, node->params, after);
  command->setText(QCoreApplication::translate("ClassCountFix", "Set the head %1 to %2 classes").arg(qs(fix.nodeId)).arg(fix.classes));
  doc->undoStack()->push(command);
  return {};
}

}  // namespace netsmith::gui
