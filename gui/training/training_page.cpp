// TrainingPage (training_page.h): the page's layout and the wiring of its parts, and which buttons
// a state allows.
#include "gui/training/training_page.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QListWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

#include "gui/training/cluster_panel.h"
#include "gui/training/device_table.h"
#include "gui/training/devices_box.h"
#include "gui/training/plan_box.h"
#include "gui/training/run_history_panel.h"
#include "gui/training/status_line.h"
#include "gui/training/training_charts.h"

namespace netsmith::gui {

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
  // --- top: buttons and status ---
  m_start = new QPushButton(tr("▶ Start"), this);
  m_pause = new QPushButton(tr("Pause"), this);
  m_stop = new QPushButton(tr("■ Stop"), this);
  m_resumeRun = new QPushButton(tr("⟳ Resume run"), this);
  m_start->setObjectName(QStringLiteral("startButton"));
  m_resumeRun->setObjectName(QStringLiteral("resumeRunButton"));
  m_pause->setObjectName(QStringLiteral("pauseButton"));
  m_stop->setObjectName(QStringLiteral("stopButton"));
  m_status = new StatusLine(tr("Ready."), this);
  m_status->setObjectName(QStringLiteral("trainingStatus"));
  m_logScale = new QCheckBox(tr("log scale"), this);
  auto* topRow = new QHBoxLayout;
  for (QPushButton* b : {m_start, m_pause, m_stop, m_resumeRun}) topRow->addWidget(b);
  topRow->addSpacing(8);
  topRow->addWidget(m_status, 1);
  topRow->addWidget(m_logScale);

  // --- left: devices, plan (and cluster), history ---
  m_devices = new DevicesBox(doc, this);
  auto* clusterScroll = new QScrollArea(this);
  clusterScroll->setWidget(m_devices->cluster());
  clusterScroll->setWidgetResizable(true);
  clusterScroll->setFrameShape(QFrame::NoFrame);
  // Made before the tabs that hold it, so that the Tab key reaches the plan before the tab bar.
  m_plan = new PlanBox(doc, m_devices->cluster(), this);
  auto* sideTabs = new QTabWidget(this);
  sideTabs->setObjectName(QStringLiteral("trainingSideTabs"));
  sideTabs->addTab(m_plan, tr("Plan (before starting)"));
  sideTabs->addTab(clusterScroll, tr("Cluster"));

  m_history = new RunHistoryPanel(this);
  m_history->list()->setMinimumHeight(80);

  auto* left = new QSplitter(Qt::Vertical, this);
  left->setObjectName(QStringLiteral("trainingLeft"));
  left->setChildrenCollapsible(false);
  left->addWidget(m_devices);
  left->addWidget(sideTabs);
  left->addWidget(m_history);
  left->setStretchFactor(0, 2);
  left->setStretchFactor(1, 3);
  left->setStretchFactor(2, 2);
  left->setSizes({200, 300, 200});  // in proportion: the splitter scales them to its height

  // --- right: the learning curve, the device charts in tabs, the log ---
  m_chartsPanel = new ChartsPanel(this);

  auto* split = new QSplitter(this);
  split->setObjectName(QStringLiteral("trainingSplitter"));
  split->setChildrenCollapsible(false);
  split->addWidget(left);
  split->addWidget(m_chartsPanel);
  split->setStretchFactor(1, 1);
  split->setSizes({430, 900});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(topRow);
  layout->addWidget(split, 1);

  m_run = std::make_unique<RunControl>(doc, m_chartsPanel->charts(), m_history);

  // --- wiring ---
  connect(m_start, &QPushButton::clicked, this, [this] { start(); });
  connect(m_pause, &QPushButton::clicked, this, [this] { state() == State::Paused ? resume() : pause(); });
  connect(m_stop, &QPushButton::clicked, this, &TrainingPage::stop);
  connect(m_resumeRun, &QPushButton::clicked, this, [this] { resumeLastRun(); });
  connect(m_logScale, &QCheckBox::toggled, charts(), &TrainingCharts::setLogScale);
  connect(m_devices, &DevicesBox::refused, this, [this](const QString& message) { setStatus(message, true); });
  connect(m_devices, &DevicesBox::devicesUpdated, this, &TrainingPage::devicesUpdated);
  connect(m_devices, &DevicesBox::clusterEdited, m_plan, &PlanBox::refreshSoon);
  connect(m_plan, &PlanBox::planUpdated, this, &TrainingPage::planUpdated);
  connect(m_plan, &PlanBox::refusalChanged, this, &TrainingPage::showState);  // Start follows the plan
  connect(m_history, &RunHistoryPanel::overlaysChanged, this, [this] { charts()->setOverlays(m_history->overlays()); });
  connect(m_history, &RunHistoryPanel::resumeRequested, this, &TrainingPage::resumeRun);
  connect(m_history, &RunHistoryPanel::actionFailed, this, [this](const QString& message) { setStatus(message, true); });
  connect(m_run.get(), &RunControl::stateChanged, this, &TrainingPage::onStateChanged);
  connect(m_run.get(), &RunControl::statusChanged, this, &TrainingPage::setStatus);
  connect(m_run.get(), &RunControl::logged, m_chartsPanel, &ChartsPanel::appendLog);
  connect(m_run.get(), &RunControl::viewCleared, m_chartsPanel, &ChartsPanel::clearRun);
  connect(m_run.get(), &RunControl::started, this, &TrainingPage::onStarted);
  connect(m_run.get(), &RunControl::divergedBlockChanged, this, &TrainingPage::divergedBlockChanged);
  connect(m_run.get(), &RunControl::deviceFigures, deviceTable(), &DeviceTable::showFigures);
  connect(m_run.get(), &RunControl::runMoved, this, [this](const QString& from, const QString& to) {
    QString status = statusText();
    status.replace(from, to);
    setStatus(status, m_status->isError());
  });
  connect(m_run.get(), &RunControl::historyChanged, this, &TrainingPage::refreshHistory);
  connect(m_run.get(), &RunControl::finished, m_plan, &PlanBox::refreshSoon);
  connect(doc, &ProjectDocument::settingsChanged, this, [this] {
    m_devices->showProjectSettings();
    m_plan->refreshSoon();
  });
  // An undo or redo while this page shows (the network is edited on the Edit page, and the plan
  // is made again when this page shows).
  connect(doc->graph(), &GraphDocument::analysisChanged, this, [this] {
    if (isVisible() && !isRunning()) m_plan->refreshSoon();
  });
  connect(doc, &ProjectDocument::pathChanged, this, [this] {
    // A load announces its path before `loaded`; a Save As only the path. Once the load (if it
    // is one) has read its own values, a renamed project keeps the values shown under its new path.
    QTimer::singleShot(0, this, [this] { m_devices->keepClusterSettingsUnderPath(); });
  });
  connect(doc, &ProjectDocument::loaded, this, &TrainingPage::onProjectLoaded);
  connect(doc, &ProjectDocument::pathChanged, this, &TrainingPage::refreshHistory);

