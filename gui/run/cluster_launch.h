// The Training page's "Cluster" option: training across processes (and machines) with Open MPI.
// The engine child is then `mpirun [--hostfile H] [--map-by ppr:K:node] -np P --mca
// orte_enable_recovery 1 netsmith-cli train ...` instead of `netsmith-cli train ...`; rank 0
// writes the events stream to mpirun's standard output exactly as a single process does, and
// mpirun forwards its standard input (pause/resume/stop) to rank 0 (docs/cluster.md).
//
// The settings describe the machines, not the network, so they are kept in QSettings per project
// path and never in the project file.
#pragma once

#include <QList>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace netsmith::gui {

struct ClusterSettings {
  bool enabled = false;
  QString hostfile;           // an Open MPI hostfile; empty: every process on this machine
  int processesPerHost = 0;   // --map-by ppr:K:node with a hostfile; 0: mpirun fills each host's slots
  int processes = 2;          // -np
  QString ncclSocketIfname;   // NCCL_SOCKET_IFNAME for the engine (GPU runs); empty: NCCL chooses

  bool operator==(const ClusterSettings&) const = default;
};

// QSettings group "clusterLaunch/<hash of the absolute project path>"; an unsaved project
// (empty path) has one shared entry.
ClusterSettings loadClusterSettings(const QString& projectPath);
void saveClusterSettings(const QString& projectPath, const ClusterSettings& settings);

// What the machine running mpirun looks like; a parameter so that tests can fix it.
struct LaunchHost {
  QString mpirun;      // absolute path of mpirun; empty: not found
  int cores = 1;       // cores of this machine, as mpirun counts its slots (physical cores)
  bool root = false;   // running as root (mpirun refuses without OMPI_ALLOW_RUN_AS_ROOT*)
};
// mpirun on PATH ($NETSMITH_MPIRUN when set), this machine's physical cores, whether we are root.
LaunchHost currentLaunchHost();

// The child to start: program, arguments and the variables to add to the inherited environment.
struct EngineCommand {
  QString program;
  QStringList arguments;
  QList<QPair<QString, QString>> environment;  // set in the child, on top of ours
  QString error;                               // not empty: it cannot be started, for people
  bool viaMpirun = false;

  QProcessEnvironment processEnvironment() const;
  QString commandLine() const;  // for the log: VAR=value ... program args
};

// `engine engineArguments` as it is, or wrapped in mpirun when `cluster.enabled`.
EngineCommand buildEngineCommand(const QString& engine, const QStringList& engineArguments, const ClusterSettings& cluster,
                                 const LaunchHost& host);

// Where each rank of the job will probably run, for the plan before starting: "this machine"
// without a hostfile; with one, rank r goes to host r / K (processes per host K), or hosts are
// filled in file order by their `slots=` counts; empty where it cannot be told (mpirun decides).
QStringList predictRankHosts(const ClusterSettings& cluster, const QString& hostfileText);
// The host names of an Open MPI hostfile with their slots (0 when not given); comments skipped.
QList<QPair<QString, int>> parseHostfile(const QString& text);

}  // namespace netsmith::gui
