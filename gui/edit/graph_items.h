// The drawing of a network: a block per layer, an arrow per link. Items only draw what the
// GraphDocument says; they never change it (the scene reports the user's intent instead).
#pragma once

#include <QFont>
#include <QGraphicsItem>
#include <QGraphicsPathItem>

#include "gui/document/graph_document.h"

namespace netsmith::gui {

class NodeItem : public QGraphicsItem {
 public:
  static constexpr int kType = UserType + 1;
  static constexpr qreal kWidth = 200, kHeight = 62;
  static constexpr qreal kPortRadius = 6;

  explicit NodeItem(const QString& id);
  int type() const override { return kType; }
  QString id() const { return m_id; }
  void setId(const QString& id) { m_id = id; update(); }
  // Takes the node's type, parameters and analysed facts from the document.
  void refresh(const GraphDocument& doc);
  bool hasProblems() const { return !m_problems.isEmpty(); }
  QString summaryText() const { return m_summary; }
  QString shapeText() const { return m_shapeLine; }
  // Note [Frozen layers]: a frozen block is drawn with a grey-blue fill, a dashed border and a
  // padlock; its parameters' line starts with "frozen" (and "lr ×N" for a multiplier other than 1).
  bool isFrozen() const { return m_frozen; }
  // Note [Divergence] (engine/train/divergence_guard.h): the last run diverged in this block. The
  // block is drawn with an orange outline, says "diverged here" on its third line (unless it has a
  // problem to show) and its tooltip gives the reason; empty clears it. Call refresh() after.
  void setRunFailure(const QString& reason) { m_runFailure = reason; }
  QString runFailure() const { return m_runFailure; }

  // Input ports along the top edge, one per input of the op (the analysis says how many), spread
  // evenly; a link ends at the port it fills (NetworkAnalysis::linkPorts).
  int inputPortCount() const { return m_inputPorts; }
  QPointF inputPortPos(int port) const;
  QPointF outputPortPos() const { return pos() + QPointF(kWidth / 2, kHeight); }
  QRectF sceneBody() const { return QRectF(pos(), QSizeF(kWidth, kHeight)); }
  // True when `scenePoint` is on the output port (where a link drag starts).
  bool isOnOutputPort(QPointF scenePoint) const;
  bool hasOutputPort() const { return m_hasOutput; }

  // The title line as drawn: the type (bold, left; a little smaller when that lets both fit) and
  // the name (right), each cut short with an ellipsis when both do not fit; the name keeps at least
  // about two fifths of the line.
  struct Title {
    QString type, id;
    QRectF typeRect, idRect;  // item coordinates
    QFont typeFont;
  };
  Title title(const QFont& base) const;

  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  QString m_id, m_type, m_category, m_summary, m_shapeLine;
  QStringList m_problems;
  QString m_runFailure;
  int m_inputPorts = 1;
  bool m_hasOutput = true;
  bool m_frozen = false;
};

class LinkItem : public QGraphicsPathItem {
 public:
  static constexpr int kType = UserType + 2;
  LinkItem(const QString& from, const QString& to, int port = 0);
  int type() const override { return kType; }
  QString from() const { return m_from; }
  QString to() const { return m_to; }
  int port() const { return m_port; }  // the input port of `to` it fills
  // The path from an output port to an input port; it must end going down into the port.
  void setRoute(const QPainterPath& path);
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
  // A band kHitWidth wide along the line, so a click or right click a few pixels off still hits it.
  static constexpr qreal kHitWidth = 10;
  QPainterPath shape() const override;
  QRectF boundingRect() const override;

 private:
  QString m_from, m_to;
  int m_port;
  QPointF m_end;
};

// Routes a link from `start` (an output port) to `end` (an input port, entered from above) so that
// it crosses none of `obstacles` (the other blocks' bodies): the usual S-curve when that is clear,
// else an orthogonal path with rounded corners down a lane beside the blocks in its way, on the side
// of `end`'s block where the port is (`preferRight`). `lanes` holds the lanes taken so far (x and
// the vertical span); the new lane keeps clear of them, and is added.
struct LinkLane {
  qreal x, top, bottom;
};
QPainterPath routeLink(QPointF start, QPointF end, const QList<QRectF>& obstacles, bool preferRight,
                       QList<LinkLane>& lanes);

// Colour of a registry category's header stripe.
QColor categoryColor(const QString& category);

}  // namespace netsmith::gui
