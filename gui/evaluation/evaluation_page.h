// EvaluationPage: accuracy, confusion matrix and worst samples arrive with the evaluation feature.
// Until then it says so, and points to training (the "train first" state).
#pragma once

#include <QWidget>

namespace netsmith::gui {

class EvaluationPage : public QWidget {
  Q_OBJECT
 public:
  explicit EvaluationPage(QWidget* parent = nullptr);
};

}  // namespace netsmith::gui
