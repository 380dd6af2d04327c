#include "gui/edit/graph_scene.h"

#include <QGraphicsSceneContextMenuEvent>
#include <QGraphicsSceneDragDropEvent>
#include <QGraphicsSceneMouseEvent>
#include <QMimeData>

#include "gui/edit/graph_items.h"
#include "gui/edit/palette_widget.h"

namespace netsmith::gui {

GraphScene::GraphScene(GraphDocument* doc, QObject* parent) : QGraphicsScene(parent), m_doc(doc) {
  setBackgroundBrush(QColor(0xf2, 0xf3, 0xf5));
  connect(doc, &GraphDocument::modelReset, this, &GraphScene::rebuild);
  connect(doc, &GraphDocument::nodeAdded, this, [this](const QString& id) {
    addNodeItem(id);
    rebuildLinks();
  });
  connect(doc, &GraphDocument::nodeRemoved, this, [this](const QString& id) {
    delete m_nodes.take(id);
    rebuildLinks();
  });
  connect(doc, &GraphDocument::nodeMoved, this, [this](const QString& id) {
    NodeItem* item = m_nodes.value(id);
    const NodeSpec* node = m_doc->node(ss(id));
    if (!item || !node) return;
    item->setPos(node->pos[0], node->pos[1]);
    routeLinks();
  });
  connect(doc, &GraphDocument::nodeRenamed, this, [this](const QString& from, const QString& to) {
    NodeItem* item = m_nodes.take(from);
    if (!item) return;
    item->setId(to);
    m_nodes.insert(to, item);
    rebuildLinks();
  });
  connect(doc, &GraphDocument::linkAdded, this, &GraphScene::rebuildLinks);
  connect(doc, &GraphDocument::linkRemoved, this, &GraphScene::rebuildLinks);
  connect(doc, &GraphDocument::analysisChanged, this, &GraphScene::refreshNodes);
  rebuild();
}

void GraphScene::rebuild() {
  m_links.clear();
  m_nodes.clear();
  m_rubberLink = nullptr;
  clear();
  for (const NodeSpec& n : m_doc->spec().nodes) addNodeItem(qs(n.id));
  rebuildLinks();
}

void GraphScene::addNodeItem(const QString& id) {
  const NodeSpec* node = m_doc->node(ss(id));
  if (!node || m_nodes.contains(id)) return;
  auto* item = new NodeItem(id);
  item->setPos(node->pos[0], node->pos[1]);
  if (id == m_runFailureBlock) item->setRunFailure(m_runFailureReason);
  item->refresh(*m_doc);
  addItem(item);
  m_nodes.insert(id, item);
}

void GraphScene::markRunFailure(const QString& id, const QString& reason) {
  m_runFailureBlock = id;
  m_runFailureReason = id.isEmpty() ? QString() : reason;
  for (NodeItem* item : std::as_const(m_nodes)) {
    const QString wanted = item->id() == id ? m_runFailureReason : QString();
    if (item->runFailure() == wanted) continue;
    item->setRunFailure(wanted);
    item->refresh(*m_doc);
  }
}

void GraphScene::refreshNodes() {
  for (NodeItem* item : std::as_const(m_nodes)) item->refresh(*m_doc);
  routeLinks();  // a block's port count may have changed
}

void GraphScene::rebuildLinks() {
  // Links are few; redrawing all of them keeps items and document indices trivially in step.
  QSet<QPair<QString, QString>> selected;
  for (LinkItem* l : std::as_const(m_links)) {
    if (l->isSelected()) selected.insert({l->from(), l->to()});
    removeItem(l);
    delete l;
  }
  m_links.clear();
  const auto& spec = m_doc->spec();
  const auto& ports = m_doc->analysis().linkPorts;
  for (size_t i = 0; i < spec.links.size(); ++i) {
    const LinkSpec& link = spec.links[i];
    if (!m_nodes.contains(qs(link.from)) || !m_nodes.contains(qs(link.to))) continue;
    auto* item = new LinkItem(qs(link.from), qs(link.to), i < ports.size() ? std::max(0, ports[i]) : 0);
    addItem(item);
    item->setSelected(selected.contains({item->from(), item->to()}));
    m_links.push_back(item);
  }
  routeLinks();
}

void GraphScene::routeLinks() {
  // Short links first, so the long ones (skip links) take the lanes around them.
  QList<LinkItem*> order = m_links;
  const auto span = [this](LinkItem* l) {
    NodeItem* from = m_nodes.value(l->from());
    NodeItem* to = m_nodes.value(l->to());
    return from && to ? QLineF(from->outputPortPos(), to->inputPortPos(l->port())).length() : 0.0;
  };
  std::stable_sort(order.begin(), order.end(), [&](LinkItem* a, LinkItem* b) { return span(a) < span(b); });
  QList<LinkLane> lanes;
  for (LinkItem* l : std::as_const(order)) {
    NodeItem* from = m_nodes.value(l->from());
    NodeItem* to = m_nodes.value(l->to());
    if (!from || !to) continue;
    QList<QRectF> obstacles;
    for (NodeItem* n : std::as_const(m_nodes))
      if (n != from && n != to) obstacles << n->sceneBody();
    const QPointF end = to->inputPortPos(l->port());
    // A port right of the block's middle is reached from the right, one left of it from the left.
    const bool right = end.x() >= to->pos().x() + NodeItem::kWidth / 2;
    l->setRoute(routeLink(from->outputPortPos(), end, obstacles, right, lanes));
  }
}

QList<LinkItem*> GraphScene::linkItems() const { return m_links; }

QStringList GraphScene::selectedNodeIds() const {
  QStringList ids;
  for (const NodeSpec& n : m_doc->spec().nodes)  // document order
    if (NodeItem* item = m_nodes.value(qs(n.id)); item && item->isSelected()) ids << qs(n.id);
  return ids;
}

int GraphScene::linkIndex(const LinkItem* item) const {
  for (int i = 0; i < static_cast<int>(m_doc->spec().links.size()); ++i) {
    const LinkSpec& s = m_doc->spec().links[i];
    if (qs(s.from) == item->from() && qs(s.to) == item->to()) return i;
  }
  return -1;
}

void GraphScene::contextMenuEvent(QGraphicsSceneContextMenuEvent* event) {
  // The topmost block or link under the pointer (blocks lie above links).
  for (QGraphicsItem* item : items(event->scenePos())) {
    if (item->type() == NodeItem::kType) {
      auto* node = static_cast<NodeItem*>(item);
      if (!node->isSelected()) selectNodes({node->id()});
      emit nodeMenuRequested(node->id(), event->screenPos());
      event->accept();
      return;
    }
    if (item->type() == LinkItem::kType) {
      auto* link = static_cast<LinkItem*>(item);
      if (!link->isSelected()) {
        clearSelection();
        link->setSelected(true);
      }
      emit linkMenuRequested(linkIndex(link), event->screenPos());
      event->accept();
      return;
    }
  }
  emit canvasMenuRequested(event->scenePos(), event->screenPos());
  event->accept();
}

std::vector<int> GraphScene::selectedLinkIndices() const {
  std::vector<int> out;
  for (LinkItem* l : m_links) {
    if (!l->isSelected()) continue;
    for (int i = 0; i < static_cast<int>(m_doc->spec().links.size()); ++i) {
      const LinkSpec& s = m_doc->spec().links[i];
      if (qs(s.from) == l->from() && qs(s.to) == l->to()) out.push_back(i);
    }
  }
  return out;
}

void GraphScene::selectNodes(const QStringList& ids) {
  clearSelection();
  for (const QString& id : ids)
    if (NodeItem* item = m_nodes.value(id)) item->setSelected(true);
}

NodeItem* GraphScene::nodeAt(QPointF scenePos) const {
  for (QGraphicsItem* item : items(scenePos))
    if (item->type() == NodeItem::kType) return static_cast<NodeItem*>(item);
  return nullptr;
}

void GraphScene::mousePressEvent(QGraphicsSceneMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    NodeItem* node = nodeAt(event->scenePos());
    if (node && node->isOnOutputPort(event->scenePos())) {
      // A drag from an output port draws a link instead of moving the block.
      m_linkFrom = node->id();
      m_rubberLink = addLine(QLineF(node->outputPortPos(), event->scenePos()), QPen(QColor(0x1e, 0x6f, 0xd9), 2, Qt::DashLine));
      m_rubberLink->setZValue(2);
      event->accept();
      return;
    }
  }
  QGraphicsScene::mousePressEvent(event);
  m_dragStart.clear();
  for (QGraphicsItem* item : selectedItems())
    if (item->type() == NodeItem::kType) m_dragStart.insert(static_cast<NodeItem*>(item)->id(), item->pos());
}

