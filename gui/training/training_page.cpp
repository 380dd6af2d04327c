// TrainingPage (training_page.h): the page's layout and wiring, and which buttons a state allows.
#include "gui/training/training_page.h"

#include <QTextLayout>

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include "gui/widgets/class_count_bar.h"
#include "gui/run/cli_command.h"
#include "gui/training/cluster_panel.h"
#include "gui/training/device_table.h"
#include "gui/training/job_device_tree.h"
#include "gui/training/run_history_panel.h"
#include "gui/training/training_charts.h"

namespace netsmith::gui {

namespace {

QCustomPlot* newPlot(QWidget* parent, const QString& title, int minimumHeight) {
  auto* plot = new QCustomPlot(parent);
  plot->plotLayout()->insertRow(0);
  auto* heading = new QCPTextElement(plot, title, QFont(plot->font().family(), plot->font().pointSize(), QFont::Bold));
  plot->plotLayout()->addElement(0, 0, heading);
  plot->setMinimumHeight(minimumHeight);
  plot->setNoAntialiasingOnDrag(true);
  return plot;
}

// The status line: the whole sentence, broken at the label's width, up to kMaxLines lines (the
// scaling verdict after a run is two or three lines at 1366 px: it was cut after two, "…to co…").
// The label grows by the lines it shows, as a minimum height set when the text or the width
// changes, not as a height for its width: a height-for-width label makes the whole page ask its
// window's scroll area for its preferred height (Note [Training page layout]). Only a sentence
// longer than kMaxLines is cut with "…"; the tooltip and the engine log hold all of it.
class StatusLabel : public QLabel {
 public:
  static constexpr int kMinLines = 2, kMaxLines = 6;
  using QLabel::QLabel;
  bool hasHeightForWidth() const override { return false; }
  QSize sizeHint() const override { return {300, heightFor(m_lines)}; }
  QSize minimumSizeHint() const override { return {100, heightFor(m_lines)}; }
  void setFullText(const QString& text) {
    m_full = text;
    fit();
  }
  const QString& fullText() const { return m_full; }

 protected:
  void resizeEvent(QResizeEvent* event) override {
    QLabel::resizeEvent(event);
    fit();
  }

 private:
  int heightFor(int lines) const { return std::max(lines, int(kMinLines)) * fontMetrics().lineSpacing() + 4; }
  void fit() {
    const int width = std::max(contentsRect().width(), 50);
    // Each paragraph of the sentence broken at the label's width; from line kMaxLines on, the
    // rest joins the last line, which is cut with "…".
    const QStringList paragraphs = m_full.split(QLatin1Char('\n'));
    QStringList lines;
    for (int p = 0; p < paragraphs.size(); ++p) {
      QTextLayout layout(paragraphs[p], font());
      layout.beginLayout();
      bool cut = false;
      for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
        line.setLineWidth(width);
        if (lines.size() == kMaxLines) {
          const QString rest = (QStringList{paragraphs[p].mid(line.textStart())} + paragraphs.mid(p + 1)).join(QLatin1Char(' '));
          lines.back() = fontMetrics().elidedText(lines.back() + QLatin1Char(' ') + rest, Qt::ElideRight, width);
          cut = true;
          break;
        }
        lines << paragraphs[p].mid(line.textStart(), line.textLength()).trimmed();
      }
      layout.endLayout();
      if (cut) break;
    }
    QLabel::setText(lines.join(QLatin1Char('\n')));
    if (lines.size() != m_lines) {
      m_lines = static_cast<int>(lines.size());
      setMinimumHeight(heightFor(m_lines));
      updateGeometry();
    }
  }
  QString m_full;
  int m_lines = kMinLines;
};

const char* kPolicies[][2] = {
    {"scale_lr", QT_TRANSLATE_NOOP("TrainingPage", "scale_lr — learning rate × devices (recommended)")},
    {"keep_logical_batch", QT_TRANSLATE_NOOP("TrainingPage", "keep_logical_batch — batch size ÷ devices")},
    {"none", QT_TRANSLATE_NOOP("TrainingPage", "none — no adjustment")},
};

}  // namespace

