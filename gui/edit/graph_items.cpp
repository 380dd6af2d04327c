#include "gui/edit/graph_items.h"

#include <QFontMetricsF>
#include <QLocale>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QtMath>
#include <numeric>

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
// The outline and words of the block where the last run diverged (Note [Divergence]).
const QColor kDivergedColor(0xd3, 0x54, 0x00);

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
  m_hasOutput = !schema || !schema->isLoss();
  m_inputPorts = schema ? static_cast<int>(schema->inputs.size()) : 1;
  // The parameters the user set: what distinguishes this block from another of its type.
  QStringList parts;
  if (node->params.is_object())
    for (const auto& [key, value] : node->params.items()) parts << QStringLiteral("%1 %2").arg(qs(key), paramValueText(value));
  m_summary = parts.join(QStringLiteral(" · "));

  m_problems.clear();
  m_shapeLine.clear();
  const auto& analysis = doc.analysis();
  if (const auto it = analysis.nodes.find(node->id); it != analysis.nodes.end()) {
    m_inputPorts = it->second.inputPorts;
    for (const auto& p : it->second.problems) m_problems << qs(p);
    if (it->second.outputShape) {
      m_shapeLine = QStringLiteral("→ %1").arg(qs(shapeToString(*it->second.outputShape)));
      if (it->second.parameterCount > 0)
        m_shapeLine += QStringLiteral("  ·  %1 params").arg(QLocale().toString(static_cast<qlonglong>(it->second.parameterCount)));
    } else {
      m_shapeLine = QStringLiteral("→ ?");
    }
  }
  // Note [Frozen layers]: said first on the parameters' line, so that cutting it short keeps it.
  m_frozen = node->frozen;
  QStringList training;
  if (node->frozen) training << QObject::tr("frozen");
  if (node->lrMult != 1.0) training << QObject::tr("lr ×%1").arg(QLocale().toString(node->lrMult));
  if (!training.isEmpty()) m_summary = (training + QStringList(m_summary)).join(QStringLiteral(" · "));
  if (!schema) m_problems << QObject::tr("unknown layer type '%1'").arg(m_type);
  QString tip = QStringLiteral("<b>%1</b> %2").arg(m_id.toHtmlEscaped(), m_type.toHtmlEscaped());
  if (schema && m_inputPorts > 1 && !schema->variadic)
    tip += QObject::tr("<br>inputs, left to right: %1").arg(qs(std::accumulate(
        std::next(schema->inputs.begin()), schema->inputs.end(), schema->inputs.front(),
        [](const std::string& a, const std::string& b) { return a + ", " + b; })));
  if (schema) tip += QStringLiteral("<br>%1").arg(qs(schema->doc).toHtmlEscaped());
  for (const QString& p : m_problems) tip += QStringLiteral("<br><span style='color:#c0392b'>%1</span>").arg(p.toHtmlEscaped());
  if (!m_runFailure.isEmpty())
    tip += QObject::tr("<br><span style='color:%1'><b>The last run diverged here:</b> %2</span>")
               .arg(QStringLiteral("#d35400"), m_runFailure.toHtmlEscaped());
  setToolTip(tip);
  update();
}

QPointF NodeItem::inputPortPos(int port) const {
  const int n = std::max(1, m_inputPorts);
  port = std::clamp(port, 0, n - 1);
  return pos() + QPointF(kWidth * (port + 1) / (n + 1), 0);
}

