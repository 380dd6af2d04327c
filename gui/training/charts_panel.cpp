// ChartsPanel (charts_panel.h): the learning curve, the device charts in tabs, and the engine log.
#include "gui/training/charts_panel.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QPlainTextEdit>
#include <QTabWidget>

#include <qcustomplot.h>

#include "gui/training/training_charts.h"

namespace netsmith::gui {

namespace {

QCustomPlot* newTitledPlot(QWidget* parent, const QString& title, int minimumHeight) {
  auto* plot = new QCustomPlot(parent);
  plot->plotLayout()->insertRow(0);
  auto* heading = new QCPTextElement(plot, title, QFont(plot->font().family(), plot->font().pointSize(), QFont::Bold));
  plot->plotLayout()->addElement(0, 0, heading);
  plot->setMinimumHeight(minimumHeight);
  plot->setNoAntialiasingOnDrag(true);
  return plot;
}

}  // namespace

ChartsPanel::ChartsPanel(QWidget* parent) : QSplitter(Qt::Vertical, parent) {
  setObjectName(QStringLiteral("trainingCharts"));
  setChildrenCollapsible(false);
  // The widgets are made as children of the page, not of this splitter, which would take each child
  // widget as a pane of its own in the order they are made; addWidget() below places each.
  m_curvePlot = newTitledPlot(parent, tr("Learning curve"), 190);
  m_utilPlot = newTitledPlot(parent, tr("Utilization per device"), kDeviceChartMinimumHeight);
  m_memPlot = newTitledPlot(parent, tr("Memory per device"), kDeviceChartMinimumHeight);
  m_timingPlot = newTitledPlot(parent, tr("Step time per device"), kDeviceChartMinimumHeight);
  // A GPU's temperature and power (NVML): their tab shows once a device reports them.
  m_temperaturePlot = newTitledPlot(parent, tr("Temperature per GPU"), kDeviceChartMinimumHeight);
  m_powerPlot = newTitledPlot(parent, tr("Power per GPU"), kDeviceChartMinimumHeight);
  m_curvePlot->setObjectName(QStringLiteral("learningCurvePlot"));
  m_utilPlot->setObjectName(QStringLiteral("utilizationPlot"));
  m_memPlot->setObjectName(QStringLiteral("memoryPlot"));
  m_timingPlot->setObjectName(QStringLiteral("stepTimePlot"));
  m_temperaturePlot->setObjectName(QStringLiteral("temperaturePlot"));
  m_powerPlot->setObjectName(QStringLiteral("powerPlot"));
  m_charts = new TrainingCharts(m_curvePlot, {m_utilPlot, m_memPlot, m_temperaturePlot, m_powerPlot, m_timingPlot}, this);
  m_deviceCharts = new QTabWidget(parent);
  m_deviceCharts->setObjectName(QStringLiteral("deviceChartTabs"));
  m_deviceCharts->setDocumentMode(true);
  const auto side = [parent](std::initializer_list<QWidget*> plots) {
    auto* tab = new QWidget(parent);
    auto* row = new QHBoxLayout(tab);
    row->setContentsMargins(0, 2, 0, 0);
    row->setSpacing(4);
    for (QWidget* plot : plots) row->addWidget(plot);
    return tab;
  };
  m_deviceCharts->addTab(side({m_utilPlot, m_timingPlot}), tr("Utilization and step time"));
  m_deviceCharts->addTab(side({m_memPlot}), tr("Memory"));
  m_sensorTab = m_deviceCharts->addTab(side({m_temperaturePlot, m_powerPlot}), tr("GPU temperature and power"));
  m_deviceCharts->setTabToolTip(0, tr("Is every device busy, and how much of its step is the all-reduce?"));
  m_deviceCharts->setTabVisible(m_sensorTab, false);
  // Until a GPU reports temperature and power their tab is hidden; a new run hides it again.
  connect(m_charts, &TrainingCharts::sensorDataArrived, this, [this] {
    m_temperaturePlot->show();
    m_powerPlot->show();
    m_deviceCharts->setTabVisible(m_sensorTab, true);
  });
  connect(m_charts, &TrainingCharts::cleared, this, [this] { m_deviceCharts->setTabVisible(m_sensorTab, false); });

  m_log = new QPlainTextEdit(parent);
  m_log->setReadOnly(true);
  m_log->setMaximumBlockCount(5000);
  m_log->setObjectName(QStringLiteral("engineLog"));
  m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_log->setPlaceholderText(tr("Engine log"));
  m_log->setMinimumHeight(50);

  addWidget(m_curvePlot);
  addWidget(m_deviceCharts);
  addWidget(m_log);
  setStretchFactor(0, 3);
  setStretchFactor(1, 2);
  setStretchFactor(2, 1);
  // In proportion, as above: the log's own size hint would otherwise take a third of the height.
  setSizes({420, 330, 100});
}

void ChartsPanel::clearRun() {
  m_charts->clear();
  m_temperaturePlot->hide();
  m_powerPlot->hide();
  m_log->clear();
}

void ChartsPanel::appendLog(const QString& text, bool html) {
  if (html) m_log->appendHtml(text);
  else m_log->appendPlainText(text);
}

}  // namespace netsmith::gui
