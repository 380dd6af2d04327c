#include "gui/document/graph_commands.h"

#include <QCoreApplication>
#include <map>
#include <set>

namespace netsmith::gui {
namespace {
QString tr(const char* text, int n = -1) { return QCoreApplication::translate("GraphCommands", text, nullptr, n); }
}  // namespace

// --- fragments ---------------------------------------------------------------------------------

Json GraphFragment::toJson() const {
  Json nodesJson = Json::array(), linksJson = Json::array();
  for (const NodeSpec& n : nodes) {
    Json j = {{"id", n.id}, {"type", n.type}, {"pos", {n.pos[0], n.pos[1]}}};
    if (!n.params.is_null() && !n.params.empty()) j["params"] = n.params;
    nodesJson.push_back(std::move(j));
  }
  for (const LinkSpec& l : links) {
    Json j = {{"from", l.from}, {"to", l.to}};
    if (l.port) j["port"] = *l.port;
    linksJson.push_back(std::move(j));
  }
  return {{"netsmith_fragment", 1}, {"nodes", nodesJson}, {"links", linksJson}};
}

std::optional<GraphFragment> GraphFragment::fromJson(const Json& json) {
  if (!json.is_object() || !json.contains("netsmith_fragment")) return std::nullopt;
  GraphFragment f;
  try {
    for (const Json& n : json.at("nodes")) {
      NodeSpec node;
      node.id = n.at("id").get<std::string>();
      node.type = n.at("type").get<std::string>();
      if (n.contains("params") && n["params"].is_object()) node.params = n["params"];
      if (n.contains("pos")) node.pos = {n["pos"].at(0).get<double>(), n["pos"].at(1).get<double>()};
      f.nodes.push_back(std::move(node));
    }
    for (const Json& l : json.at("links")) {
      LinkSpec link{l.at("from").get<std::string>(), l.at("to").get<std::string>(), std::nullopt};
      if (l.contains("port")) link.port = l["port"].get<int>();
      f.links.push_back(std::move(link));
    }
  } catch (const std::exception&) {
    return std::nullopt;  // clipboard text from elsewhere that only looks like a fragment
  }
  return f;
}

GraphFragment copyFragment(const GraphDocument& doc, const std::vector<std::string>& nodeIds) {
  GraphFragment f;
  const std::set<std::string> chosen(nodeIds.begin(), nodeIds.end());
  for (const NodeSpec& n : doc.spec().nodes)  // document order, so a paste keeps it
    if (chosen.count(n.id)) f.nodes.push_back(n);
  for (const LinkSpec& l : doc.spec().links)
    if (chosen.count(l.from) && chosen.count(l.to)) f.links.push_back(l);
  return f;
}

GraphFragment prepareForPaste(const GraphDocument& doc, GraphFragment fragment, QPointF offset) {
  std::map<std::string, std::string> renamed;
  std::set<std::string> taken;
  for (const NodeSpec& n : doc.spec().nodes) taken.insert(n.id);
  for (NodeSpec& n : fragment.nodes) {
    std::string id = n.id;
    if (taken.count(id)) id = uniqueIdAmong([&](const std::string& t) { return taken.count(t) > 0; }, id);
    taken.insert(id);
    renamed[n.id] = id;
    n.id = id;
    n.pos = {n.pos[0] + offset.x(), n.pos[1] + offset.y()};
  }
  for (LinkSpec& l : fragment.links) {
    l.from = renamed.count(l.from) ? renamed[l.from] : l.from;
    l.to = renamed.count(l.to) ? renamed[l.to] : l.to;
  }
  return fragment;
}

// --- add / delete ------------------------------------------------------------------------------

AddFragmentCommand::AddFragmentCommand(GraphDocument* doc, GraphFragment fragment, const QString& text)
    : m_doc(doc), m_fragment(std::move(fragment)) {
  setText(text);
}

void AddFragmentCommand::redo() {
  for (const NodeSpec& n : m_fragment.nodes) m_doc->insertNode(static_cast<int>(m_doc->spec().nodes.size()), n);
  for (const LinkSpec& l : m_fragment.links) m_doc->insertLink(static_cast<int>(m_doc->spec().links.size()), l);
}

void AddFragmentCommand::undo() {
  // Added at the end, so they are the last ones.
  for (size_t i = 0; i < m_fragment.links.size(); ++i) m_doc->removeLinkAt(static_cast<int>(m_doc->spec().links.size()) - 1);
  for (size_t i = 0; i < m_fragment.nodes.size(); ++i) m_doc->removeNodeAt(static_cast<int>(m_doc->spec().nodes.size()) - 1);
}

DeleteCommand::DeleteCommand(GraphDocument* doc, const std::vector<std::string>& nodeIds,
                             const std::vector<int>& linkIndices)
    : m_doc(doc) {
  std::set<int> links(linkIndices.begin(), linkIndices.end());
  std::set<int> nodes;
  for (const auto& id : nodeIds) {
    const int i = doc->nodeIndex(id);
    if (i < 0) continue;
    nodes.insert(i);
    for (int l : doc->linksOf(id)) links.insert(l);
  }
  for (int i : nodes) m_nodes.emplace_back(i, doc->spec().nodes[i]);
  for (int i : links)
    if (i >= 0 && i < static_cast<int>(doc->spec().links.size())) m_links.emplace_back(i, doc->spec().links[i]);
  if (m_nodes.size() == 1 && m_links.empty())
    setText(tr("Delete %1").arg(qs(m_nodes[0].second.id)));
  else if (m_nodes.empty())
    setText(m_links.size() == 1 ? tr("Delete link") : tr("Delete %1 links").arg(m_links.size()));
  else
    setText(tr("Delete %n layer(s)", static_cast<int>(m_nodes.size())));
}

void DeleteCommand::redo() {
  // Highest index first, so the lower indices stay valid.
  for (auto it = m_links.rbegin(); it != m_links.rend(); ++it) m_doc->removeLinkAt(it->first);
  for (auto it = m_nodes.rbegin(); it != m_nodes.rend(); ++it) m_doc->removeNodeAt(it->first);
}

void DeleteCommand::undo() {
  for (const auto& [i, n] : m_nodes) m_doc->insertNode(i, n);
  for (const auto& [i, l] : m_links) m_doc->insertLink(i, l);
}

// --- move --------------------------------------------------------------------------------------

MoveNodesCommand::MoveNodesCommand(GraphDocument* doc, QHash<QString, QPair<QPointF, QPointF>> moves,
                                   const QString& text, bool mergeable)
    : m_doc(doc), m_moves(std::move(moves)), m_mergeable(mergeable) {
  setText(!text.isEmpty()       ? text
          : m_moves.size() == 1 ? tr("Move %1").arg(m_moves.begin().key())
                                : tr("Move %1 layers").arg(m_moves.size()));
}

void MoveNodesCommand::redo() {
  for (auto it = m_moves.cbegin(); it != m_moves.cend(); ++it) m_doc->setNodePos(ss(it.key()), it.value().second);
}

void MoveNodesCommand::undo() {
  for (auto it = m_moves.cbegin(); it != m_moves.cend(); ++it) m_doc->setNodePos(ss(it.key()), it.value().first);
}

bool MoveNodesCommand::mergeWith(const QUndoCommand* other) {
  const auto* move = static_cast<const MoveNodesCommand*>(other);
  if (!move->m_mergeable || move->m_doc != m_doc || move->m_moves.size() != m_moves.size()) return false;
  for (auto it = move->m_moves.cbegin(); it != move->m_moves.cend(); ++it)
    if (!m_moves.contains(it.key())) return false;
  for (auto it = move->m_moves.cbegin(); it != move->m_moves.cend(); ++it) m_moves[it.key()].second = it.value().second;
  return true;
}

// --- links, parameters, names --------------------------------------------------------------------

AddLinkCommand::AddLinkCommand(GraphDocument* doc, const LinkSpec& link) : m_doc(doc), m_link(link) {
  setText(tr("Link %1 → %2").arg(qs(link.from), qs(link.to)));
}

void AddLinkCommand::redo() {
  m_index = static_cast<int>(m_doc->spec().links.size());
  m_doc->insertLink(m_index, m_link);
}

void AddLinkCommand::undo() { m_doc->removeLinkAt(m_index); }

SetParamsCommand::SetParamsCommand(GraphDocument* doc, const std::string& id, Json before, Json after)
    : m_doc(doc), m_id(id), m_before(std::move(before)), m_after(std::move(after)) {
  setText(tr("Edit %1").arg(qs(id)));
}

void SetParamsCommand::redo() { m_doc->setNodeParams(m_id, m_after); }
void SetParamsCommand::undo() { m_doc->setNodeParams(m_id, m_before); }

SetNodeTrainingCommand::SetNodeTrainingCommand(GraphDocument* doc, const std::string& id, Values before, Values after)
    : m_doc(doc), m_id(id), m_before(before), m_after(after) {
  setText(before.frozen != after.frozen ? (after.frozen ? tr("Freeze %1") : tr("Unfreeze %1")).arg(qs(id))
                                        : tr("Set the learning-rate multiplier of %1").arg(qs(id)));
}

void SetNodeTrainingCommand::redo() { m_doc->setNodeTraining(m_id, m_after.frozen, m_after.lrMult); }
void SetNodeTrainingCommand::undo() { m_doc->setNodeTraining(m_id, m_before.frozen, m_before.lrMult); }

QStringList trainableBlocks(const GraphDocument& doc, const QStringList& ids) {
  QStringList out;
  for (const QString& id : ids)
    if (const NodeSpec* node = doc.node(ss(id)))
      if (const OpSchema* schema = OpRegistry::builtin().find(node->type); schema && schema->parameterBlobs) out << id;
  return out;
}

int pushTrainingEdit(QUndoStack* undo, GraphDocument* doc, const QStringList& ids, std::optional<bool> frozen,
                     std::optional<double> lrMult, const QString& text) {
  std::vector<std::pair<std::string, std::pair<SetNodeTrainingCommand::Values, SetNodeTrainingCommand::Values>>> changes;
  for (const QString& id : trainableBlocks(*doc, ids)) {
    const NodeSpec* node = doc->node(ss(id));
    const SetNodeTrainingCommand::Values before{node->frozen, node->lrMult};
    const SetNodeTrainingCommand::Values after{frozen.value_or(node->frozen), lrMult.value_or(node->lrMult)};
    if (before.frozen != after.frozen || before.lrMult != after.lrMult) changes.push_back({node->id, {before, after}});
  }
  if (changes.empty()) return 0;
  undo->beginMacro(text);
  for (const auto& [id, values] : changes) undo->push(new SetNodeTrainingCommand(doc, id, values.first, values.second));
  undo->endMacro();
  return static_cast<int>(changes.size());
}

RenameNodeCommand::RenameNodeCommand(GraphDocument* doc, const std::string& from, const std::string& to)
    : m_doc(doc), m_from(from), m_to(to) {
  setText(tr("Rename %1 to %2").arg(qs(from), qs(to)));
}

void RenameNodeCommand::redo() { m_doc->renameNode(m_from, m_to); }
void RenameNodeCommand::undo() { m_doc->renameNode(m_to, m_from); }

// --- auto-arrange ------------------------------------------------------------------------------

QHash<QString, QPointF> autoArrangePositions(const GraphDocument& doc) {
  constexpr double kRowHeight = 90, kColumnWidth = 220;
  const auto& spec = doc.spec();
  std::map<std::string, int> depth;
  for (const NodeSpec& n : spec.nodes) depth[n.id] = 0;
  // Longest path from a source; bounded passes so a cycle cannot loop forever.
  for (size_t pass = 0; pass < spec.nodes.size(); ++pass) {
    bool changed = false;
    for (const LinkSpec& l : spec.links)
      if (depth.count(l.from) && depth.count(l.to) && depth[l.to] < depth[l.from] + 1) {
        depth[l.to] = depth[l.from] + 1;
        changed = true;
      }
    if (!changed) break;
  }
  std::map<int, int> usedInRow;
  QHash<QString, QPointF> out;
  for (const NodeSpec& n : spec.nodes) {  // document order within a row
    const int row = depth[n.id];
    const int column = usedInRow[row]++;
    out[qs(n.id)] = QPointF(column * kColumnWidth, row * kRowHeight);
  }
  return out;
}

}  // namespace netsmith::gui
