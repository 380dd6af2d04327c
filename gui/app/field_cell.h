#pragma once

class QLabel;
class QWidget;

namespace netsmith::gui {

// A settings field as the Config and Dataset pages lay it out: the editor (and an optional button
// beside it, such as "…" to browse) above a red sentence that stays hidden until the engine's
// project loader refuses the value typed.
struct FieldCell {
  QWidget* cell;
  QLabel* error;
};

FieldCell makeFieldCell(QWidget* parent, QWidget* editor, QWidget* beside = nullptr);

}  // namespace netsmith::gui
