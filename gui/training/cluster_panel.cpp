#include "gui/training/cluster_panel.h"

#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QToolButton>

namespace netsmith::gui {

ClusterPanel::ClusterPanel(QWidget* parent) : QGroupBox(tr("Cluster (Open MPI)"), parent) {
  setObjectName(QStringLiteral("clusterPanel"));
  setCheckable(true);
  setChecked(false);
  setToolTip(tr("Train across processes, on this machine or on several, through Open MPI's mpirun.\n"
                "Each process trains the devices ticked above; gradients are combined across processes."));
  m_hostfile = new QLineEdit(this);
  m_hostfile->setObjectName(QStringLiteral("clusterHostfile"));
  m_hostfile->setPlaceholderText(tr("none: all processes on this machine"));
  m_hostfile->setToolTip(tr("An Open MPI hostfile: one host per line, e.g. \"node1 slots=4\".\n"
                            "netsmith-cli must be at the same path on every host."));
  auto* browse = new QToolButton(this);
  browse->setText(QStringLiteral("…"));
  browse->setToolTip(tr("Choose a hostfile"));
  auto* hostRow = new QHBoxLayout;
  hostRow->setContentsMargins(0, 0, 0, 0);
  hostRow->addWidget(m_hostfile, 1);
  hostRow->addWidget(browse);
  m_perHost = new QSpinBox(this);
  m_perHost->setObjectName(QStringLiteral("clusterProcessesPerHost"));
  m_perHost->setRange(0, 1024);
  m_perHost->setSpecialValueText(tr("by slots"));
  m_perHost->setToolTip(tr("Processes on each host of the hostfile (mpirun --map-by ppr:K:node).\n"
                           "\"by slots\": mpirun fills each host's slots in order. Not used without a hostfile."));
  m_processes = new QSpinBox(this);
  m_processes->setObjectName(QStringLiteral("clusterProcesses"));
  m_processes->setRange(1, 4096);
  m_processes->setValue(2);
  m_processes->setToolTip(tr("Processes in the job (mpirun -np). Each trains the ticked devices, so the logical batch\n"
                             "is the batch size × the devices of all processes."));
  m_nccl = new QLineEdit(this);
  m_nccl->setObjectName(QStringLiteral("clusterNcclInterface"));
  m_nccl->setPlaceholderText(tr("automatic"));
  m_nccl->setToolTip(tr("The network interface NCCL uses between hosts (NCCL_SOCKET_IFNAME, e.g. eth0 or ib0).\n"
                        "It matters for GPU runs across machines only; CPU runs use Open MPI's own transports."));
  m_note = new QLabel(this);
  m_note->setWordWrap(true);
  m_note->setObjectName(QStringLiteral("clusterNote"));

  auto* form = new QFormLayout(this);
  form->addRow(tr("Hostfile"), hostRow);
  form->addRow(tr("Processes per host"), m_perHost);
  form->addRow(tr("Processes"), m_processes);
  form->addRow(tr("NCCL interface"), m_nccl);
  form->addRow(m_note);

  auto changed = [this] {
    if (!m_updating) emit edited();
  };
  connect(this, &QGroupBox::toggled, this, changed);
  connect(m_hostfile, &QLineEdit::editingFinished, this, changed);
  connect(m_nccl, &QLineEdit::editingFinished, this, changed);
  connect(m_perHost, &QSpinBox::valueChanged, this, changed);
  connect(m_processes, &QSpinBox::valueChanged, this, changed);
  connect(browse, &QToolButton::clicked, this, [this, changed] {
    const QString file = QFileDialog::getOpenFileName(this, tr("Open MPI hostfile"), m_hostfile->text());
    if (file.isEmpty()) return;
    m_hostfile->setText(file);
    changed();
  });
}

ClusterSettings ClusterPanel::settings() const {
  ClusterSettings s;
  s.enabled = isChecked();
  s.hostfile = m_hostfile->text().trimmed();
  s.processesPerHost = m_perHost->value();
  s.processes = m_processes->value();
  s.ncclSocketIfname = m_nccl->text().trimmed();
  return s;
}

void ClusterPanel::setSettings(const ClusterSettings& s) {
  m_updating = true;
  setChecked(s.enabled);
  m_hostfile->setText(s.hostfile);
  m_perHost->setValue(s.processesPerHost);
  m_processes->setValue(s.processes);
  m_nccl->setText(s.ncclSocketIfname);
  m_updating = false;
}

void ClusterPanel::setNote(const QString& text, bool error) {
  m_note->setText(text);
  m_note->setStyleSheet(error ? QStringLiteral("color:#c0392b") : QStringLiteral("color:#666"));
}

}  // namespace netsmith::gui