  showState();
  m_devices->loadClusterSettingsForProject();
  m_devices->showProjectSettings();
  refreshDevices();
  refreshHistory();
}

TrainingPage::~TrainingPage() {
  // The run goes first (its engine child dies with the page, its outcome not shown); the parts
  // deleted after it must not reach it through the page.
  m_run.reset();
  for (QObject* part : std::initializer_list<QObject*>{m_devices, m_plan, m_history, m_chartsPanel}) part->disconnect(this);
}

void TrainingPage::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (!isRunning()) m_plan->refreshAfter(0);
}

// Another project: the previous project's run (charts, log, status, run folder) is not this one's.
// A run this page only follows goes on without it.
void TrainingPage::onProjectLoaded() {
  m_run->forgetRun();
  m_devices->loadClusterSettingsForProject();
  m_devices->showProjectSettings();
  refreshHistory();
  m_plan->refreshSoon();
}

TrainingCharts* TrainingPage::charts() const { return m_chartsPanel->charts(); }
DeviceTable* TrainingPage::deviceTable() const { return m_devices->table(); }
ClusterPanel* TrainingPage::clusterPanel() const { return m_devices->cluster(); }
JobDeviceTree* TrainingPage::jobDevices() const { return m_devices->jobDevices(); }
ClusterSettings TrainingPage::clusterSettings() const { return m_devices->clusterSettings(); }
void TrainingPage::setClusterSettings(const ClusterSettings& settings) { m_devices->setClusterSettings(settings); }
void TrainingPage::refreshDevices() { m_devices->refreshDevices(); }
void TrainingPage::refreshPlan() { m_plan->refresh(); }

QString TrainingPage::statusText() const { return m_status->fullText(); }
QString TrainingPage::planText() const { return m_plan->text(); }
QString TrainingPage::logText() const { return m_chartsPanel->log()->toPlainText(); }

void TrainingPage::setStatus(const QString& text, bool error) { m_status->showStatus(text, error); }

// --- the run ---------------------------------------------------------------------------------

bool TrainingPage::start() {
  if (isRunning()) return false;
  if (!m_plan->refusal().isEmpty()) {
    setStatus(tr("Cannot start: %1").arg(m_plan->refusal()), true);
    return false;
  }
  return m_run->start(m_devices->clusterSettings());
}

bool TrainingPage::resumeRun(const QString& folder, bool onTickedDevices) {
  if (isRunning()) return false;
  std::optional<QStringList> ticked;
  if (onTickedDevices) {
    ticked.emplace();
    for (const std::string& d : deviceTable()->checkedDevices()) *ticked << qs(d);
  }
  return m_run->resumeRun(folder, ticked, m_devices->clusterSettings());
}

void TrainingPage::onStarted(const StartedEvent& event) {
  if (!event.plan.devices.empty()) m_plan->showPlan(event.plan);
  deviceTable()->clearFigures();
  if (m_run->engine()->cluster().enabled) m_devices->showStartedJob(event.plan.devices);
}

void TrainingPage::onStateChanged(bool wasRunning) {
  m_plan->setRunning(isRunning());
  showState();
  if (wasRunning != isRunning()) emit runningChanged(isRunning());
}

void TrainingPage::showState() {
  const State state = m_run->state();
  const QString& refusal = m_plan->refusal();
  m_start->setEnabled(state == State::Idle && refusal.isEmpty());
  m_start->setToolTip(refusal.isEmpty() ? QString() : tr("Cannot train yet: %1").arg(refusal));
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
  m_devices->setRunning(state != State::Idle);
  m_history->setResumeAllowed(state == State::Idle);
}

// --- history ---------------------------------------------------------------------------------

QList<RunSummary> TrainingPage::history() const { return m_history->runs(); }

void TrainingPage::refreshHistory() {
  const QString root = m_run->runsRoot();
  if (m_history->runsRoot() == root) m_history->refresh();
  else m_history->setRunsRoot(root);
  m_run->followRunningRunInHistory();
  showState();  // Resume run follows the newest run's state
}

}  // namespace netsmith::gui
