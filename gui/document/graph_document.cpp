#include "gui/document/graph_document.h"

#include <QRegularExpression>
#include <set>

namespace netsmith::gui {

GraphDocument::GraphDocument(QObject* parent) : QObject(parent) { reanalyse(); }

void GraphDocument::reset(const NetworkSpec& spec) {
  m_spec = spec;
  reanalyse();
  emit modelReset();
  emit analysisChanged();
}

int GraphDocument::nodeIndex(const std::string& id) const {
  for (int i = 0; i < static_cast<int>(m_spec.nodes.size()); ++i)
    if (m_spec.nodes[i].id == id) return i;
  return -1;
}

const NodeSpec* GraphDocument::node(const std::string& id) const {
  const int i = nodeIndex(id);
  return i < 0 ? nullptr : &m_spec.nodes[i];
}

const OpSchema* GraphDocument::schemaOf(const std::string& id) const {
  const NodeSpec* n = node(id);
  return n ? OpRegistry::builtin().find(n->type) : nullptr;
}

std::vector<int> GraphDocument::linksOf(const std::string& id) const {
  std::vector<int> out;
  for (int i = 0; i < static_cast<int>(m_spec.links.size()); ++i)
    if (m_spec.links[i].from == id || m_spec.links[i].to == id) out.push_back(i);
  return out;
}

int GraphDocument::linkIndex(const LinkSpec& link) const {
  for (int i = 0; i < static_cast<int>(m_spec.links.size()); ++i) {
    const LinkSpec& l = m_spec.links[i];
    if (l.from == link.from && l.to == link.to && l.port == link.port) return i;
  }
  return -1;
}

std::string uniqueIdAmong(const std::function<bool(const std::string&)>& taken, const std::string& base) {
  // "conv1" continues as conv2, conv3...; "conv" becomes conv1.
  static const QRegularExpression trailingNumber(QStringLiteral("^(.*?)(\\d+)$"));
  const auto match = trailingNumber.match(qs(base));
  const std::string stem = match.hasMatch() ? ss(match.captured(1)) : base;
  for (int n = 1;; ++n) {
    const std::string candidate = stem + std::to_string(n);
    if (!taken(candidate)) return candidate;
  }
}

std::string GraphDocument::uniqueId(const std::string& base) const {
  return uniqueIdAmong([this](const std::string& id) { return nodeIndex(id) >= 0; }, base);
}

std::string GraphDocument::newIdFor(const std::string& type) const {
  std::string base;
  for (char c : type) base += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return uniqueId(base);
}

QString GraphDocument::linkRefusal(const std::string& from, const std::string& to) const {
  const NodeSpec* a = node(from);
  const NodeSpec* b = node(to);
  if (!a || !b) return tr("no such layer");
  if (from == to) return tr("a layer cannot be linked to itself");
  for (const LinkSpec& l : m_spec.links)
    if (l.from == from && l.to == to) return tr("'%1' is already linked to '%2'").arg(qs(from), qs(to));
  const OpSchema* target = schemaOf(to);
  const OpSchema* source = schemaOf(from);
  if (source && source->isLoss())
    return tr("'%1' is a loss, the last layer: nothing can follow it").arg(qs(from));
  if (target) {
    if (target->inputs.empty()) return tr("%1 '%2' takes no input").arg(qs(target->name), qs(to));
    int used = 0;
    for (const LinkSpec& l : m_spec.links) used += l.to == to;
    if (!target->variadic && used >= static_cast<int>(target->inputs.size()))
      return tr("every input port of %1 '%2' is already linked (it takes %n input(s)); delete a link first", nullptr,
                static_cast<int>(target->inputs.size()))
          .arg(qs(target->name), qs(to));
  }
  // A cycle: `from` must not be reachable from `to`.
  std::set<std::string> seen{to};
  std::vector<std::string> stack{to};
  while (!stack.empty()) {
    const std::string at = stack.back();
    stack.pop_back();
    if (at == from) return tr("linking '%1' to '%2' would make a cycle: a network flows one way").arg(qs(from), qs(to));
    for (const LinkSpec& l : m_spec.links)
      if (l.from == at && seen.insert(l.to).second) stack.push_back(l.to);
  }
  return {};
}

void GraphDocument::insertNode(int index, const NodeSpec& node) {
  index = std::clamp(index, 0, static_cast<int>(m_spec.nodes.size()));
  m_spec.nodes.insert(m_spec.nodes.begin() + index, node);
  reanalyse();
  emit nodeAdded(qs(node.id));
  emit analysisChanged();
}

NodeSpec GraphDocument::removeNodeAt(int index) {
  NodeSpec removed = m_spec.nodes.at(index);
  m_spec.nodes.erase(m_spec.nodes.begin() + index);
  reanalyse();
  emit nodeRemoved(qs(removed.id));
  emit analysisChanged();
  return removed;
}

void GraphDocument::setNodePos(const std::string& id, QPointF pos) {
  const int i = nodeIndex(id);
  if (i < 0) return;
  m_spec.nodes[i].pos = {pos.x(), pos.y()};
  emit nodeMoved(qs(id));  // positions change no shape: no reanalysis
}

void GraphDocument::setNodeParams(const std::string& id, const Json& params) {
  const int i = nodeIndex(id);
  if (i < 0) return;
  m_spec.nodes[i].params = params;
  reanalyse();
  emit nodeParamsChanged(qs(id));
  emit analysisChanged();
}

void GraphDocument::setNodeTraining(const std::string& id, bool frozen, double lrMult) {
  const int i = nodeIndex(id);
  if (i < 0) return;
  m_spec.nodes[i].frozen = frozen;
  m_spec.nodes[i].lrMult = lrMult;
  reanalyse();
  emit nodeParamsChanged(qs(id));
  emit analysisChanged();
}

void GraphDocument::renameNode(const std::string& from, const std::string& to) {
  const int i = nodeIndex(from);
  if (i < 0) return;
  m_spec.nodes[i].id = to;
  for (LinkSpec& l : m_spec.links) {
    if (l.from == from) l.from = to;
    if (l.to == from) l.to = to;
  }
  reanalyse();
  emit nodeRenamed(qs(from), qs(to));
  emit analysisChanged();
}

void GraphDocument::insertLink(int index, const LinkSpec& link) {
  index = std::clamp(index, 0, static_cast<int>(m_spec.links.size()));
  m_spec.links.insert(m_spec.links.begin() + index, link);
  reanalyse();
  emit linkAdded(index);
  emit analysisChanged();
}

LinkSpec GraphDocument::removeLinkAt(int index) {
  LinkSpec removed = m_spec.links.at(index);
  m_spec.links.erase(m_spec.links.begin() + index);
  reanalyse();
  emit linkRemoved(index, qs(removed.from), qs(removed.to));
  emit analysisChanged();
  return removed;
}

void GraphDocument::reanalyse() {
  m_analysis = analyseNetwork(m_spec, OpRegistry::builtin(), m_samples ? &*m_samples : nullptr);
}

void GraphDocument::setDatasetSamples(std::optional<DatasetSamples> samples) {
  const bool same = samples.has_value() == m_samples.has_value() &&
                    (!samples || (samples->shape == m_samples->shape && samples->source == m_samples->source &&
                                  samples->classes == m_samples->classes));
  if (same) return;
  m_samples = std::move(samples);
  reanalyse();
  emit analysisChanged();
}

}  // namespace netsmith::gui
