#include "gui/edit/graph_items.h"

#include <QLocale>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QtMath>

#include "engine/core/shape.h"

namespace netsmith::gui {

QColor categoryColor(const QString& category) {
  // Fixed colours for the common categories; any other gets one derived from its name.
  static const QHash<QString, QColor> known{{"IO", QColor(0x5b, 0x8d, 0xd6)},        {"Basic", QColor(0x3f, 0xa3, 0x7a)},
                                            {"Activation", QColor(0xe0, 0x9f, 0x3e)}, {"Pooling", QColor(0x8e, 0x6c, 0xc4)},
                                            {"Normalization", QColor(0x4a, 0xa9, 0xb8)}, {"Loss", QColor(0xc4, 0x5c, 0x7a)},
                                            {"Arithmetic", QColor(0x7f, 0x8c, 0x3d)}};
  if (known.contains(category)) return known[category];
  return QColor::fromHsv(static_cast<int>(qHash(category) % 360), 110, 190);
}

namespace {
QString paramValueText(const Json& v) {
  if (v.is_array()) {
    QStringList parts;
    for (const Json& e : v) parts << qs(e.dump());
    return parts.join(QLatin1Char(','));
  }
  if (v.is_string()) return qs(v.get<std::string>());
  return qs(v.dump());
}
}  // namespace

NodeItem::NodeItem(const QString& id) : m_id(id) {
  setFlags(ItemIsMovable | ItemIsSelectable);
  setAcceptHoverEvents(true);
  setZValue(1);
}

void NodeItem::refresh(const GraphDocument& doc) {
  const NodeSpec* node = doc.node(ss(m_id));
  if (!node) return;
  prepareGeometryChange();
  m_type = qs(node->type);
  const OpSchema* schema = OpRegistry::builtin().find(node->type);
  m_category = schema ? qs(schema->category) : QString();
  m_hasInput = !schema || !schema->inputs.empty();
  m_hasOutput = !schema || !schema->isLoss();
  // The parameters the user set: what distinguishes this block from another of its type.
  QStringList parts;
  if (node->params.is_object())
    for (const auto& [key, value] : node->params.items()) parts << QStringLiteral("%1 %2").arg(qs(key), paramValueText(value));
  m_summary = parts.join(QStringLiteral(" · "));

  m_problems.clear();
  m_shapeLine.clear();
  const auto& analysis = doc.analysis();
  if (const auto it = analysis.nodes.find(node->id); it != analysis.nodes.end()) {
    for (const auto& p : it->second.problems) m_problems << qs(p);
    if (it->second.outputShape) {
      m_shapeLine = QStringLiteral("→ %1").arg(qs(shapeToString(*it->second.outputShape)));
      if (it->second.parameterCount > 0)
        m_shapeLine += QStringLiteral("  ·  %1 params").arg(QLocale().toString(static_cast<qlonglong>(it->second.parameterCount)));
    } else {
      m_shapeLine = QStringLiteral("→ ?");
    }
  }
  if (!schema) m_problems << QObject::tr("unknown layer type '%1'").arg(m_type);
  QString tip = QStringLiteral("<b>%1</b> %2").arg(m_id.toHtmlEscaped(), m_type);
  if (schema) tip += QStringLiteral("<br>%1").arg(qs(schema->doc).toHtmlEscaped());
  for (const QString& p : m_problems) tip += QStringLiteral("<br><span style='color:#c0392b'>%1</span>").arg(p.toHtmlEscaped());
  setToolTip(tip);
  update();
}

bool NodeItem::isOnOutputPort(QPointF scenePoint) const {
  return m_hasOutput && QLineF(scenePoint, outputPortPos()).length() <= kPortRadius + 4;
}

QRectF NodeItem::boundingRect() const {
  return QRectF(-kPortRadius - 2, -kPortRadius - 2, kWidth + 2 * kPortRadius + 4, kHeight + 2 * kPortRadius + 4);
}

void NodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  painter->setRenderHint(QPainter::Antialiasing);
  const QRectF body(0, 0, kWidth, kHeight);
  const bool bad = !m_problems.isEmpty();
  const bool selected = option->state & QStyle::State_Selected;
  QPen border(bad ? QColor(0xc0, 0x39, 0x2b) : (selected ? QColor(0x1e, 0x6f, 0xd9) : QColor(0x80, 0x80, 0x80)),
              bad || selected ? 2.5 : 1);
  painter->setPen(border);
  painter->setBrush(bad ? QColor(0xfd, 0xec, 0xea) : QColor(0xfb, 0xfb, 0xfb));
  painter->drawRoundedRect(body, 5, 5);
  // Category stripe on the left.
  painter->setPen(Qt::NoPen);
  painter->setBrush(categoryColor(m_category));
  painter->drawRoundedRect(QRectF(1, 1, 7, kHeight - 2), 3, 3);

