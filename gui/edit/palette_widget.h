// PaletteWidget: every layer of the op registry, grouped by category, with a search box and each
// layer's doc as a tooltip. Dragging an entry onto the canvas adds the layer; double-clicking
// asks for it at the centre of the view.
#pragma once

#include <QTreeWidget>
#include <QWidget>

class QLineEdit;

namespace netsmith::gui {

// MIME type of a palette drag; the payload is the layer type's name in UTF-8.
inline constexpr char kLayerMimeType[] = "application/x-netsmith-layer";

class PaletteTree : public QTreeWidget {
  Q_OBJECT
 public:
  using QTreeWidget::QTreeWidget;

 protected:
  QMimeData* mimeData(const QList<QTreeWidgetItem*>& items) const override;
  QStringList mimeTypes() const override { return {QString::fromLatin1(kLayerMimeType)}; }
};

class PaletteWidget : public QWidget {
  Q_OBJECT
 public:
  explicit PaletteWidget(QWidget* parent = nullptr);
  // Shows only layers whose name, category or doc contains `text` (case-insensitive).
  void setFilter(const QString& text);
  // The layer names listed (visible or not), for tests.
  QStringList layerNames() const;
  QStringList visibleLayerNames() const;

 signals:
  void layerActivated(const QString& type);

 private:
  QLineEdit* m_search;
  PaletteTree* m_tree;
};

}  // namespace netsmith::gui
