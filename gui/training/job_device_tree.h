// JobDeviceTree: the devices of an mpirun job grouped by process (rank) and host. Before a run it
// shows the plan: the project's parallel.devices for every rank (or, when they name ranks as
// "rank1/cpu:0", each under its rank), with the host each rank will probably run on. Once the
// `started` event arrives it shows the job's real devices ("rankR/<device>" ids) and their batch.
#pragma once

#include <QTreeWidget>

#include "gui/run/cluster_launch.h"
#include "gui/run/engine_event.h"

namespace netsmith::gui {

struct JobDevice {
  int rank = 0;
  QString device;  // without the rank prefix: "cpu:0"
  QString host;    // empty when not known
  long long batch = 0;
  double load = kNoValue;
};

// "rank1/cpu:0" -> rank 1, "cpu:0"; an id without a rank prefix is rank 0's.
JobDevice splitJobDeviceId(const QString& id);
// The job's devices before starting (Note [Devices of an mpirun job] in engine/train/job_sync.cpp).
QList<JobDevice> plannedJobDevices(const QStringList& projectDevices, const ClusterSettings& cluster,
                                   const QStringList& rankHosts);
// The job's devices as `started` lists them; hosts from the event when it gives them, else from rankHosts.
QList<JobDevice> startedJobDevices(const std::vector<PlannedDevice>& devices, const QStringList& rankHosts);

class JobDeviceTree : public QTreeWidget {
  Q_OBJECT
 public:
  explicit JobDeviceTree(QWidget* parent = nullptr);
  void showDevices(const QList<JobDevice>& devices, bool fromEngine);
  int rankCount() const { return topLevelItemCount(); }
};

}  // namespace netsmith::gui
