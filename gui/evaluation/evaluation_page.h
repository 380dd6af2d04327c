// EvaluationPage: judge a trained run (DESIGN.md §1, "Evaluate and export"). Choose any run of the
// project's history (or another run folder), a dataset (validation, training or a CSV) and which
// parameters (last or best); `netsmith-cli evaluate RUN --json` runs as a child process (never in
// the GUI thread) and the page shows accuracy, the confusion matrix as a heat map with counts, the
// per-class precision / recall / F-measure / support with macro averages, and a sample browser.
// Export writes the ONNX model (`netsmith-cli export RUN --onnx FILE`) or the per-class table as CSV.
// An evaluation already in the run folder (RUN/evaluation/<dataset>-<parameters>/evaluation.json)
// is shown when its run is chosen. Without any run the page says "Train first". The Inference tab
// (InferenceTab) classifies images a person drops with the chosen run and parameters.
#pragma once

#include <QWidget>
#include <optional>

#include "gui/document/project_document.h"
#include "gui/evaluation/evaluation_result.h"
#include "gui/training/run_history.h"

class QComboBox;
class QLabel;
class QProcess;
class QPushButton;
class QStackedWidget;
class QTableWidget;
class QTabWidget;

namespace netsmith::gui {

class ConfusionMatrixPlot;
class InferenceTab;
class SampleBrowser;

class EvaluationPage : public QWidget {
  Q_OBJECT
 public:
  explicit EvaluationPage(ProjectDocument* doc, QWidget* parent = nullptr);
  ~EvaluationPage() override;

  // Re-reads the project's runs (keeps the chosen one when it is still there).
  void refreshRuns();
  // Chooses a run folder (adds it when it is not in the history). False when it is not a folder.
  bool selectRun(const QString& folder);
  QString selectedRun() const;
  // "validation", "training" or a CSV path; "last" or "best".
  void setDataset(const QString& dataset);
  void setParameters(const QString& which);

  // Starts `evaluate --json` on the chosen run; false (with the reason in statusText()) when no
  // run is chosen or one is already being evaluated. evaluated(ok) follows.
  bool evaluate();
  bool isEvaluating() const { return m_query != nullptr; }
  // Shows an evaluation (also used for one read back from the run folder).
  void showResult(const EvaluationResult& result);

  // Writes the per-class table; false with the reason in statusText().
  bool exportCsv(const QString& file);
  // Starts `export RUN --onnx FILE`; exported(ok, message) follows.
  bool exportOnnx(const QString& file);

  bool showsTrainFirst() const;
  std::optional<EvaluationResult> result() const { return m_result; }
  QString statusText() const;
  QString summaryText() const;
  ConfusionMatrixPlot* confusionMatrix() const { return m_matrix; }
  QTableWidget* perClassTable() const { return m_perClass; }
  SampleBrowser* samples() const { return m_samples; }
  InferenceTab* inference() const { return m_inference; }
  // Shows the Evaluation (0) or the Inference (1) tab.
  void showTab(int index);

 signals:
  void evaluated(bool ok);
  void exported(bool ok, const QString& message);

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void runChosen();
  QString datasetArgument() const;
  QString evaluationFolder() const;  // RUN/evaluation/<dataset>-<parameters> for the current choice
  void setStatus(const QString& text, bool error = false);
  void updateEnabled();

  ProjectDocument* m_doc;
  QList<RunSummary> m_runs;
  QStringList m_extraRuns;  // folders chosen with "Other run…"
  std::optional<EvaluationResult> m_result;
  QProcess* m_query = nullptr;
  QProcess* m_export = nullptr;
  QString m_csvFile;

  QStackedWidget* m_stack;
  QComboBox* m_run;
  QComboBox* m_dataset;
  QComboBox* m_parameters;
  QPushButton *m_evaluate, *m_exportOnnx, *m_exportCsv;
  QLabel* m_status;
  QLabel* m_summary;
  ConfusionMatrixPlot* m_matrix;
  QTableWidget* m_perClass;
  SampleBrowser* m_samples;
  QTabWidget* m_tabs;
  InferenceTab* m_inference;
};

}  // namespace netsmith::gui
