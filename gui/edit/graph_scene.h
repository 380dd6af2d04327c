// GraphScene: the view of a GraphDocument. It mirrors the document's signals into items and
// reports what the user does as intents (moved these blocks, wants this link, dropped this layer);
// the EditPage turns intents into undo commands (STYLE.md, the diagramscene pattern).
#pragma once

#include <QGraphicsScene>
#include <QHash>
#include <QPair>

#include "gui/document/graph_document.h"

namespace netsmith::gui {

class NodeItem;
class LinkItem;

class GraphScene : public QGraphicsScene {
  Q_OBJECT
 public:
  explicit GraphScene(GraphDocument* doc, QObject* parent = nullptr);

  NodeItem* nodeItem(const QString& id) const { return m_nodes.value(id); }
  QList<LinkItem*> linkItems() const;
  QStringList selectedNodeIds() const;
  // Indices in the document of the selected links.
  std::vector<int> selectedLinkIndices() const;
  void selectNodes(const QStringList& ids);
  // Note [Divergence]: marks block `id` as the one where the last run diverged, with the reason
  // (NodeItem::setRunFailure); any other block's mark goes. An empty id clears the mark.
  void markRunFailure(const QString& id, const QString& reason);
  QString runFailureBlock() const { return m_runFailureBlock; }
  // The document's index of the link `item` draws; -1 when it draws none.
  int linkIndex(const LinkItem* item) const;

 signals:
  // id -> (position before the drag, after)
  void nodesMoved(const QHash<QString, QPair<QPointF, QPointF>>& moves);
  void linkRequested(const QString& from, const QString& to);
  void layerDropped(const QString& type, QPointF scenePos);
  // A right click (or the menu key) on a block, on a link or on the empty canvas. The block or link
  // is selected first (alone, unless it was part of the selection already).
  void nodeMenuRequested(const QString& id, QPoint screenPos);
  void linkMenuRequested(int linkIndex, QPoint screenPos);
  void canvasMenuRequested(QPointF scenePos, QPoint screenPos);

 protected:
  void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseMoveEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseReleaseEvent(QGraphicsSceneMouseEvent* event) override;
  void dragEnterEvent(QGraphicsSceneDragDropEvent* event) override;
  void dragMoveEvent(QGraphicsSceneDragDropEvent* event) override;
  void dropEvent(QGraphicsSceneDragDropEvent* event) override;
  void contextMenuEvent(QGraphicsSceneContextMenuEvent* event) override;

 private:
  void rebuild();
  void rebuildLinks();
  // Lays every link's path out again (blocks moved, ports changed): routed around the blocks in
  // their way (routeLink), each on its own lane.
  void routeLinks();
  void addNodeItem(const QString& id);
  void refreshNodes();
  NodeItem* nodeAt(QPointF scenePos) const;

  GraphDocument* m_doc;
  QHash<QString, NodeItem*> m_nodes;
  QString m_runFailureBlock, m_runFailureReason;
  QList<LinkItem*> m_links;
  QHash<QString, QPointF> m_dragStart;       // selected blocks' positions when a drag began
  QString m_linkFrom;                        // a link being drawn from this block's output
  QGraphicsLineItem* m_rubberLink = nullptr;
};

}  // namespace netsmith::gui
