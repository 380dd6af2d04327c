#include "gui/training/job_device_tree.h"

#include <QHeaderView>
#include <QMap>
#include <QRegularExpression>

namespace netsmith::gui {

JobDevice splitJobDeviceId(const QString& id) {
  static const QRegularExpression ranked(QStringLiteral("^rank(\\d+)/(.+)$"));
  JobDevice d;
  const auto m = ranked.match(id);
  if (m.hasMatch()) {
    d.rank = m.captured(1).toInt();
    d.device = m.captured(2);
  } else {
    d.device = id;
  }
  return d;
}

QList<JobDevice> plannedJobDevices(const QStringList& projectDevices, const ClusterSettings& cluster,
                                   const QStringList& rankHosts) {
  const int processes = std::max(1, cluster.processes);
  auto hostOf = [&](int rank) { return rank < rankHosts.size() ? rankHosts[rank] : QString(); };
  QList<JobDevice> out;
  const bool ranked = std::any_of(projectDevices.begin(), projectDevices.end(),
                                  [](const QString& d) { return d.contains(QLatin1Char('/')); });
  if (ranked) {
    for (const QString& id : projectDevices) {
      JobDevice d = splitJobDeviceId(id);
      d.host = hostOf(d.rank);
      out << d;
    }
    return out;
  }
  for (int r = 0; r < processes; ++r)
    for (const QString& id : projectDevices) out << JobDevice{r, id, hostOf(r)};
  return out;
}

QList<JobDevice> startedJobDevices(const std::vector<PlannedDevice>& devices, const QStringList& rankHosts) {
  QList<JobDevice> out;
  for (const PlannedDevice& p : devices) {
    JobDevice d = splitJobDeviceId(QString::fromStdString(p.id));
    d.host = !p.host.empty() ? QString::fromStdString(p.host) : d.rank < rankHosts.size() ? rankHosts[d.rank] : QString();
    d.batch = p.batch;
    d.load = p.load;
    out << d;
  }
  return out;
}

JobDeviceTree::JobDeviceTree(QWidget* parent) : QTreeWidget(parent) {
  setObjectName(QStringLiteral("jobDevices"));
  setColumnCount(3);
  setHeaderLabels({tr("Process / device"), tr("Host"), tr("Batch")});
  header()->setSectionResizeMode(0, QHeaderView::Stretch);
  header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
  setRootIsDecorated(true);
  setSelectionMode(QAbstractItemView::NoSelection);
  setToolTip(tr("The devices of the mpirun job, grouped by process (rank) and host."));
}

void JobDeviceTree::showDevices(const QList<JobDevice>& devices, bool fromEngine) {
  clear();
  QMap<int, QTreeWidgetItem*> ranks;
  for (const JobDevice& d : devices) {
    QTreeWidgetItem*& parent = ranks[d.rank];
    if (!parent) {
      parent = new QTreeWidgetItem(QStringList{tr("rank %1").arg(d.rank),
                                               d.host.isEmpty() ? (fromEngine ? QString() : tr("chosen by mpirun")) : d.host});
      addTopLevelItem(parent);
    }
    auto* item = new QTreeWidgetItem(parent, QStringList{QStringLiteral("rank%1/%2").arg(d.rank).arg(d.device), d.host,
                                                         d.batch > 0 ? QString::number(d.batch) : QString()});
    item->setData(0, Qt::UserRole, d.device);
  }
  // Ranks are keyed in order, so the tree lists them 0, 1, 2... whatever order they came in.
  QList<QTreeWidgetItem*> ordered = ranks.values();
  while (topLevelItemCount() > 0) takeTopLevelItem(0);
  addTopLevelItems(ordered);
  expandAll();
}

}  // namespace netsmith::gui
