// GraphView: the canvas. Wheel zooms (around the cursor), the middle button or Space+drag pans,
// a drag on empty canvas selects with a rubber band.
#pragma once

#include <QGraphicsView>

namespace netsmith::gui {

class GraphView : public QGraphicsView {
  Q_OBJECT
 public:
  explicit GraphView(QGraphicsScene* scene, QWidget* parent = nullptr);
  // Below this zoom a block's text cannot be read.
  static constexpr qreal kReadableZoom = 0.6;

  void zoomBy(qreal factor);
  void fitAll();
  // The whole network if it fits at a readable zoom, else its beginning (top left) at that zoom,
  // with the rest a scroll away: what a project shows when it is opened.
  void showReadable();
  qreal zoom() const { return transform().m11(); }

 protected:
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void keyReleaseEvent(QKeyEvent* event) override;
  void drawBackground(QPainter* painter, const QRectF& rect) override;

 private:
  bool m_panning = false;
  bool m_spaceHeld = false;
  QPoint m_panFrom;
};

}  // namespace netsmith::gui