  const QFont base = painter->font();
  QFont bold = base;
  bold.setBold(true);
  QFont small = base;
  small.setPointSizeF(base.pointSizeF() * 0.85);
  const QRectF text = body.adjusted(14, 3, -6, -3);
  const qreal line = text.height() / 3;

  painter->setPen(QColor(0x20, 0x20, 0x20));
  painter->setFont(bold);
  painter->drawText(QRectF(text.left(), text.top(), text.width(), line), Qt::AlignLeft | Qt::AlignVCenter, m_type);
  painter->setFont(small);
  painter->setPen(QColor(0x70, 0x70, 0x70));
  painter->drawText(QRectF(text.left(), text.top(), text.width(), line), Qt::AlignRight | Qt::AlignVCenter, m_id);
  painter->setPen(QColor(0x40, 0x40, 0x40));
  const QString summary = painter->fontMetrics().elidedText(m_summary, Qt::ElideRight, static_cast<int>(text.width()));
  painter->drawText(QRectF(text.left(), text.top() + line, text.width(), line), Qt::AlignLeft | Qt::AlignVCenter, summary);
  painter->setPen(bad ? QColor(0xc0, 0x39, 0x2b) : QColor(0x1e, 0x5a, 0x3c));
  const QString third = bad ? painter->fontMetrics().elidedText(m_problems.first(), Qt::ElideRight, static_cast<int>(text.width()))
                            : m_shapeLine;
  painter->drawText(QRectF(text.left(), text.top() + 2 * line, text.width(), line), Qt::AlignLeft | Qt::AlignVCenter, third);
  painter->setFont(base);

  painter->setPen(QPen(QColor(0x50, 0x50, 0x50), 1));
  painter->setBrush(QColor(0xff, 0xff, 0xff));
  if (m_hasInput) painter->drawEllipse(QPointF(kWidth / 2, 0), kPortRadius - 1, kPortRadius - 1);
  painter->setBrush(QColor(0x1e, 0x6f, 0xd9));
  if (m_hasOutput) painter->drawEllipse(QPointF(kWidth / 2, kHeight), kPortRadius, kPortRadius);
}

LinkItem::LinkItem(const QString& from, const QString& to) : m_from(from), m_to(to) {
  setFlags(ItemIsSelectable);
  setZValue(0);
  setPen(QPen(QColor(0x55, 0x55, 0x55), 1.6));
}

void LinkItem::setEnds(QPointF start, QPointF end) {
  m_end = end;
  QPainterPath path(start);
  const qreal bend = std::max<qreal>(30, std::abs(end.y() - start.y()) / 2);
  path.cubicTo(start + QPointF(0, bend), end - QPointF(0, bend), end);
  setPath(path);
}

void LinkItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  painter->setRenderHint(QPainter::Antialiasing);
  QPen p = pen();
  if (option->state & QStyle::State_Selected) p = QPen(QColor(0x1e, 0x6f, 0xd9), 3);
  painter->setPen(p);
  painter->setBrush(Qt::NoBrush);
  painter->drawPath(path());
  // Arrow head pointing into the input port.
  const QPointF tip = m_end - QPointF(0, NodeItem::kPortRadius);
  QPolygonF head{tip, tip + QPointF(-5, -9), tip + QPointF(5, -9)};
  painter->setBrush(p.color());
  painter->drawPolygon(head);
}

}  // namespace netsmith::gui
