// The settings pages' field parts (Config, Dataset, the Edit page's Properties): an editor with the
// red sentence under it that says why the engine refused its value.
#pragma once

#include <QLabel>

class QWidget;

namespace netsmith::gui {

// The red sentence under a field (a refused value's reason): wrapped at the field's width, and
// always as tall as its lines there. QFormLayout lays out a field whose widget holds a
// height-for-width label at another width than the field gets (the Properties panel showed a
// four-line sentence as two lines), so this label is not height-for-width: it asks for its height
// at its actual width as its size hints, and asks again when its width changes.
class FieldErrorLabel : public QLabel {
 public:
  explicit FieldErrorLabel(QWidget* parent = nullptr);
  bool hasHeightForWidth() const override { return false; }
  QSize minimumSizeHint() const override;
  QSize sizeHint() const override;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  int m_askedWidth = -1;  // the width the layout last heard the height for
};

// A settings field as the Config and Dataset pages lay it out: the editor (and an optional button
// beside it, such as "…" to browse) above a red sentence that stays hidden until the engine's
// project loader refuses the value typed.
struct FieldCell {
  QWidget* cell;
  QLabel* error;
};

FieldCell makeFieldCell(QWidget* parent, QWidget* editor, QWidget* beside = nullptr);

}  // namespace netsmith::gui
