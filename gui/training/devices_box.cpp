// DevicesBox (devices_box.h): the devices, the lr_policy and the Cluster group's values.
#include "gui/training/devices_box.h"

#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QProcess>
#include <QVBoxLayout>

#include "engine/monitor/devices.h"
#include "gui/document/project_document.h"
#include "gui/run/cli_command.h"
#include "gui/training/cluster_panel.h"
#include "gui/training/device_table.h"
#include "gui/training/job_device_tree.h"

namespace netsmith::gui {

namespace {

const char* kLrPolicies[][2] = {
    {"scale_lr", QT_TRANSLATE_NOOP("DevicesBox", "scale_lr — learning rate × devices (recommended)")},
    {"keep_logical_batch", QT_TRANSLATE_NOOP("DevicesBox", "keep_logical_batch — batch size ÷ devices")},
    {"none", QT_TRANSLATE_NOOP("DevicesBox", "none — no adjustment")},
};

}  // namespace

DevicesBox::DevicesBox(ProjectDocument* doc, QWidget* parent) : QGroupBox(tr("Devices"), parent), m_doc(doc) {
  m_table = new DeviceTable(this);
  m_table->setObjectName(QStringLiteral("deviceTable"));
  // No fixed minimum: the table asks for its rows and columns (Note [Device table size]).
  m_policy = new QComboBox(this);
  for (const auto& p : kLrPolicies) m_policy->addItem(tr(p[1]), QString::fromLatin1(p[0]));
  m_policy->setToolTip(tr("How to keep multi-device training close to one device (parallel.lr_policy)"));
  m_gpuNote = new QLabel(this);
  m_gpuNote->setWordWrap(true);
  m_gpuNote->setStyleSheet(QStringLiteral("color:#666"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_table, 1);
  auto* policyRow = new QFormLayout;
  policyRow->addRow(tr("LR policy"), m_policy);
  layout->addLayout(policyRow);
  layout->addWidget(m_gpuNote);
  m_jobDevices = new JobDeviceTree(this);
  m_jobDevices->setMinimumHeight(90);
  m_jobDevices->hide();
  layout->addWidget(m_jobDevices);
  // Made here, after the devices, so that the Tab key reaches its fields after them.
  m_cluster = new ClusterPanel(this);

  connect(m_table, &DeviceTable::selectionEdited, this, &DevicesBox::applyDeviceEdit);
  connect(m_policy, &QComboBox::activated, this, &DevicesBox::applyPolicyEdit);
  connect(m_cluster, &ClusterPanel::edited, this, &DevicesBox::onClusterEdited);
}

DevicesBox::~DevicesBox() { cancelCliCommand(m_devicesQuery); }

void DevicesBox::setRunning(bool running) {
  m_running = running;
  m_table->setEnabled(!running);
  m_cluster->setEnabled(!running);
  m_policy->setEnabled(!running);
}

// --- devices ------------------------------------------------------------------------------------

void DevicesBox::refreshDevices() {
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
      m_table->setDevices(devices);
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
void DevicesBox::showProjectSettings() {
  const ParallelConfig& p = m_doc->settings().parallel;
  m_table->showSelection(p.devices, p.workerLoad);
  const int i = m_policy->findData(qs(p.lrPolicy));
  if (i >= 0) m_policy->setCurrentIndex(i);
  if (!m_running) showClusterPlan();
}

void DevicesBox::applyDeviceEdit() {
  Project before = m_doc->settings();
  Project after = before;
  after.parallel.devices = m_table->checkedDevices();
  after.parallel.workerLoad = m_table->checkedLoads();
  if (after.parallel.devices.empty()) {
    emit refused(tr("Tick at least one device to train on."));
    showProjectSettings();
    return;
  }
  if (after.parallel.devices == before.parallel.devices && after.parallel.workerLoad == before.parallel.workerLoad) return;
  m_doc->undoStack()->push(new SettingsCommand(m_doc, before, after, QStringLiteral("parallel.devices")));
}

void DevicesBox::applyPolicyEdit() {
  Project before = m_doc->settings();
  Project after = before;
  after.parallel.lrPolicy = ss(m_policy->currentData().toString());
  if (after.parallel.lrPolicy == before.parallel.lrPolicy) return;
  m_doc->undoStack()->push(new SettingsCommand(m_doc, before, after, QStringLiteral("parallel.lr_policy")));
}

// --- cluster ----------------------------------------------------------------------------------

ClusterSettings DevicesBox::clusterSettings() const { return m_cluster->settings(); }

void DevicesBox::setClusterSettings(const ClusterSettings& settings) {
  m_cluster->setSettings(settings);
  onClusterEdited();
}

void DevicesBox::loadClusterSettingsForProject() {
  m_clusterPath = m_doc->path();
  m_cluster->setSettings(loadClusterSettings(m_clusterPath));
  showClusterPlan();
}

void DevicesBox::keepClusterSettingsUnderPath() {
  if (m_clusterPath == m_doc->path()) return;
  m_clusterPath = m_doc->path();
  saveClusterSettings(m_clusterPath, m_cluster->settings());
}

void DevicesBox::onClusterEdited() {
  m_clusterPath = m_doc->path();
  saveClusterSettings(m_clusterPath, m_cluster->settings());
  showClusterPlan();
  emit clusterEdited();
}

void DevicesBox::showStartedJob(const std::vector<PlannedDevice>& devices) {
  m_jobDevices->showDevices(startedJobDevices(devices, rankHosts()), true);
}

QStringList DevicesBox::rankHosts() const {
  const ClusterSettings c = m_cluster->settings();
  QString text;
  if (!c.hostfile.isEmpty()) {
    QFile f(c.hostfile);
    if (f.open(QIODevice::ReadOnly)) text = QString::fromUtf8(f.read(1 << 20));
  }
  return predictRankHosts(c, text);
}

void DevicesBox::showClusterPlan() {
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

}  // namespace netsmith::gui
