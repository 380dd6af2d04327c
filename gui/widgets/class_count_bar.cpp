#include "gui/widgets/class_count_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>

#include "gui/document/class_count_fix.h"

namespace netsmith::gui {

ClassCountBar::ClassCountBar(ProjectDocument* doc, QWidget* parent) : QFrame(parent), m_doc(doc) {
  setObjectName(QStringLiteral("classCountBar"));
  // The plan's warning colour (training_page_plan.cpp), on a pale ground so the line is seen.
  setStyleSheet(QStringLiteral("#classCountBar { background: #fdf2e0; border: 1px solid #e5c07b; border-radius: 3px; }"));
  m_label = new QLabel(this);
  m_label->setObjectName(QStringLiteral("classCountText"));
  m_label->setWordWrap(true);
  m_label->setStyleSheet(QStringLiteral("color: #8a5a00"));
  m_button = new QPushButton(this);
  m_button->setObjectName(QStringLiteral("setClassCount"));
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(6, 3, 6, 3);
  layout->addWidget(m_label, 1);
  layout->addWidget(m_button);
  connect(m_button, &QPushButton::clicked, this, [this] {
    const auto fix = classCountFix(*m_doc->graph());
    if (!fix) return refresh();
    const QString refusal = applyClassCountFix(m_doc, *fix);
    if (!refusal.isEmpty()) {
      QMessageBox::warning(this, tr("Set the classifier head"), refusal);
      return;
    }
    emit applied();
  });
  connect(doc->graph(), &GraphDocument::analysisChanged, this, &ClassCountBar::refresh);
  connect(doc->graph(), &GraphDocument::modelReset, this, &ClassCountBar::refresh);
  refresh();
}

QString ClassCountBar::text() const { return isHidden() ? QString() : m_label->text(); }

void ClassCountBar::refresh() {
  const auto fix = classCountFix(*m_doc->graph());
  setVisible(fix.has_value());
  if (!fix) return;
  m_label->setText(QStringLiteral("⚠ ") + classCountFixText(*fix));
  m_button->setText(tr("Set the head to %n classes", nullptr, static_cast<int>(fix->classes)));
  m_button->setToolTip(tr("Changes the output count of '%1' from %2 to %3 (one step: Edit ▸ Undo takes it back). With "
                          "initial parameters, its weights are then re-initialised and the other layers loaded.")
                           .arg(qs(fix->nodeId))
                           .arg(fix->outputs)
                           .arg(fix->classes));
}

}  // namespace netsmith::gui
