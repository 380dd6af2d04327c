// LrFindDialog (the Optimizer panel's "Find a learning rate…"): runs `netsmith-cli lr-find
// --json` on the project as saved (Note [Learning-rate range test]), plots the loss against the
// rate (log scale: each iteration's loss and the smoothed curve), marks the suggested rate, and
// "Use this rate" sets the solver's learning rate (lr, alpha or eta) to it as one undo step.
#pragma once

#include <QDialog>
#include <optional>

#include "gui/document/project_document.h"

class QCustomPlot;
class QLabel;
class QLineEdit;
class QProcess;
class QPushButton;
class QSpinBox;

namespace netsmith::gui {

class LrFindDialog : public QDialog {
  Q_OBJECT
 public:
  explicit LrFindDialog(ProjectDocument* doc, QWidget* parent = nullptr);
  ~LrFindDialog() override;

  void setRange(const QString& low, const QString& high, int iterations);
  // As the buttons: start() returns false with the reason in statusText().
  bool start();
  void stop();
  bool running() const { return m_process != nullptr; }
  // Shows a result as `lr-find --json` prints it (also what start() does when the test ends);
  // false with the reason in statusText() when it does not read.
  bool showResult(const QByteArray& json);
  std::optional<double> suggestedRate() const { return m_suggested; }
  QString statusText() const;
  QCustomPlot* plot() const { return m_plot; }
  QPushButton* useButton() const { return m_use; }
  // Sets the solver's learning rate to the suggestion (the "Use this rate" button).
  bool useSuggestedRate();

 signals:
  void finished();

 private:
  void setStatus(const QString& text);
  void updateButtons();

  ProjectDocument* m_doc;
  QLineEdit* m_low;
  QLineEdit* m_high;
  QSpinBox* m_iterations;
  QPushButton* m_start;
  QPushButton* m_stop;
  QPushButton* m_use;
  QCustomPlot* m_plot;
  QLabel* m_status;
  QProcess* m_process = nullptr;
  std::optional<double> m_suggested;
};

}  // namespace netsmith::gui
