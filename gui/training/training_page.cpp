#include "gui/training/training_page.h"

#include <QScrollArea>

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>

#include "engine/core/error.h"
#include "engine/monitor/devices.h"
#include "engine/project/project_io.h"
#include "gui/run/cli_command.h"
#include "gui/training/cluster_panel.h"
#include "gui/training/device_table.h"
#include "gui/training/job_device_tree.h"
#include "gui/training/training_charts.h"

namespace netsmith::gui {

namespace {

QString duration(double seconds) {
  if (!hasValue(seconds) || seconds < 0) return QStringLiteral("–");
  const qint64 s = static_cast<qint64>(seconds + 0.5);
  return s >= 3600 ? QStringLiteral("%1:%2:%3").arg(s / 3600).arg(s / 60 % 60, 2, 10, QLatin1Char('0')).arg(s % 60, 2, 10, QLatin1Char('0'))
                   : QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

QString number(double v, int precision = 4) {
  return hasValue(v) ? QLocale().toString(v, 'g', precision) : QStringLiteral("–");
}

QCustomPlot* newPlot(QWidget* parent, const QString& title) {
  auto* plot = new QCustomPlot(parent);
  plot->plotLayout()->insertRow(0);
  auto* heading = new QCPTextElement(plot, title, QFont(plot->font().family(), plot->font().pointSize(), QFont::Bold));
  plot->plotLayout()->addElement(0, 0, heading);
  plot->setMinimumHeight(170);
  plot->setNoAntialiasingOnDrag(true);
  return plot;
}

const char* kPolicies[][2] = {
    {"scale_lr", QT_TRANSLATE_NOOP("TrainingPage", "scale_lr — learning rate × devices (recommended)")},
    {"keep_logical_batch", QT_TRANSLATE_NOOP("TrainingPage", "keep_logical_batch — batch size ÷ devices")},
    {"none", QT_TRANSLATE_NOOP("TrainingPage", "none — no adjustment")},
};

}  // namespace

TrainingPage::TrainingPage(ProjectDocument* doc, QWidget* parent) : QWidget(parent), m_doc(doc) {
  m_engine.setProgram(engineProgram());

  // --- left: devices, policy, plan, buttons, history ---
  m_devices = new DeviceTable(this);
  m_devices->setObjectName(QStringLiteral("deviceTable"));
  m_devices->setMinimumHeight(120);
  m_policy = new QComboBox(this);
  for (const auto& p : kPolicies) m_policy->addItem(tr(p[1]), QString::fromLatin1(p[0]));
  m_policy->setToolTip(tr("How to keep multi-device training close to one device (parallel.lr_policy)"));
  m_gpuNote = new QLabel(this);
  m_gpuNote->setWordWrap(true);
  m_gpuNote->setStyleSheet(QStringLiteral("color:#666"));
  auto* devicesBox = new QGroupBox(tr("Devices"), this);
  auto* devicesLayout = new QVBoxLayout(devicesBox);
  devicesLayout->addWidget(m_devices);
  auto* policyRow = new QFormLayout;
  policyRow->addRow(tr("LR policy"), m_policy);
  devicesLayout->addLayout(policyRow);
  devicesLayout->addWidget(m_gpuNote);
  m_jobDevices = new JobDeviceTree(this);
  m_jobDevices->setMinimumHeight(90);
  m_jobDevices->hide();
  devicesLayout->addWidget(m_jobDevices);
  m_cluster = new ClusterPanel(this);

  m_plan = new QLabel(tr("The plan appears here."), this);
  m_plan->setObjectName(QStringLiteral("planSummary"));
  m_plan->setWordWrap(true);
  m_plan->setTextFormat(Qt::RichText);
  m_plan->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* planBox = new QGroupBox(tr("Plan (before starting)"), this);
  // The plan grows with the data and memory rows: it scrolls rather than being cut off.
  auto* planScroll = new QScrollArea(planBox);
  planScroll->setWidget(m_plan);
  planScroll->setWidgetResizable(true);
  planScroll->setFrameShape(QFrame::NoFrame);
  planScroll->setMinimumHeight(200);
  (new QVBoxLayout(planBox))->addWidget(planScroll);

  m_start = new QPushButton(tr("▶ Start"), this);
  m_pause = new QPushButton(tr("Pause"), this);
  m_stop = new QPushButton(tr("■ Stop"), this);
  m_start->setObjectName(QStringLiteral("startButton"));
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_start);
  buttons->addWidget(m_pause);
  buttons->addWidget(m_stop);