void GraphScene::mouseMoveEvent(QGraphicsSceneMouseEvent* event) {
  if (m_rubberLink) {
    m_rubberLink->setLine(QLineF(m_rubberLink->line().p1(), event->scenePos()));
    return;
  }
  QGraphicsScene::mouseMoveEvent(event);
  // Links follow the blocks during the drag; the document learns the new place on release.
  if (!m_dragStart.isEmpty() && (event->buttons() & Qt::LeftButton)) routeLinks();
}

void GraphScene::mouseReleaseEvent(QGraphicsSceneMouseEvent* event) {
  if (m_rubberLink) {
    delete m_rubberLink;
    m_rubberLink = nullptr;
    const QString from = std::exchange(m_linkFrom, QString());
    if (NodeItem* target = nodeAt(event->scenePos()); target && target->id() != from) emit linkRequested(from, target->id());
    return;
  }
  QGraphicsScene::mouseReleaseEvent(event);
  QHash<QString, QPair<QPointF, QPointF>> moves;
  for (auto it = m_dragStart.cbegin(); it != m_dragStart.cend(); ++it) {
    NodeItem* item = m_nodes.value(it.key());
    if (item && item->pos() != it.value()) moves.insert(it.key(), {it.value(), item->pos()});
  }
  m_dragStart.clear();
  if (!moves.isEmpty()) emit nodesMoved(moves);
}

void GraphScene::dragEnterEvent(QGraphicsSceneDragDropEvent* event) {
  event->setAccepted(event->mimeData()->hasFormat(QString::fromLatin1(kLayerMimeType)));
}

void GraphScene::dragMoveEvent(QGraphicsSceneDragDropEvent* event) {
  event->setAccepted(event->mimeData()->hasFormat(QString::fromLatin1(kLayerMimeType)));
}

void GraphScene::dropEvent(QGraphicsSceneDragDropEvent* event) {
  const QByteArray type = event->mimeData()->data(QString::fromLatin1(kLayerMimeType));
  if (type.isEmpty()) return;
  event->acceptProposedAction();
  emit layerDropped(QString::fromUtf8(type), event->scenePos() - QPointF(NodeItem::kWidth / 2, NodeItem::kHeight / 2));
}

}  // namespace netsmith::gui
