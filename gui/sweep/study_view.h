// The Sweep dialog's study view, beside the results table: a sentence on the study (its search,
// how many trials ended how), the parallel-coordinates plot (parallel_coordinates_plot.h) over a
// split with the importance bars (importance_chart.h). It is drawn from the study's log
// (study_log.h), so it follows a running study trial by trial.
#pragma once

#include <QWidget>

#include "engine/study/study_runner.h"
#include "gui/sweep/study_log.h"

class QLabel;

namespace netsmith::gui {

class ImportanceChart;
class ParallelCoordinatesPlot;

class StudyView : public QWidget {
  Q_OBJECT
 public:
  explicit StudyView(QWidget* parent = nullptr);

  // Redraws from the log (nullptr: no study yet); `selected`: the 0-based trial of the table's
  // selected row (-1: none).
  void setStudy(const StudyLog* log, int selected);

  ParallelCoordinatesPlot* plot() const { return m_plot; }
  ImportanceChart* importance() const { return m_importance; }
  QString summaryText() const;

 signals:
  void trialClicked(int index);

 private:
  QLabel* m_summary;
  ParallelCoordinatesPlot* m_plot;
  ImportanceChart* m_importance;
};

}  // namespace netsmith::gui
