// GraphView: the canvas. Wheel zooms (around the cursor), the middle button or Space+drag pans,
// a drag on empty canvas selects with a rubber band.
#pragma once

#include <QGraphicsView>

namespace netsmith::gui {

class GraphView : public QGraphicsView {
  Q_OBJECT
 public:
  explicit GraphView(QGraphicsScene* scene, QWidget* parent = nullptr);
  // The smallest text a block draws (its name and summary, 85% of the font) on screen, in pixels,
  // at the zoom a project opens with: below about 9 px text is guessed at, not read.
  static constexpr qreal kReadableTextPx = 9.5;
  // The zoom at which a block's smallest text is kReadableTextPx with this widget's font.
  qreal readableZoom() const;

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
