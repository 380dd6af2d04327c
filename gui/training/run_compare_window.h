// RunCompareWindow: the run history's Compare — what changed between two runs (Note [Run
// differences], engine/train/run_diff.h) beside their learning curves overlaid. On the left the
// differences table, `setting | A | B` grouped Settings, Network, Run, Result (the rows of
// `netsmith-cli diff`); on the right the two runs' training loss (dotted) and validation error
// (dash-dotted) in the run history's overlay colours (A: slot 0, B: slot 1), each named in the
// legend. The heading names A and B with their colour. A run that cannot be read (a damaged
// run.json, project.nsproj or learning_curve.csv) shows the engine's message naming the file.
#pragma once

#include <QString>
#include <QWidget>

class QCustomPlot;
class QLabel;
class QSplitter;
class QTreeWidget;

namespace netsmith::gui {

class LearningCurveChart;

class RunCompareWindow : public QWidget {
  Q_OBJECT
 public:
  // `nameA` / `nameB`: what the run history calls the runs ("20261126-101500", a label).
  RunCompareWindow(const QString& folderA, const QString& nameA, const QString& folderB, const QString& nameB,
                   QWidget* parent = nullptr);
  ~RunCompareWindow() override;

  QTreeWidget* differences() const { return m_table; }  // top-level items: the groups; children: the rows
  QCustomPlot* plot() const { return m_plot; }
  // Why the runs could not be compared; empty when they were.
  QString error() const { return m_error; }

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void fillDifferences(const QString& folderA, const QString& folderB);

  QTreeWidget* m_table;
  QCustomPlot* m_plot;
  LearningCurveChart* m_chart;
  QLabel* m_heading;
  QSplitter* m_splitter;
  bool m_sized = false;  // the splitter's first sizes are set when first shown
  QString m_error;
};

}  // namespace netsmith::gui
