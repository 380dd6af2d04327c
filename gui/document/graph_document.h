// GraphDocument: the network being edited — nodes and links exactly as the project file holds them
// (netsmith::NetworkSpec), so that load → save loses nothing. The model of the Edit page; the
// GraphScene draws it and never changes it. Edits go through undo commands (graph_commands.h),
// which call the raw operations below; each raw operation emits one signal and refreshes the
// analysis (shapes, parameter counts, problems).
//
// GUI thread only.
#pragma once

#include <QObject>
#include <QPointF>
#include <QString>
#include <functional>
#include <optional>

#include "engine/project/project.h"
#include "gui/document/network_analysis.h"
#include "gui/document/qt_text.h"

namespace netsmith::gui {

class GraphDocument : public QObject {
  Q_OBJECT
 public:
  explicit GraphDocument(QObject* parent = nullptr);

  const NetworkSpec& spec() const { return m_spec; }
  const NetworkAnalysis& analysis() const { return m_analysis; }
  // Replaces everything (loading a project); emits modelReset.
  void reset(const NetworkSpec& spec);

  int nodeIndex(const std::string& id) const;  // -1 when absent
  const NodeSpec* node(const std::string& id) const;
  const OpSchema* schemaOf(const std::string& id) const;  // null for an unknown type
  // Indices of the links touching `id`, ascending.
  std::vector<int> linksOf(const std::string& id) const;
  int linkIndex(const LinkSpec& link) const;

  // An id not used yet, made from `base` ("conv" -> "conv1", "conv2", ...; "relu1" -> "relu2").
  std::string uniqueId(const std::string& base) const;
  // The id a new node of `type` gets: the type in lower case with a number.
  std::string newIdFor(const std::string& type) const;
  // Why linking from → to must be refused (empty: allowed): unknown node, self-link, a link that
  // exists, into an Input, out of a loss, all ports of `to` taken, or a cycle.
  QString linkRefusal(const std::string& from, const std::string& to) const;

  // The training data's sample shape (DatasetShapeProbe), checked against the input block;
  // nullopt: unknown (no check). Refreshes the analysis.
  void setDatasetSamples(std::optional<DatasetSamples> samples);
  const std::optional<DatasetSamples>& datasetSamples() const { return m_samples; }

  // Raw edits, for undo commands only.
  void insertNode(int index, const NodeSpec& node);
  NodeSpec removeNodeAt(int index);  // links must already be gone
  void setNodePos(const std::string& id, QPointF pos);
  void setNodeParams(const std::string& id, const Json& params);
  // Note [Frozen layers] (engine/project/graph.h): the node's "frozen" and "lr_mult"; emits
  // nodeParamsChanged (the block redraws, the panel follows an undo).
  void setNodeTraining(const std::string& id, bool frozen, double lrMult);
  void renameNode(const std::string& from, const std::string& to);  // links follow
  void insertLink(int index, const LinkSpec& link);
  LinkSpec removeLinkAt(int index);

 signals:
  void modelReset();
  void nodeAdded(const QString& id);
  void nodeRemoved(const QString& id);
  void nodeMoved(const QString& id);
  void nodeParamsChanged(const QString& id);
  void nodeRenamed(const QString& from, const QString& to);
  void linkAdded(int index);
  void linkRemoved(int index, const QString& from, const QString& to);
  // After every change: shapes, counts and problems may differ.
  void analysisChanged();

 private:
  void reanalyse();

  NetworkSpec m_spec;
  NetworkAnalysis m_analysis;
  std::optional<DatasetSamples> m_samples;
};

// An id for which `taken` is false, made from `base` as GraphDocument::uniqueId does.
std::string uniqueIdAmong(const std::function<bool(const std::string&)>& taken, const std::string& base);

}  // namespace netsmith::gui