  m_historyList = new QListWidget(this);
  m_historyList->setToolTip(tr("Past runs of this project; tick one to overlay its learning curve."));
  auto* historyBox = new QGroupBox(tr("Run history (tick to overlay)"), this);
  (new QVBoxLayout(historyBox))->addWidget(m_historyList);

  auto* left = new QWidget(this);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 0, 0, 0);
  leftLayout->addWidget(devicesBox, 2);
  leftLayout->addWidget(m_cluster);
  leftLayout->addWidget(planBox);
  leftLayout->addLayout(buttons);
  leftLayout->addWidget(historyBox, 2);

  // --- right: status, charts, log ---
  m_status = new QLabel(tr("Ready."), this);
  m_status->setObjectName(QStringLiteral("trainingStatus"));
  m_status->setWordWrap(true);
  QFont statusFont = m_status->font();
  statusFont.setBold(true);
  m_status->setFont(statusFont);
  m_logScale = new QCheckBox(tr("log scale"), this);
  auto* statusRow = new QHBoxLayout;
  statusRow->addWidget(m_status, 1);
  statusRow->addWidget(m_logScale);

  m_curvePlot = newPlot(this, tr("Learning curve"));
  m_curvePlot->setMinimumHeight(260);
  m_utilPlot = newPlot(this, tr("Utilization per device"));
  m_memPlot = newPlot(this, tr("Memory per device"));
  m_timingPlot = newPlot(this, tr("Step time per device"));
  // A GPU's temperature and power (NVML): shown once a device reports them.
  m_temperaturePlot = newPlot(this, tr("Temperature per GPU"));
  m_powerPlot = newPlot(this, tr("Power per GPU"));
  m_charts = new TrainingCharts(m_curvePlot, {m_utilPlot, m_memPlot, m_temperaturePlot, m_powerPlot, m_timingPlot}, this);
  auto* smallCharts = new QWidget(this);
  auto* smallLayout = new QGridLayout(smallCharts);
  smallLayout->setContentsMargins(0, 0, 0, 0);
  smallLayout->addWidget(m_utilPlot, 0, 0);
  smallLayout->addWidget(m_memPlot, 0, 1);
  smallLayout->addWidget(m_timingPlot, 0, 2, 2, 1);
  smallLayout->addWidget(m_temperaturePlot, 1, 0);
  smallLayout->addWidget(m_powerPlot, 1, 1);
  m_temperaturePlot->hide();
  m_powerPlot->hide();
  connect(m_charts, &TrainingCharts::sensorDataArrived, this, [this] {
    m_temperaturePlot->show();
    m_powerPlot->show();
  });

  m_log = new QPlainTextEdit(this);
  m_log->setReadOnly(true);
  m_log->setMaximumBlockCount(5000);
  m_log->setObjectName(QStringLiteral("engineLog"));
  m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_log->setPlaceholderText(tr("Engine log"));

  auto* rightSplit = new QSplitter(Qt::Vertical, this);
  rightSplit->addWidget(m_curvePlot);
  rightSplit->addWidget(smallCharts);
  rightSplit->addWidget(m_log);
  rightSplit->setStretchFactor(0, 3);
  rightSplit->setStretchFactor(1, 2);
  rightSplit->setStretchFactor(2, 1);
  auto* right = new QWidget(this);
  auto* rightLayout = new QVBoxLayout(right);
  rightLayout->setContentsMargins(0, 0, 0, 0);
  rightLayout->addLayout(statusRow);
  rightLayout->addWidget(rightSplit, 1);

