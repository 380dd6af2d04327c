// The drawing of a network: a block per layer, an arrow per link. Items only draw what the
// GraphDocument says; they never change it (the scene reports the user's intent instead).
#pragma once

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

  QPointF inputPortPos() const { return pos() + QPointF(kWidth / 2, 0); }
  QPointF outputPortPos() const { return pos() + QPointF(kWidth / 2, kHeight); }
  // True when `scenePoint` is on the output port (where a link drag starts).
  bool isOnOutputPort(QPointF scenePoint) const;
  bool hasOutputPort() const { return m_hasOutput; }

  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  QString m_id, m_type, m_category, m_summary, m_shapeLine;
  QStringList m_problems;
  bool m_hasInput = true, m_hasOutput = true;
};

class LinkItem : public QGraphicsPathItem {
 public:
  static constexpr int kType = UserType + 2;
  LinkItem(const QString& from, const QString& to);
  int type() const override { return kType; }
  QString from() const { return m_from; }
  QString to() const { return m_to; }
  void setEnds(QPointF start, QPointF end);
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  QString m_from, m_to;
  QPointF m_end;
};

// Colour of a registry category's header stripe.
QColor categoryColor(const QString& category);

}  // namespace netsmith::gui
