// TrainingPage (training_page.h): the devices and lr_policy, the cluster group, and the plan the
// engine's dry run gives for them.
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QComboBox>
#include <QLocale>
#include <QProcess>
#include <QRegularExpression>

#include "engine/core/error.h"
#include "engine/monitor/devices.h"
#include "engine/project/project_io.h"
#include "gui/run/cli_command.h"
#include "gui/run/engine_text.h"
#include "gui/training/cluster_panel.h"
#include "gui/training/device_table.h"
#include "gui/training/figures_text.h"
#include "gui/training/job_device_tree.h"
#include "gui/training/training_page.h"

namespace netsmith::gui {

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
                                const QString why = engineTextForPeople(
                                    r.errorText(), m_doc->graph()->spec(),
                                    m_planDir ? m_planDir->filePath(QStringLiteral("plan.nsproj")) : QString());
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
                     .arg(numberText(plan.effectiveLr), numberText(plan.baseLr))
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

}  // namespace netsmith::gui
