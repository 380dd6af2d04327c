// ChartsPanel: the right of the Training page, in a vertical splitter: the learning curve, the
// device charts in tabs by what a person watches (utilization beside the step time, memory, a
// GPU's temperature beside its power: Note [Training page layout]), and the engine log. The plots
// are drawn by TrainingCharts; the temperature and power tab shows once a GPU reports them, and a
// new run hides it again.
#pragma once

#include <QSplitter>

class QCustomPlot;
class QPlainTextEdit;
class QTabWidget;

namespace netsmith::gui {

class TrainingCharts;

class ChartsPanel : public QSplitter {
  Q_OBJECT
 public:
  // Note [Training page layout]: a device chart is never smaller than this, so that its axis
  // labels and tick labels have room (they were about 70 px tall in a grid of five at 1366×768).
  static constexpr int kDeviceChartMinimumHeight = 170;

  explicit ChartsPanel(QWidget* parent = nullptr);

  TrainingCharts* charts() const { return m_charts; }
  QPlainTextEdit* log() const { return m_log; }
  // A new run or a resume: the previous run's curves, device lines and log go.
  void clearRun();
  void appendLog(const QString& text, bool html);

 private:
  QCustomPlot *m_curvePlot, *m_utilPlot, *m_memPlot, *m_timingPlot, *m_temperaturePlot, *m_powerPlot;
  QTabWidget* m_deviceCharts;  // the device charts, a tab per thing to watch
  int m_sensorTab = -1;        // temperature and power: shown once a GPU reports them
  TrainingCharts* m_charts;
  QPlainTextEdit* m_log;
};

}  // namespace netsmith::gui
