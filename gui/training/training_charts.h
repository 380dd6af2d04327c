// The Training page's live charts (QCustomPlot): the learning curve (LearningCurveChart) and the
// device charts. Events are appended to pending buffers as they arrive; a 50 ms timer moves them
// into the plots and replots once, so a fast stream never floods the GUI thread (STYLE.md, the
// QCustomPlot realtime pattern).
#pragma once

#include <QHash>
#include <QObject>
#include <QSet>
#include <QTimer>
#include <QVector>

#include "gui/run/engine_event.h"
#include "gui/training/learning_curve_chart.h"

class QCustomPlot;
class QCPGraph;
class QCPBars;

namespace netsmith::gui {

// The per-device plots: one line per device over elapsed time (utilization, memory, and a GPU's
// temperature and power from NVML), and the mean step time per device as bars.
struct DevicePlots {
  QCustomPlot* utilization = nullptr;
  QCustomPlot* memory = nullptr;
  QCustomPlot* temperature = nullptr;
  QCustomPlot* power = nullptr;
  QCustomPlot* timing = nullptr;
};

class TrainingCharts : public QObject {
  Q_OBJECT
 public:
  static constexpr int kReplotIntervalMs = 50;
  // Weight of the smoothed loss (learning_curve_chart.h).
  static constexpr double kSmoothing = LearningCurveChart::kSmoothing;
  // A device's samples further apart than this many typical intervals (and at least kGapMinS) are
  // a pause or a stall: the device's lines break there instead of drawing a diagonal.
  static constexpr double kGapFactor = 4;
  static constexpr double kGapMinS = 2;

  // The plots are owned by the caller's widgets; this object fills them.
  TrainingCharts(QCustomPlot* curve, const DevicePlots& devices, QObject* parent = nullptr);

  void clear();  // a new run starts
  void addIteration(const IterationEvent& e, double elapsedS);
  void addEpoch(const EpochEvent& e);
  // The run paused (or stopped sampling): the device lines break before their next point.
  void markPause();
  void setLogScale(bool log);
  // Past runs' curves, dotted (training loss) and dash-dotted (validation error), in each run's
  // overlay colour (Note [Chart colours]). The legend keys the two styles once, not per run, so
  // ticking runs never takes height from the plot.
  void setOverlays(const QList<CurvePoints>& runs);
  // Moves pending points into the plots now (the timer calls it).
  void flush();
  // A resume continues from its checkpoint, `iteration` iterations into epoch `epoch` (1-based):
  // the points of what was trained after that position, which the resume trains again, go.
  void dropAfter(long long epoch, long long iteration);

  // Every plot can be zoomed (wheel) and panned (drag); a plot the user zoomed or panned keeps its
  // ranges as new points arrive, until Reset zoom (its right-click menu, with Export chart as PNG
  // and Export data as CSV: chart_export.h) fits it to the data again.
  bool isZoomed(const QCustomPlot* plot) const { return m_zoomed.contains(plot); }
  void resetZoom(QCustomPlot* plot);
  QList<QCustomPlot*> plots() const;

  // Points in the plots (after flush), for tests.
  int iterationPoints() const;
  int epochPoints() const;
  int utilizationPoints() const;  // summed over devices
  int temperaturePoints() const;  // summed over devices
  int powerPoints() const;        // summed over devices
  int timingDevices() const { return m_timingIds.size(); }
  // Some device reported temperature or power (a GPU): the page shows those plots.
  bool hasSensorData() const { return m_sensorsSeen; }

 signals:
  void sensorDataArrived();  // the first temperature or power value of a run
  void cleared();            // clear(): a new run starts

 private:
  enum Metric { kUtilization, kMemory, kTemperature, kPower, kMetrics };
  struct DeviceSeries {
    QCPGraph* graph[kMetrics] = {};
    QVector<double> t, values[kMetrics];  // pending
    double computeSum = 0, overlapSum = 0, waitSum = 0;
    int samples = 0;
    double lastT = kNoValue;     // elapsed time of the newest sample
    double interval = kNoValue;  // typical time between samples (a running mean)
    bool breakNext = false;      // markPause(): a gap before the next sample
  };
  QCustomPlot* metricPlot(int metric) const;
  int metricPoints(int metric) const;
  DeviceSeries& device(const QString& id);
  void updateTimingBars();

  LearningCurveChart m_curve;
  DevicePlots m_plots;
  QCPBars *m_computeBars = nullptr, *m_waitBars = nullptr, *m_overlapBars = nullptr;
  QHash<QString, DeviceSeries> m_devices;
  QStringList m_timingIds;

  bool m_dirty = false;
  bool m_timingDirty = false;
  bool m_sensorsSeen = false;
  QSet<const QCustomPlot*> m_zoomed;
  QTimer m_timer;
};

}  // namespace netsmith::gui