// Note [Training page layout]
// Everything a person watches or uses during a run fits a 1366×768 screen (a 1366×740 window)
// without scrolling: the buttons and the status line in one row at the top (the line grows by the
// lines its sentence needs, such as a scaling verdict); on the left, in a vertical splitter, the
// devices (every row of the table up to DeviceTable::kRowsShown, Note [Device table size]), the
// plan (its own scroll area, with the Cluster group in a tab beside it: set once per machine, not
// watched) and the run history; on the right, in a vertical splitter, the learning curve, the
// device charts and the engine log. The device charts are in tabs by what a person watches —
// utilization beside the step time (is every device busy, and what does the all-reduce cost),
// memory, and a GPU's temperature beside its power — so that each is at least
// kDeviceChartMinimumHeight tall with its labels apart, instead of five in a grid at about 70 px.
// The minimum heights add up to less than the page gets at 1366×740 (tst_run_history,
// tst_training_layout), so the window's scroll area never engages there; larger windows and the
// splitters give the charts more room.
TrainingPage::TrainingPage(ProjectDocument* doc, QWidget* parent) : QWidget(parent), m_doc(doc) {
  m_engine.setProgram(engineProgram());

  // --- top: buttons and status ---
  m_start = new QPushButton(tr("▶ Start"), this);
  m_pause = new QPushButton(tr("Pause"), this);
  m_stop = new QPushButton(tr("■ Stop"), this);
  m_resumeRun = new QPushButton(tr("⟳ Resume run"), this);
  m_start->setObjectName(QStringLiteral("startButton"));
  m_resumeRun->setObjectName(QStringLiteral("resumeRunButton"));
  m_pause->setObjectName(QStringLiteral("pauseButton"));
  m_stop->setObjectName(QStringLiteral("stopButton"));
  auto* status = new StatusLabel(this);
  status->setFullText(tr("Ready."));
  m_status = status;
  m_status->setObjectName(QStringLiteral("trainingStatus"));
  m_status->setWordWrap(false);  // StatusLabel breaks its lines itself
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  QFont statusFont = m_status->font();
  statusFont.setBold(true);
  m_status->setFont(statusFont);
  m_logScale = new QCheckBox(tr("log scale"), this);
  auto* topRow = new QHBoxLayout;
  for (QPushButton* b : {m_start, m_pause, m_stop, m_resumeRun}) topRow->addWidget(b);
  topRow->addSpacing(8);
  topRow->addWidget(m_status, 1);
  topRow->addWidget(m_logScale);

  // --- left: devices, plan (and cluster), history ---
  m_devices = new DeviceTable(this);
  m_devices->setObjectName(QStringLiteral("deviceTable"));
  // No fixed minimum: the table asks for its rows and columns (Note [Device table size]).
  m_policy = new QComboBox(this);
  for (const auto& p : kPolicies) m_policy->addItem(tr(p[1]), QString::fromLatin1(p[0]));
  m_policy->setToolTip(tr("How to keep multi-device training close to one device (parallel.lr_policy)"));
  m_gpuNote = new QLabel(this);
  m_gpuNote->setWordWrap(true);
  m_gpuNote->setStyleSheet(QStringLiteral("color:#666"));
  auto* devicesBox = new QGroupBox(tr("Devices"), this);
  auto* devicesLayout = new QVBoxLayout(devicesBox);
  devicesLayout->setContentsMargins(4, 4, 4, 4);
  devicesLayout->addWidget(m_devices, 1);
  auto* policyRow = new QFormLayout;
  policyRow->addRow(tr("LR policy"), m_policy);
  devicesLayout->addLayout(policyRow);
  devicesLayout->addWidget(m_gpuNote);
  m_jobDevices = new JobDeviceTree(this);
  m_jobDevices->setMinimumHeight(90);
  m_jobDevices->hide();
  devicesLayout->addWidget(m_jobDevices);

  m_plan = new QLabel(tr("The plan appears here."), this);
  m_plan->setObjectName(QStringLiteral("planSummary"));
  m_plan->setWordWrap(true);
  m_plan->setTextFormat(Qt::RichText);
  m_plan->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_plan->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  // The plan grows with the data and memory rows: it scrolls within rather than being cut off.
  auto* planScroll = new QScrollArea(this);
  planScroll->setWidget(m_plan);
  planScroll->setWidgetResizable(true);
  planScroll->setFrameShape(QFrame::NoFrame);
  planScroll->setMinimumHeight(110);
  m_cluster = new ClusterPanel(this);
  auto* clusterScroll = new QScrollArea(this);
  clusterScroll->setWidget(m_cluster);
  clusterScroll->setWidgetResizable(true);
  clusterScroll->setFrameShape(QFrame::NoFrame);
  auto* sideTabs = new QTabWidget(this);
  sideTabs->setObjectName(QStringLiteral("trainingSideTabs"));
  // Note [Classifier head]: a dataset with another number of classes than the head outputs is
  // offered the fix above the plan, whose warning (or refusal) says the same.
  auto* planTab = new QWidget(this);
  auto* planTabLayout = new QVBoxLayout(planTab);
  planTabLayout->setContentsMargins(0, 0, 0, 0);
  planTabLayout->setSpacing(2);
  auto* classCount = new ClassCountBar(doc, planTab);
  planTabLayout->addWidget(classCount);
  planTabLayout->addWidget(planScroll, 1);
  connect(classCount, &ClassCountBar::applied, this, [this] { m_planDebounce.start(); });
  sideTabs->addTab(planTab, tr("Plan (before starting)"));
  sideTabs->addTab(clusterScroll, tr("Cluster"));

  m_history = new RunHistoryPanel(this);
  m_history->list()->setMinimumHeight(80);

  auto* left = new QSplitter(Qt::Vertical, this);
  left->setObjectName(QStringLiteral("trainingLeft"));
  left->setChildrenCollapsible(false);
  left->addWidget(devicesBox);
  left->addWidget(sideTabs);
  left->addWidget(m_history);
  left->setStretchFactor(0, 2);
  left->setStretchFactor(1, 3);
  left->setStretchFactor(2, 2);
  left->setSizes({200, 300, 200});  // in proportion: the splitter scales them to its height

  // --- right: the learning curve, the device charts in tabs, the log ---
  m_curvePlot = newPlot(this, tr("Learning curve"), 190);
  m_utilPlot = newPlot(this, tr("Utilization per device"), kDeviceChartMinimumHeight);
  m_memPlot = newPlot(this, tr("Memory per device"), kDeviceChartMinimumHeight);
  m_timingPlot = newPlot(this, tr("Step time per device"), kDeviceChartMinimumHeight);
  // A GPU's temperature and power (NVML): their tab shows once a device reports them.
  m_temperaturePlot = newPlot(this, tr("Temperature per GPU"), kDeviceChartMinimumHeight);
  m_powerPlot = newPlot(this, tr("Power per GPU"), kDeviceChartMinimumHeight);
  m_curvePlot->setObjectName(QStringLiteral("learningCurvePlot"));
  m_utilPlot->setObjectName(QStringLiteral("utilizationPlot"));
  m_memPlot->setObjectName(QStringLiteral("memoryPlot"));
  m_timingPlot->setObjectName(QStringLiteral("stepTimePlot"));
  m_temperaturePlot->setObjectName(QStringLiteral("temperaturePlot"));
  m_powerPlot->setObjectName(QStringLiteral("powerPlot"));
  m_charts = new TrainingCharts(m_curvePlot, {m_utilPlot, m_memPlot, m_temperaturePlot, m_powerPlot, m_timingPlot}, this);
  m_deviceCharts = new QTabWidget(this);
  m_deviceCharts->setObjectName(QStringLiteral("deviceChartTabs"));
  m_deviceCharts->setDocumentMode(true);
  const auto side = [this](std::initializer_list<QWidget*> plots) {
    auto* tab = new QWidget(this);
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

  m_log = new QPlainTextEdit(this);
  m_log->setReadOnly(true);
  m_log->setMaximumBlockCount(5000);
  m_log->setObjectName(QStringLiteral("engineLog"));
  m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_log->setPlaceholderText(tr("Engine log"));
  m_log->setMinimumHeight(50);

  auto* right = new QSplitter(Qt::Vertical, this);
  right->setObjectName(QStringLiteral("trainingCharts"));
  right->setChildrenCollapsible(false);
  right->addWidget(m_curvePlot);
  right->addWidget(m_deviceCharts);
  right->addWidget(m_log);
  right->setStretchFactor(0, 3);
  right->setStretchFactor(1, 2);
  right->setStretchFactor(2, 1);
  // In proportion, as above: the log's own size hint would otherwise take a third of the height.
  right->setSizes({420, 330, 100});

  auto* split = new QSplitter(this);
  split->setObjectName(QStringLiteral("trainingSplitter"));
  split->setChildrenCollapsible(false);
  split->addWidget(left);
  split->addWidget(right);
  split->setStretchFactor(1, 1);
  split->setSizes({430, 900});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(topRow);
  layout->addWidget(split, 1);

  // --- wiring ---
  connect(m_start, &QPushButton::clicked, this, [this] { start(); });
  connect(m_pause, &QPushButton::clicked, this, [this] { m_state == State::Paused ? resume() : pause(); });
  connect(m_stop, &QPushButton::clicked, this, &TrainingPage::stop);
  connect(m_resumeRun, &QPushButton::clicked, this, [this] { resumeLastRun(); });
  connect(m_logScale, &QCheckBox::toggled, m_charts, &TrainingCharts::setLogScale);
  connect(m_devices, &DeviceTable::selectionEdited, this, &TrainingPage::applyDeviceEdit);
  connect(m_policy, &QComboBox::activated, this, &TrainingPage::applyPolicyEdit);
  connect(m_history, &RunHistoryPanel::overlaysChanged, this, [this] { m_charts->setOverlays(m_history->overlays()); });
  connect(m_history, &RunHistoryPanel::resumeRequested, this, &TrainingPage::resumeRun);
  connect(m_history, &RunHistoryPanel::actionFailed, this, [this](const QString& message) { setStatus(message, true); });
  connect(&m_engine, &EngineProcess::eventReceived, this, &TrainingPage::onEvent);
  connect(&m_engine, &EngineProcess::finished, this, &TrainingPage::onFinished);
  connect(&m_engine, &EngineProcess::logLine, this, &TrainingPage::onLog);
  connect(&m_follower, &RunFollower::pastEvent, this, &TrainingPage::replayEvent);
  connect(&m_follower, &RunFollower::eventReceived, this, &TrainingPage::onEvent);
  connect(&m_follower, &RunFollower::finished, this, &TrainingPage::onFinished);
  connect(&m_follower, &RunFollower::logLine, this, &TrainingPage::onLog);
  m_planDebounce.setSingleShot(true);
  m_planDebounce.setInterval(400);
  connect(&m_planDebounce, &QTimer::timeout, this, &TrainingPage::refreshPlan);
  connect(doc, &ProjectDocument::settingsChanged, this, [this] {
    showProjectSettings();
    m_planDebounce.start();
  });
  // An undo or redo while this page shows (the network is edited on the Edit page, and the plan
  // is made again when this page shows).
  connect(doc->graph(), &GraphDocument::analysisChanged, this, [this] {
    if (isVisible() && !isRunning()) m_planDebounce.start();
  });
  connect(m_cluster, &ClusterPanel::edited, this, &TrainingPage::clusterEdited);
  connect(doc, &ProjectDocument::pathChanged, this, [this] {
    // A load announces its path before `loaded`; a Save As only the path. Once the load (if it
    // is one) has read its own values, a renamed project keeps the values shown under its new path.
    QTimer::singleShot(0, this, [this] {
      if (m_clusterPath == m_doc->path()) return;
      m_clusterPath = m_doc->path();
      saveClusterSettings(m_clusterPath, m_cluster->settings());
    });
  });
  connect(doc, &ProjectDocument::loaded, this, [this] {
    // Another project: the previous project's run (charts, log, status, run folder) is not this one's.
    // A run this page only follows goes on without it.
    if (isFollowing()) {
      m_follower.forget();
      setState(State::Idle);
    }
    if (!isRunning()) {
      clearRunView();
      m_runFolder.clear();
      setStatus(tr("Ready."));
      setState(State::Idle);
    }
    loadClusterSettingsForProject();
    showProjectSettings();
    refreshHistory();
    m_planDebounce.start();
  });
  connect(doc, &ProjectDocument::pathChanged, this, &TrainingPage::refreshHistory);

  setState(State::Idle);
  loadClusterSettingsForProject();
  showProjectSettings();
  refreshDevices();
  refreshHistory();
}

TrainingPage::~TrainingPage() {
  // The engine child dies with the page (EngineProcess kills it); its outcome is not shown.
  m_engine.disconnect(this);
  m_follower.disconnect(this);
  cancelCliCommand(m_planQuery);
  cancelCliCommand(m_devicesQuery);
}

void TrainingPage::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (!isRunning()) m_planDebounce.start(0);
}

