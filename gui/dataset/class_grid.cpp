#include "gui/dataset/class_grid.h"

#include <QGridLayout>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

#include "gui/dataset/sample_thumbnails.h"

namespace netsmith::gui {

ClassGrid::ClassGrid(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_grid = new QGridLayout;
  m_grid->setHorizontalSpacing(4);
  m_grid->setVerticalSpacing(4);
  m_message = new QLabel(this);
  m_message->setWordWrap(true);
  m_message->setStyleSheet(QStringLiteral("color:#666"));
  m_message->hide();
  layout->addLayout(m_grid);
  layout->addWidget(m_message);
  layout->addStretch(1);
}

void ClassGrid::clearRows() {
  while (QLayoutItem* item = m_grid->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  m_classes.clear();
}

QString ClassGrid::rowName(int row) const {
  if (row < 0 || row >= m_classes.size()) return {};
  const ClassSamples& c = m_classes[row];
  return c.name.isEmpty() ? tr("class %1").arg(c.label) : c.name;
}

void ClassGrid::setClasses(const QList<ClassSamples>& classes, long long totalClasses) {
  clearRows();
  m_classes = classes;
  const QLocale locale;
  int columns = 0;
  for (int r = 0; r < classes.size(); ++r) {
    const ClassSamples& c = classes[r];
    // The label number and name, the count under them in grey.
    auto* name = new QLabel(this);
    name->setTextFormat(Qt::RichText);
    name->setText(QStringLiteral("<b>%1</b> %2<br><span style='color:#666'>%3</span>")
                      .arg(c.label)
                      .arg(c.name.toHtmlEscaped(), tr("%1 samples").arg(locale.toString(c.count))));
    name->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    name->setToolTip(tr("Class %1%2: %3 training samples")
                         .arg(c.label)
                         .arg(c.name.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(c.name))
                         .arg(locale.toString(c.count)));
    m_grid->addWidget(name, r, 0);
    for (int i = 0; i < c.images.size(); ++i) {
      auto* cell = new QLabel(this);
      cell->setPixmap(thumbnail(c.images[i]));
      cell->setToolTip(tr("%1, sample %2 (%3×%4 pixels)")
                           .arg(rowName(r))
                           .arg(c.indices.value(i))
                           .arg(c.images[i].width())
                           .arg(c.images[i].height()));
      m_grid->addWidget(cell, r, 1 + i, Qt::AlignCenter);
    }
    columns = std::max(columns, static_cast<int>(c.images.size()));
  }
  // Thumbnails keep their size; the spare width goes to the right of the last column.
  for (int c = 0; c < std::max(m_grid->columnCount(), columns + 2); ++c) m_grid->setColumnStretch(c, c == columns + 1 ? 1 : 0);
  if (totalClasses > classes.size()) {
    m_message->setText(tr("The first %1 of %2 classes.").arg(classes.size()).arg(locale.toString(totalClasses)));
    m_message->show();
  } else {
    m_message->hide();
  }
}

void ClassGrid::showMessage(const QString& message) {
  clearRows();
  m_message->setText(message);
  m_message->setVisible(!message.isEmpty());
}

}  // namespace netsmith::gui
