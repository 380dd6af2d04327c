#include "gui/evaluation/evaluation_page.h"

#include <QLabel>
#include <QVBoxLayout>

namespace netsmith::gui {

EvaluationPage::EvaluationPage(QWidget* parent) : QWidget(parent) {
  auto* text = new QLabel(tr("<h3>Train first</h3><p>Evaluation (accuracy, confusion matrix, per-class precision and "
                             "recall, worst-classified samples) works on a trained run.</p>"
                             "<p>Train the network on the <b>Training</b> page; its runs are kept in the project's "
                             "<tt>.runs</tt> folder.</p>"),
                          this);
  text->setObjectName(QStringLiteral("trainFirst"));
  text->setAlignment(Qt::AlignCenter);
  text->setWordWrap(true);
  auto* layout = new QVBoxLayout(this);
  layout->addStretch(1);
  layout->addWidget(text);
  layout->addStretch(2);
}

}  // namespace netsmith::gui
