#include "gui/app/field_cell.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <QWidget>

namespace netsmith::gui {

FieldCell makeFieldCell(QWidget* parent, QWidget* editor, QWidget* beside) {
  auto* row = new QHBoxLayout;
  row->addWidget(editor);
  if (beside) row->addWidget(beside);
  auto* error = new QLabel(parent);
  error->setStyleSheet(QStringLiteral("color:#c0392b"));
  error->setWordWrap(true);
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