NodeItem::Title NodeItem::title(const QFont& base) const {
  QFont small = base;
  small.setPointSizeF(base.pointSizeF() * 0.85);
  const QFontMetricsF smallMetrics(small);
  const QRectF line(14, 3, kWidth - 20, (kHeight - 6) / 3);
  constexpr qreal kGap = 8;
  const qreal idWidth = smallMetrics.horizontalAdvance(m_id);
  // A type a little too long for the line beside its name is set a little smaller (down to 85%)
  // when that makes both fit whole; otherwise it keeps its size and both share the line.
  QFont bold = base;
  bold.setBold(true);
  for (const qreal scale : {1.0, 0.92, 0.85}) {
    QFont candidate = bold;
    candidate.setPointSizeF(base.pointSizeF() * scale);
    if (QFontMetricsF(candidate).horizontalAdvance(m_type) + kGap + idWidth <= line.width()) {
      bold = candidate;
      break;
    }
  }
  const QFontMetricsF boldMetrics(bold);
  const qreal typeWidth = boldMetrics.horizontalAdvance(m_type);
  qreal typeRoom = typeWidth, idRoom = idWidth;
  if (typeWidth + kGap + idWidth > line.width()) {
    // The name gets what the type leaves, but never less than about two fifths of the line.
    idRoom = std::max(line.width() - kGap - typeWidth, std::min(idWidth, line.width() * 0.42));
    typeRoom = line.width() - kGap - idRoom;
  }
  Title t;
  t.typeFont = bold;
  t.type = boldMetrics.elidedText(m_type, Qt::ElideRight, typeRoom);
  t.id = smallMetrics.elidedText(m_id, Qt::ElideMiddle, idRoom);  // the middle: "res2_…_conv1" keeps its number
  const qreal shownType = boldMetrics.horizontalAdvance(t.type), shownId = smallMetrics.horizontalAdvance(t.id);
  t.typeRect = QRectF(line.left(), line.top(), shownType, line.height());
  t.idRect = QRectF(line.right() - shownId, line.top(), shownId, line.height());
  return t;
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
  const bool diverged = !m_runFailure.isEmpty();  // Note [Divergence]: the last run's failure
  const bool selected = option->state & QStyle::State_Selected;
  QPen border(bad ? QColor(0xc0, 0x39, 0x2b)
                  : diverged ? kDivergedColor : (selected ? QColor(0x1e, 0x6f, 0xd9) : QColor(0x80, 0x80, 0x80)),
              bad || selected ? 2.5 : diverged ? 3.5 : 1);
  if (m_frozen && !bad && !selected) border.setStyle(Qt::DashLine);
  painter->setPen(border);
  painter->setBrush(bad ? QColor(0xfd, 0xec, 0xea) : m_frozen ? QColor(0xd9, 0xe2, 0xee) : QColor(0xfb, 0xfb, 0xfb));
  painter->drawRoundedRect(body, 5, 5);
  if (m_frozen) {  // a padlock at the block's bottom-right corner: its parameters are held
    const QPointF at(kWidth - 16, kHeight - 15);
    painter->setPen(QPen(QColor(0x4a, 0x55, 0x68), 1.4));
    painter->setBrush(Qt::NoBrush);
    painter->drawArc(QRectF(at.x() + 1.5, at.y(), 7, 8), 0, 180 * 16);
    painter->drawLine(QPointF(at.x() + 1.5, at.y() + 4), QPointF(at.x() + 1.5, at.y() + 6));
    painter->drawLine(QPointF(at.x() + 8.5, at.y() + 4), QPointF(at.x() + 8.5, at.y() + 6));
    painter->setPen(Qt::NoPen);
    painter->setBrush(QColor(0x4a, 0x55, 0x68));
    painter->drawRoundedRect(QRectF(at.x(), at.y() + 6, 10, 7), 1.5, 1.5);
  }
  // Category stripe on the left.
  painter->setPen(Qt::NoPen);
  painter->setBrush(categoryColor(m_category));
  painter->drawRoundedRect(QRectF(1, 1, 7, kHeight - 2), 3, 3);

  const QFont base = painter->font();
  QFont small = base;
  small.setPointSizeF(base.pointSizeF() * 0.85);
  const QRectF text = body.adjusted(14, 3, -6, -3);
  const qreal line = text.height() / 3;

  // Type and name share the first line, each cut short rather than drawn over the other.
  const Title heading = title(base);
  painter->setPen(QColor(0x20, 0x20, 0x20));
  painter->setFont(heading.typeFont);
  painter->drawText(heading.typeRect.adjusted(0, 0, 2, 0), Qt::AlignLeft | Qt::AlignVCenter, heading.type);
  painter->setFont(small);
  painter->setPen(QColor(0x70, 0x70, 0x70));
  painter->drawText(heading.idRect.adjusted(-2, 0, 0, 0), Qt::AlignRight | Qt::AlignVCenter, heading.id);
  painter->setPen(QColor(0x40, 0x40, 0x40));
  const QString summary = painter->fontMetrics().elidedText(m_summary, Qt::ElideRight, static_cast<int>(text.width()));
  painter->drawText(QRectF(text.left(), text.top() + line, text.width(), line), Qt::AlignLeft | Qt::AlignVCenter, summary);
  painter->setPen(bad ? QColor(0xc0, 0x39, 0x2b) : diverged ? kDivergedColor : QColor(0x1e, 0x5a, 0x3c));
  const QString third = bad        ? painter->fontMetrics().elidedText(m_problems.first(), Qt::ElideRight, static_cast<int>(text.width()))
                        : diverged ? QObject::tr("diverged here (see the tooltip)")
                                   : m_shapeLine;
  painter->drawText(QRectF(text.left(), text.top() + 2 * line, text.width(), line), Qt::AlignLeft | Qt::AlignVCenter, third);
  painter->setFont(base);

  painter->setPen(QPen(QColor(0x50, 0x50, 0x50), 1));
  painter->setBrush(QColor(0xff, 0xff, 0xff));
  for (int i = 0; i < m_inputPorts; ++i)
    painter->drawEllipse(inputPortPos(i) - pos(), kPortRadius - 1, kPortRadius - 1);
  painter->setBrush(QColor(0x1e, 0x6f, 0xd9));
  if (m_hasOutput) painter->drawEllipse(QPointF(kWidth / 2, kHeight), kPortRadius, kPortRadius);
}