  auto* split = new QSplitter(this);
  split->setObjectName(QStringLiteral("trainingSplitter"));
  split->addWidget(left);
  split->addWidget(right);
  split->setStretchFactor(1, 1);
  split->setSizes({430, 900});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(split);

  // --- wiring ---
  connect(m_start, &QPushButton::clicked, this, [this] { start(); });
  connect(m_pause, &QPushButton::clicked, this, [this] { m_state == State::Paused ? resume() : pause(); });
  connect(m_stop, &QPushButton::clicked, this, &TrainingPage::stop);
  connect(m_logScale, &QCheckBox::toggled, m_charts, &TrainingCharts::setLogScale);
  connect(m_devices, &DeviceTable::selectionEdited, this, &TrainingPage::applyDeviceEdit);
  connect(m_policy, &QComboBox::activated, this, &TrainingPage::applyPolicyEdit);
  connect(m_historyList, &QListWidget::itemChanged, this, &TrainingPage::updateOverlays);
  connect(&m_engine, &EngineProcess::eventReceived, this, &TrainingPage::onEvent);
  connect(&m_engine, &EngineProcess::finished, this, &TrainingPage::onFinished);
  connect(&m_engine, &EngineProcess::logLine, this, &TrainingPage::onLog);
  m_planDebounce.setSingleShot(true);
  m_planDebounce.setInterval(400);
  connect(&m_planDebounce, &QTimer::timeout, this, &TrainingPage::refreshPlan);
  connect(doc, &ProjectDocument::settingsChanged, this, [this] {
    showProjectSettings();
    m_planDebounce.start();
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
    if (!isRunning()) {
      m_charts->clear();
      m_temperaturePlot->hide();
      m_powerPlot->hide();
      m_log->clear();
      m_runFolder.clear();
      m_iterationEvents = m_epochEvents = 0;
      m_sawFinished = false;
      m_scalingVerdict.clear();
      m_lastOutcome.reset();
      setStatus(tr("Ready."));
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
  cancelCliCommand(m_planQuery);
  cancelCliCommand(m_devicesQuery);
}

void TrainingPage::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (!isRunning()) m_planDebounce.start(0);
}

QString TrainingPage::statusText() const { return m_status->text(); }
QString TrainingPage::planText() const { return m_plan->text(); }
QString TrainingPage::logText() const { return m_log->toPlainText(); }

QString TrainingPage::runsRoot() const { return runsRootFor(m_doc->path(), qs(m_doc->settings().name)); }

void TrainingPage::setStatus(const QString& text, bool error) {
  m_status->setText(text);
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
  m_pause->setEnabled(state == State::Running || state == State::Paused);
  m_pause->setText(state == State::Paused ? tr("Resume") : tr("Pause"));
  m_stop->setEnabled(state == State::Running || state == State::Paused || state == State::Starting);
  m_devices->setEnabled(state == State::Idle);
  m_cluster->setEnabled(state == State::Idle);
  m_policy->setEnabled(state == State::Idle);
  if (wasRunning != isRunning()) emit runningChanged(isRunning());
}

// --- devices and plan ------------------------------------------------------------------------------

void TrainingPage::refreshDevices() {
  cancelCliCommand(m_devicesQuery);
  m_devicesQuery = runCliCommand(this, {QStringLiteral("devices"), QStringLiteral("--json")}, [this](const CliResult& r) {
    m_devicesQuery = nullptr;
    if (r.exitCode != 0) {
      m_gpuNote->setText(tr("Cannot list devices: %1").arg(r.errorText()));
      return;
    }
    try {
      std::string note;
      const auto devices = devicesFromJson(Json::parse(r.standardOutput.toStdString()), &note);
      m_devices->setDevices(devices);
      showProjectSettings();
      // Without the NVIDIA driver the engine's note is NVML's loader message: say it in words, the
      // detail in the tooltip.
      const QString detail = qs(note);
      m_gpuNote->setText(detail.startsWith(QLatin1String("no NVML"))
                             ? tr("No NVIDIA GPU found: this machine trains on its CPU cores.")
                             : detail);
      m_gpuNote->setToolTip(detail);
    } catch (const std::exception& e) {
      m_gpuNote->setText(tr("Cannot read the device list: %1").arg(QString::fromUtf8(e.what())));
    }
    emit devicesUpdated();
  });
}

void TrainingPage::showProjectSettings() {
  const ParallelConfig& p = m_doc->settings().parallel;
  m_devices->showSelection(p.devices, p.workerLoad);
  const int i = m_policy->findData(qs(p.lrPolicy));
  if (i >= 0) m_policy->setCurrentIndex(i);
  if (!isRunning()) showClusterPlan();
}

// --- cluster ----------------------------------------------------------------------------------

ClusterSettings TrainingPage::clusterSettings() const { return m_cluster->settings(); }

void TrainingPage::setClusterSettings(const ClusterSettings& settings) {
  m_cluster->setSettings(settings);
  clusterEdited();
}

void TrainingPage::loadClusterSettingsForProject() {
  m_clusterPath = m_doc->path();
  m_cluster->setSettings(loadClusterSettings(m_clusterPath));
  showClusterPlan();
}

void TrainingPage::clusterEdited() {
  m_clusterPath = m_doc->path();
  saveClusterSettings(m_clusterPath, m_cluster->settings());
  showClusterPlan();
  m_planDebounce.start();
}

QStringList TrainingPage::rankHosts() const {
  const ClusterSettings c = m_cluster->settings();
  QString text;
  if (!c.hostfile.isEmpty()) {
    QFile f(c.hostfile);
    if (f.open(QIODevice::ReadOnly)) text = QString::fromUtf8(f.read(1 << 20));
  }
  return predictRankHosts(c, text);
}

void TrainingPage::showClusterPlan() {
  const ClusterSettings c = m_cluster->settings();
  m_jobDevices->setVisible(c.enabled);
  if (!c.enabled) {
    m_cluster->setNote(QString(), false);
    return;
  }
  const LaunchHost host = currentLaunchHost();
  QString note;
  bool error = false;
  if (host.mpirun.isEmpty()) {
    note = tr("mpirun is not on PATH: install Debian's openmpi-bin to train on a cluster.");
    error = true;
  } else if (!c.hostfile.isEmpty() && !QFileInfo(c.hostfile).isReadable()) {
    note = tr("Cannot read the hostfile %1.").arg(c.hostfile);
    error = true;
  } else {
    note = tr("%1 · %n process(es)", nullptr, c.processes).arg(host.mpirun);
    if (c.hostfile.isEmpty() && c.processes > host.cores)
      note += tr(" · more processes than this machine's %n core(s): oversubscribed", nullptr, host.cores);
  }
  m_cluster->setNote(note, error);
  QStringList devices;
  for (const std::string& d : m_doc->settings().parallel.devices) devices << qs(d);
  m_jobDevices->showDevices(plannedJobDevices(devices, c, rankHosts()), false);
}

void TrainingPage::applyDeviceEdit() {
  Project before = m_doc->settings();
  Project after = before;
  after.parallel.devices = m_devices->checkedDevices();
  after.parallel.workerLoad = m_devices->checkedLoads();
  if (after.parallel.devices.empty()) {
    setStatus(tr("Tick at least one device to train on."), true);
    showProjectSettings();
    return;
  }
  if (after.parallel.devices == before.parallel.devices && after.parallel.workerLoad == before.parallel.workerLoad) return;
  m_doc->undoStack()->push(new SettingsCommand(m_doc, before, after, QStringLiteral("parallel.devices")));
}

void TrainingPage::applyPolicyEdit() {
  Project before = m_doc->settings();
  Project after = before;
  after.parallel.lrPolicy = ss(m_policy->currentData().toString());
  if (after.parallel.lrPolicy == before.parallel.lrPolicy) return;
  m_doc->undoStack()->push(new SettingsCommand(m_doc, before, after, QStringLiteral("parallel.lr_policy")));
}

void TrainingPage::refreshPlan() {
  if (isRunning()) return;
  if (!m_planDir) m_planDir = std::make_unique<QTemporaryDir>();
  const QString file = m_planDir->filePath(QStringLiteral("plan.nsproj"));
  try {
    saveProject(m_doc->toProject(), ss(file));
  } catch (const Error& e) {
    m_plan->setText(tr("<span style='color:#c0392b'>%1</span>").arg(qs(e.what()).toHtmlEscaped()));
    setPlanRefusal(qs(e.what()));
    return;
  }
  cancelCliCommand(m_planQuery);
  m_plan->setText(m_plan->text() + tr("<br><i>updating…</i>"));
  m_planQuery = runCliCommand(this, {QStringLiteral("train"), file, QStringLiteral("--dry-run"), QStringLiteral("--json")},
                              [this](const CliResult& r) {
                                m_planQuery = nullptr;
                                if (r.exitCode == 0) {
                                  const auto event = parseEngineEvent(r.standardOutput.trimmed());
                                  if (event && std::holds_alternative<PlanEvent>(*event)) {
                                    showPlan(std::get<PlanEvent>(*event).plan);
                                    setPlanRefusal({});
                                    emit planUpdated();
                                    return;
                                  }
                                }
                                QString why = r.errorText();
                                why.remove(QRegularExpression(QStringLiteral("^netsmith-cli train: ")));
                                why.replace(m_planDir ? m_planDir->filePath(QStringLiteral("plan.nsproj")) : QString(),
                                            tr("project"));
                                m_plan->setText(tr("<span style='color:#c0392b'><b>Cannot train yet:</b> %1</span>")
                                                    .arg(why.toHtmlEscaped()));
                                setPlanRefusal(why);
                                emit planUpdated();
                              });
}

void TrainingPage::showPlan(const TrainingPlan& plan) {
  QStringList devices;
  for (const PlannedDevice& d : plan.devices)
    devices << QStringLiteral("%1 (batch %2%3)").arg(qs(d.id)).arg(d.batch).arg(d.threads > 0 ? tr(", %n thread(s)", nullptr, d.threads) : QString());
  QString text = tr("<table cellspacing=2>"
                    "<tr><td>Devices</td><td><b>%1</b></td></tr>"
                    "<tr><td>Logical batch</td><td><b>%2</b> (batch size %3 per device)</td></tr>"
                    "<tr><td>Learning rate</td><td><b>%4</b> (configured %5)</td></tr>"
                    "<tr><td>Iterations / epoch</td><td><b>%6</b>%7</td></tr>"
                    "<tr><td>LR update interval</td><td>every %8</td></tr>"
                    "<tr><td>Warm-up</td><td>%9</td></tr></table>")
                     .arg(devices.join(QStringLiteral(", ")).toHtmlEscaped())
                     .arg(plan.logicalBatch)
                     .arg(plan.batchSize)
                     .arg(number(plan.effectiveLr), number(plan.baseLr))
                     .arg(plan.iterationsPerEpoch)
                     .arg(plan.trainSamples > 0 ? tr(" over %1 samples").arg(QLocale().toString(plan.trainSamples)) : QString())
                     .arg(tr("%n iteration(s)", nullptr, static_cast<int>(plan.lrUpdateInterval)))
                     .arg(plan.warmupIterations > 0 ? tr("%n iteration(s)", nullptr, static_cast<int>(plan.warmupIterations))
                                                    : tr("none"));
  // The epochs, precision, data and memory the run will have (the dry run states them).
  QString more;
  if (plan.maxEpoch > 0) more += tr("<tr><td>Epochs</td><td><b>%1</b></td></tr>").arg(plan.maxEpoch);
  if (!plan.precision.empty()) more += tr("<tr><td>Precision</td><td>%1</td></tr>").arg(qs(plan.precision).toHtmlEscaped());
  for (const auto& d : plan.data) more += tr("<tr><td>Data</td><td>%1</td></tr>").arg(describeDataSet(d).toHtmlEscaped());
  if (plan.memoryBytesNeeded > 0)
    more += tr("<tr><td>Memory</td><td>about %1</td></tr>")
                .arg(QLocale().formattedDataSize(plan.memoryBytesNeeded));
  text.replace(QStringLiteral("</table>"), more + QStringLiteral("</table>"));
  const ClusterSettings cluster = m_cluster->settings();
  const bool ranked = std::any_of(plan.devices.begin(), plan.devices.end(),
                                  [](const PlannedDevice& d) { return d.id.rfind("rank", 0) == 0; });
  if (cluster.enabled && !ranked && !isRunning())
    text += tr("<p><b>Cluster:</b> %1 processes, each with these devices: logical batch %2 in all; the engine "
               "derives the learning rate and iterations per epoch from the whole job.</p>")
                .arg(cluster.processes)
                .arg(plan.logicalBatch * cluster.processes);
  for (const std::string& w : plan.warnings) text += QStringLiteral("<p style='color:#b9770e'>⚠ %1</p>").arg(qs(w).toHtmlEscaped());
  m_plan->setText(text);
}

// --- run -------------------------------------------------------------------------------------

bool TrainingPage::start() {
  if (isRunning()) return false;
  if (!m_planRefusal.isEmpty()) {
    setStatus(tr("Cannot start: %1").arg(m_planRefusal), true);
    return false;
  }
  const auto& analysis = m_doc->graph()->analysis();
  if (!analysis.valid) {
    setStatus(tr("Cannot start: the network has %n problem(s). Fix the red blocks on the Edit page first.", nullptr,
                 analysis.problemCount()),
              true);
    return false;
  }
  // A new run folder; the engine trains a snapshot of the document written into it.
  QDir root(runsRoot());
  const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
  QString name = stamp;
  for (int n = 2; root.exists(name); ++n) name = stamp + QStringLiteral("-%1").arg(n);
  if (!root.mkpath(name)) {
    setStatus(tr("Cannot start: cannot create the run folder %1").arg(root.filePath(name)), true);
    return false;
  }
  m_runFolder = root.filePath(name);
  const QString snapshot = QDir(m_runFolder).filePath(QStringLiteral("project.nsproj"));
  try {
    saveProject(m_doc->toProject(), ss(snapshot));
  } catch (const Error& e) {
    setStatus(tr("Cannot start: %1").arg(qs(e.what())), true);
    return false;
  }
  m_charts->clear();
  m_temperaturePlot->hide();
  m_powerPlot->hide();
  m_iterationEvents = m_epochEvents = 0;
  m_sawFinished = false;
  m_scalingVerdict.clear();
  m_maxEpoch = m_doc->settings().config.maxEpoch;
  m_lastOutcome.reset();
  m_log->clear();
  m_elapsed.start();
  setState(State::Starting);
  const ClusterSettings cluster = m_cluster->settings();
  setStatus(cluster.enabled ? tr("Starting the engine through mpirun (%n process(es))…", nullptr, cluster.processes)
                            : tr("Starting the engine…"));
  QStringList args{QStringLiteral("train"), snapshot, QStringLiteral("--run-dir"), m_runFolder, QStringLiteral("--events"),
                   QStringLiteral("-")};
  args << m_extraArguments;
  m_engine.setProgram(engineProgram());
  m_engine.setCluster(cluster);
  m_engine.start(args, m_runFolder);
  return true;
}

void TrainingPage::pause() {
  if (m_state == State::Running) m_engine.pause();
}

void TrainingPage::resume() {
  if (m_state == State::Paused) m_engine.resume();
}

void TrainingPage::stop() {
  if (!isRunning()) return;
  m_engine.stop();
  setState(State::Stopping);
  setStatus(tr("Stopping: the engine finishes the iteration and writes a checkpoint…"));
}

void TrainingPage::onEvent(const EngineEvent& event) {
  if (const auto* e = std::get_if<StartedEvent>(&event)) {
    if (m_state == State::Starting) setState(State::Running);
    if (e->maxEpoch > 0) m_maxEpoch = e->maxEpoch;
    if (!e->plan.devices.empty()) showPlan(e->plan);
    m_devices->clearFigures();
    if (m_engine.cluster().enabled) m_jobDevices->showDevices(startedJobDevices(e->plan.devices, rankHosts()), true);
    setStatus(tr("Running: %1 samples, %2 parameters").arg(QLocale().toString(e->trainSamples), QLocale().toString(e->parameters)));
    m_log->appendPlainText(tr("started: run folder %1").arg(e->run));
  } else if (const auto* e = std::get_if<IterationEvent>(&event)) {
    ++m_iterationEvents;
    const double elapsed = m_elapsed.elapsed() / 1000.0;
    m_charts->addIteration(*e, elapsed);
    m_devices->showFigures(e->devices);
    if (m_state == State::Stopping) return;
    setStatus(tr("Epoch %1/%2 · iteration %3/%4 · loss %5 · %6 samples/s · elapsed %7 · ETA %8")
                  .arg(e->epoch)
                  .arg(m_maxEpoch)
                  .arg(e->iteration)
                  .arg(e->iterationsPerEpoch)
                  .arg(number(e->loss))
                  .arg(hasValue(e->samplesPerS) ? QLocale().toString(qRound64(e->samplesPerS)) : QStringLiteral("–"))
                  .arg(duration(elapsed), duration(e->etaS)));
  } else if (const auto* e = std::get_if<EpochEvent>(&event)) {
    ++m_epochEvents;
    m_charts->addEpoch(*e);
    QString line = tr("epoch %1: training loss %2, validation loss %3, validation error %4, %5 s")
                       .arg(e->epoch)
                       .arg(number(e->trainLoss), number(e->validationLoss), number(e->validationError), number(e->seconds, 3));
    if (e->scaling)
      line += tr("; %1 samples/s, communication %2%, speed-up ≈ %3")
                  .arg(number(e->scaling->samplesPerS, 6), number(100 * e->scaling->communicationShare, 3),
                       number(e->scaling->speedupEstimate, 3));
    if (e->scaling && hasValue(e->scaling->dataShare))
      line += tr("; data %1%%2").arg(number(100 * e->scaling->dataShare, 3),
                                     e->scaling->dataShare > kDataBoundShare ? tr(" (waiting for data: the disk or decoding is the bottleneck)") : QString());
    m_log->appendPlainText(line);
  } else if (const auto* e = std::get_if<CheckpointEvent>(&event)) {
    m_log->appendPlainText(tr("checkpoint: %1").arg(e->path));
  } else if (const auto* e = std::get_if<ControlEvent>(&event)) {
    if (e->kind == ControlEvent::Kind::Paused) {
      if (m_state != State::Stopping) setState(State::Paused);
      setStatus(tr("Paused at epoch %1, iteration %2.").arg(e->epoch).arg(e->iteration));
      m_log->appendPlainText(tr("paused"));
      m_charts->markPause();  // the device lines break here, not across the pause
    } else if (e->kind == ControlEvent::Kind::Resumed) {
      if (m_state == State::Paused) setState(State::Running);
      m_log->appendPlainText(tr("resumed"));
    } else {
      m_log->appendPlainText(tr("resumed from checkpoint %1").arg(e->path));
    }
  } else if (const auto* e = std::get_if<MessageEvent>(&event)) {
    m_log->appendHtml(QStringLiteral("<span style='color:%1'>%2: %3</span>")
                          .arg(e->isError ? QStringLiteral("#c0392b") : QStringLiteral("#b9770e"),
                               e->isError ? tr("error") : tr("warning"), e->message.toHtmlEscaped()));
  } else if (const auto* e = std::get_if<FinishedEvent>(&event)) {
    m_sawFinished = true;
    m_log->appendPlainText(tr("finished: %1").arg(e->status));
    m_scalingVerdict = e->scalingVerdict;
    if (!e->scalingVerdict.isEmpty()) m_log->appendPlainText(tr("scaling: %1").arg(e->scalingVerdict));
    for (const QString& gpu : e->gpuSummaries) m_log->appendPlainText(gpu);
  }
}

void TrainingPage::onLog(const QString& line, LogKind kind) {
  if (kind == LogKind::Notice) m_log->appendHtml(QStringLiteral("<span style='color:#666'>%1</span>").arg(line.toHtmlEscaped()));
  else m_log->appendPlainText(line);
}

void TrainingPage::onFinished(const RunOutcome& outcome) {
  m_lastOutcome = outcome;
  m_charts->flush();
  setState(State::Idle);
  const QString folder = QDir::toNativeSeparators(m_runFolder);
  switch (outcome.status) {
    case RunOutcome::Status::Completed:
      setStatus(tr("Run completed in %1 — %2").arg(duration(m_elapsed.elapsed() / 1000.0), folder) +
                (m_scalingVerdict.isEmpty() ? QString() : QStringLiteral("\n") + m_scalingVerdict));
      break;
    case RunOutcome::Status::Stopped:
      setStatus(tr("Run stopped; a checkpoint was written. Resume it with: netsmith-cli train --resume %1").arg(folder));
      break;
    case RunOutcome::Status::Failed:
      setStatus(tr("Run failed: %1").arg(outcome.message), true);
      break;
  }
  refreshHistory();
  m_planDebounce.start();
}

// --- history -----------------------------------------------------------------------------------

void TrainingPage::refreshHistory() {
  QSet<QString> ticked;
  for (int i = 0; i < m_historyList->count(); ++i)
    if (m_historyList->item(i)->checkState() == Qt::Checked) ticked << m_historyList->item(i)->data(Qt::UserRole).toString();
  m_history = listRuns(runsRoot());
  const QSignalBlocker block(m_historyList);
  m_historyList->clear();
  for (const RunSummary& run : m_history) {
    QString text = QStringLiteral("%1 · %2").arg(run.displayName(), run.status.isEmpty() ? tr("no events") : run.status);
    if (!run.sweepLabel.isEmpty()) text = tr("sweep ") + text;
    if (run.epochs > 0) text += tr(" · %n epoch(s)", nullptr, static_cast<int>(run.epochs));
    if (hasValue(run.bestValidationError)) text += tr(" · best error %1%").arg(100 * run.bestValidationError, 0, 'f', 2);
    auto* item = new QListWidgetItem(text, m_historyList);
    item->setData(Qt::UserRole, run.folder);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
    item->setCheckState(ticked.contains(run.folder) ? Qt::Checked : Qt::Unchecked);
    if (!run.message.isEmpty()) item->setToolTip(run.message);
  }
  updateOverlays();
}

void TrainingPage::updateOverlays() {
  QList<CurvePoints> runs;
  for (int i = 0; i < m_historyList->count(); ++i)
    if (m_historyList->item(i)->checkState() == Qt::Checked) {
      CurvePoints curve = readLearningCurve(m_historyList->item(i)->data(Qt::UserRole).toString());
      if (i < m_history.size() && !m_history[i].sweepLabel.isEmpty()) curve.label = m_history[i].sweepLabel;
      runs << curve;
    }
  m_charts->setOverlays(runs);
}

}  // namespace netsmith::gui
