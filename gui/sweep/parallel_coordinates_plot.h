// The study view's parallel-coordinates plot: one vertical axis per setting of the study, then
// the best validation error; one line per trial through its values, coloured by its error (blue
// low, red high). A log range has a log axis, a choice one place per choice (a list of numbers
// is a numeric axis). Trials stopped early are dashed, failed ones grey and dotted at "failed"
// above the error axis, running ones thin; the selected trial is drawn thick and on top. A click
// on a line selects its trial (trialClicked).
#pragma once

#include <qcustomplot.h>

#include <vector>

#include "engine/study/study_folder.h"

namespace netsmith::gui {

class ParallelCoordinatesPlot : public QCustomPlot {
  Q_OBJECT
 public:
  explicit ParallelCoordinatesPlot(QWidget* parent = nullptr);

  // Redraws from the study's settings and trials; `selected`: the 0-based trial to highlight (-1: none).
  void setStudy(const std::vector<study::SearchParameter>& parameters, const std::vector<study::TrialRecord>& trials,
                int selected);
  // The line of trial `index` (nullptr when it has none), for tests and the screenshot.
  QCPGraph* lineOf(int index) const;
  int lineCount() const;
  // The axis titles, left to right (the settings' short names, then the error).
  QStringList axisTitles() const;

 signals:
  void trialClicked(int index);

 private:
  struct Axis {
    QString title;
    bool log = false;
    double low = 0, high = 1;
    QStringList categories;  // a choice axis: its values, bottom to top

    double place(const nlohmann::json& value) const;  // in [0, 1]; NaN when the value does not fit
    std::vector<std::pair<double, QString>> ticks() const;  // (place, label)
  };
  static Axis axisFor(const study::SearchParameter& p);
  void drawAxes(bool anyFailed);

  std::vector<Axis> m_axes;  // the settings', then the error's
  std::map<int, QCPGraph*> m_lines;
};

}  // namespace netsmith::gui