LinkItem::LinkItem(const QString& from, const QString& to, int port) : m_from(from), m_to(to), m_port(port) {
  setFlags(ItemIsSelectable);
  setZValue(0);
  setPen(QPen(QColor(0x55, 0x55, 0x55), 1.6));
}

void LinkItem::setRoute(const QPainterPath& path) {
  m_end = path.currentPosition();
  setPath(path);
}

QPainterPath LinkItem::shape() const {
  QPainterPathStroker stroker;
  stroker.setWidth(kHitWidth);
  return stroker.createStroke(path());
}

QRectF LinkItem::boundingRect() const {
  // The arrow head and the hit band reach beyond the path by half the band.
  return path().controlPointRect().adjusted(-kHitWidth, -kHitWidth, kHitWidth, kHitWidth);
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

namespace {
constexpr qreal kClearance = 4;   // how far a path keeps from a block it passes
constexpr qreal kLaneGap = 24;    // from a block's side to the lane beside it
constexpr qreal kLaneStep = 14;   // between two lanes side by side
constexpr qreal kTurn = 14;       // the straight bit out of an output port and into an input port

int crossings(const QPainterPath& path, const QList<QRectF>& obstacles) {
  int n = 0;
  const int steps = std::max(24, static_cast<int>(path.length() / 4));
  for (const QRectF& r : obstacles) {
    const QRectF grown = r.adjusted(-kClearance, -kClearance, kClearance, kClearance);
    if (!path.controlPointRect().intersects(grown)) continue;
    for (int i = 1; i < steps; ++i)
      if (grown.contains(path.pointAtPercent(double(i) / steps))) {
        ++n;
        break;
      }
  }
  return n;
}

// A polyline whose corners are rounded with `radius` (less where a segment is short).
QPainterPath rounded(const QList<QPointF>& points, qreal radius) {
  QPainterPath path(points.front());
  for (int i = 1; i + 1 < points.size(); ++i) {
    const QPointF corner = points[i];
    const QLineF in(corner, points[i - 1]), out(corner, points[i + 1]);
    const qreal r = std::min({radius, in.length() / 2, out.length() / 2});
    if (r <= 0.5) {
      path.lineTo(corner);
      continue;
    }
    path.lineTo(in.pointAt(r / in.length()));
    path.quadTo(corner, out.pointAt(r / out.length()));
  }
  path.lineTo(points.back());
  return path;
}
}  // namespace

QPainterPath routeLink(QPointF start, QPointF end, const QList<QRectF>& obstacles, bool preferRight,
                       QList<LinkLane>& lanes) {
  QPainterPath curve(start);
  const qreal bend = std::max<qreal>(30, std::abs(end.y() - start.y()) / 2);
  curve.cubicTo(start + QPointF(0, bend), end - QPointF(0, bend), end);
  if (crossings(curve, obstacles) == 0) return curve;

  // Down a lane beside the blocks in the way: out of the port, across, along the lane, across
  // above the target, and down into the port.
  const qreal y1 = start.y() + kTurn, y2 = end.y() - kTurn;
  const qreal top = std::min(y1, y2), bottom = std::max(y1, y2);
  const auto laneX = [&](bool right) {
    qreal x = right ? std::max(start.x(), end.x()) + kLaneGap : std::min(start.x(), end.x()) - kLaneGap;
    for (int guard = 0; guard < 500; ++guard) {
      bool moved = false;
      for (const QRectF& r : obstacles)
        if (r.top() - kClearance < bottom && r.bottom() + kClearance > top && r.left() - kClearance < x &&
            r.right() + kClearance > x) {
          x = right ? r.right() + kLaneGap : r.left() - kLaneGap;
          moved = true;
        }
      for (const LinkLane& lane : std::as_const(lanes))
        if (lane.top < bottom + kLaneStep && lane.bottom > top - kLaneStep && std::abs(lane.x - x) < kLaneStep - 0.5) {
          x = right ? lane.x + kLaneStep : lane.x - kLaneStep;
          moved = true;
        }
      if (!moved) break;
    }
    return x;
  };
  const auto detour = [&](qreal x) {
    return rounded({start, QPointF(start.x(), y1), QPointF(x, y1), QPointF(x, y2), QPointF(end.x(), y2), end}, 10);
  };
  const qreal preferredX = laneX(preferRight), otherX = laneX(!preferRight);
  QPainterPath path = detour(preferredX);
  qreal x = preferredX;
  if (const int n = crossings(path, obstacles); n > 0) {
    QPainterPath other = detour(otherX);
    if (crossings(other, obstacles) < n) {
      path = other;
      x = otherX;
    }
  }
  lanes.append({x, top, bottom});
  return path;
}

}  // namespace netsmith::gui
