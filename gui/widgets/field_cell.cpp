#include "gui/widgets/field_cell.h"

#include <QHBoxLayout>
#include <QResizeEvent>
#include <QVBoxLayout>
#include <QWidget>

namespace netsmith::gui {

FieldErrorLabel::FieldErrorLabel(QWidget* parent) : QLabel(parent) {
  setStyleSheet(QStringLiteral("color:#c0392b"));
  setWordWrap(true);
}

QSize FieldErrorLabel::minimumSizeHint() const {
  QSize size = QLabel::minimumSizeHint();
  if (!text().isEmpty() && width() > 0) size.setHeight(std::max(size.height(), heightForWidth(width())));
  return size;
}

QSize FieldErrorLabel::sizeHint() const {
  QSize size = QLabel::sizeHint();
  size.setHeight(std::max(size.height(), minimumSizeHint().height()));
  return size;
}

void FieldErrorLabel::resizeEvent(QResizeEvent* event) {
  QLabel::resizeEvent(event);
  // Another width is another number of lines: the layout asks for the height again.
  if (event->size().width() != m_askedWidth) {
    m_askedWidth = event->size().width();
    updateGeometry();
  }
}

FieldCell makeFieldCell(QWidget* parent, QWidget* editor, QWidget* beside) {
  auto* row = new QHBoxLayout;
  row->addWidget(editor);
  if (beside) row->addWidget(beside);
  auto* error = new FieldErrorLabel(parent);
  error->hide();
  auto* cell = new QWidget(parent);
  auto* cellLayout = new QVBoxLayout(cell);
  cellLayout->setContentsMargins(0, 0, 0, 0);
  cellLayout->setSpacing(1);
  cellLayout->addLayout(row);
  cellLayout->addWidget(error);
  return {cell, error};
}

}  // namespace netsmith::gui