QString TrainingPage::statusText() const { return static_cast<StatusLabel*>(m_status)->fullText(); }
QString TrainingPage::planText() const { return m_plan->text(); }
QString TrainingPage::logText() const { return m_log->toPlainText(); }

QString TrainingPage::runsRoot() const { return runsRootFor(m_doc->path(), qs(m_doc->settings().name)); }

void TrainingPage::setStatus(const QString& text, bool error) {
  static_cast<StatusLabel*>(m_status)->setFullText(text);
  m_status->setToolTip(text);
  m_status->setStyleSheet(error ? QStringLiteral("color:#c0392b") : QString());
}

void TrainingPage::setPlanRefusal(const QString& why) {
  m_planRefusal = why;
  setState(m_state);  // Start follows the plan
}

void TrainingPage::setState(State state) {
  const bool wasRunning = isRunning();
  m_state = state;
  m_start->setEnabled(state == State::Idle && m_planRefusal.isEmpty());
  m_start->setToolTip(m_planRefusal.isEmpty() ? QString() : tr("Cannot train yet: %1").arg(m_planRefusal));
  // A followed run's standard input is its first console's: it can be stopped, not paused.
  m_pause->setEnabled((state == State::Running || state == State::Paused) && !isFollowing());
  m_pause->setToolTip(isFollowing() ? tr("This run was started by an earlier console: it can be stopped (and resumed "
                                         "later), not paused")
                                    : QString());
  m_pause->setText(state == State::Paused ? tr("Resume") : tr("Pause"));
  m_stop->setEnabled(state == State::Running || state == State::Paused || state == State::Starting);
  const bool resumable = canResumeLastRun();
  m_resumeRun->setEnabled(resumable);
  m_resumeRun->setToolTip(resumable ? tr("Continue the last run from its checkpoint on the ticked devices (the "
                                         "devices share the run's logical batch)")
                                    : tr("Continues a stopped or failed run from its checkpoint; right-click a run in "
                                         "the history to resume an older one"));
  m_devices->setEnabled(state == State::Idle);
  m_cluster->setEnabled(state == State::Idle);
  m_policy->setEnabled(state == State::Idle);
  m_history->setResumeAllowed(state == State::Idle);
  if (wasRunning != isRunning()) emit runningChanged(isRunning());
}

// --- history ---------------------------------------------------------------------------------

QList<RunSummary> TrainingPage::history() const { return m_history->runs(); }

void TrainingPage::refreshHistory() {
  if (m_history->runsRoot() == runsRoot()) m_history->refresh();
  else m_history->setRunsRoot(runsRoot());
  followRunningRunInHistory();
  setState(m_state);  // Resume run follows the newest run's state
}

}  // namespace netsmith::gui
