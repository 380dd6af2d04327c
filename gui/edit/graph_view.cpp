#include "gui/edit/graph_view.h"

#include <QFontInfo>
#include <QKeyEvent>
#include <QScrollBar>
#include <QWheelEvent>
#include <cmath>

namespace netsmith::gui {

GraphView::GraphView(QGraphicsScene* scene, QWidget* parent) : QGraphicsView(scene, parent) {
  setRenderHint(QPainter::Antialiasing);
  setDragMode(QGraphicsView::RubberBandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setResizeAnchor(QGraphicsView::AnchorViewCenter);
  setViewportUpdateMode(QGraphicsView::BoundingRectViewportUpdate);
  setAcceptDrops(true);
  // A generous scene rect so blocks can be placed anywhere around the network.
  setSceneRect(-5000, -5000, 10000, 10000);
}

void GraphView::zoomBy(qreal factor) {
  const qreal next = zoom() * factor;
  if (next < 0.1 || next > 4) return;
  scale(factor, factor);
}

void GraphView::fitAll() {
  QRectF bounds = scene()->itemsBoundingRect();
  if (bounds.isEmpty()) {
    resetTransform();
    centerOn(0, 0);
    return;
  }
  fitInView(bounds.adjusted(-40, -40, 40, 40), Qt::KeepAspectRatio);
  if (zoom() > 1.25) {  // a small network is shown at a readable size, not blown up
    const QPointF c = bounds.center();
    resetTransform();
    scale(1.25, 1.25);
    centerOn(c);
  }
}

qreal GraphView::readableZoom() const {
  // NodeItem sets its name and summary at 85% of the font it paints with (the scene's, the view's).
  const qreal smallPx = 0.85 * QFontInfo(scene() ? scene()->font() : font()).pixelSize();
  return smallPx > 0 ? kReadableTextPx / smallPx : 1.0;
}

void GraphView::showReadable() {
  fitAll();
  const qreal readable = readableZoom();
  if (zoom() >= readable) return;
  const QRectF bounds = scene()->itemsBoundingRect().adjusted(-40, -40, 40, 40);
  resetTransform();
  scale(readable, readable);
  const QSizeF visible = QSizeF(viewport()->size()) / readable;
  const qreal x = bounds.width() <= visible.width() ? bounds.center().x() : bounds.left() + visible.width() / 2;
  centerOn(x, bounds.top() + visible.height() / 2);
}

void GraphView::wheelEvent(QWheelEvent* event) {
  zoomBy(std::pow(1.0015, event->angleDelta().y()));
  event->accept();
}

void GraphView::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::MiddleButton || (event->button() == Qt::LeftButton && m_spaceHeld)) {
    m_panning = true;
    m_panFrom = event->position().toPoint();
    viewport()->setCursor(Qt::ClosedHandCursor);
    event->accept();
    return;
  }
  QGraphicsView::mousePressEvent(event);
}

void GraphView::mouseMoveEvent(QMouseEvent* event) {
  if (m_panning) {
    const QPoint delta = event->position().toPoint() - m_panFrom;
    m_panFrom = event->position().toPoint();
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() - delta.x());
    verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y());
    event->accept();
    return;
  }
  QGraphicsView::mouseMoveEvent(event);
}

void GraphView::mouseReleaseEvent(QMouseEvent* event) {
  if (m_panning) {
    m_panning = false;
    viewport()->unsetCursor();
    event->accept();
    return;
  }
  QGraphicsView::mouseReleaseEvent(event);
}

void GraphView::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Space && !event->isAutoRepeat()) {
    m_spaceHeld = true;
    viewport()->setCursor(Qt::OpenHandCursor);
  }
  QGraphicsView::keyPressEvent(event);
}

void GraphView::keyReleaseEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Space && !event->isAutoRepeat()) {
    m_spaceHeld = false;
    viewport()->unsetCursor();
  }
  QGraphicsView::keyReleaseEvent(event);
}

void GraphView::drawBackground(QPainter* painter, const QRectF& rect) {
  QGraphicsView::drawBackground(painter, rect);
  // A light dot grid, which helps line blocks up.
  if (zoom() < 0.35) return;
  constexpr int kStep = 30;
  painter->setPen(QPen(QColor(0xcf, 0xd2, 0xd8), 1.5));
  const qreal left = std::floor(rect.left() / kStep) * kStep, top = std::floor(rect.top() / kStep) * kStep;
  QVector<QPointF> dots;
  for (qreal x = left; x < rect.right(); x += kStep)
    for (qreal y = top; y < rect.bottom(); y += kStep) dots.push_back(QPointF(x, y));
  painter->drawPoints(dots.constData(), static_cast<int>(dots.size()));
}

}  // namespace netsmith::gui
