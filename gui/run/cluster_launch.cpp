#include "gui/run/cluster_launch.h"

#include <sched.h>
#include <unistd.h>

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>
#include <QSettings>
#include <QStandardPaths>
#include <QThread>

namespace netsmith::gui {

namespace {

QString groupFor(const QString& projectPath) {
  const QString key = projectPath.isEmpty() ? QStringLiteral("(unsaved)") : QFileInfo(projectPath).absoluteFilePath();
  return QStringLiteral("clusterLaunch/") +
         QString::fromLatin1(QCryptographicHash::hash(key.toUtf8(), QCryptographicHash::Sha1).toHex().left(16));
}

QString tr(const char* text) { return QCoreApplication::translate("ClusterLaunch", text); }

// Shell-like quoting for the log line only (the child gets its arguments as a list).
QString quoted(const QString& s) {
  static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_@%+=:,./-]+$"));
  if (plain.match(s).hasMatch()) return s;
  QString q = s;
  q.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
  return QLatin1Char('\'') + q + QLatin1Char('\'');
}

// Cores as mpirun counts its slots on this machine: distinct (package, core) pairs among the CPUs
// this process may run on; the CPU count when the topology cannot be read.
int physicalCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return std::max(1, QThread::idealThreadCount());
  QSet<QString> cores;
  int cpus = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    ++cpus;
    const QString base = QStringLiteral("/sys/devices/system/cpu/cpu%1/topology/").arg(cpu);
    QFile core(base + QStringLiteral("core_id")), package(base + QStringLiteral("physical_package_id"));
    if (!core.open(QIODevice::ReadOnly) || !package.open(QIODevice::ReadOnly)) return std::max(1, cpus);
    cores.insert(QString::fromLatin1(package.readAll().trimmed() + '/' + core.readAll().trimmed()));
  }
  return std::max<int>(1, static_cast<int>(cores.size()));
}

}  // namespace

ClusterSettings loadClusterSettings(const QString& projectPath) {
  QSettings s;
  s.beginGroup(groupFor(projectPath));
  ClusterSettings c;
  c.enabled = s.value(QStringLiteral("enabled"), false).toBool();
  c.hostfile = s.value(QStringLiteral("hostfile")).toString();
  c.processesPerHost = std::max(0, s.value(QStringLiteral("processesPerHost"), 0).toInt());
  c.processes = std::max(1, s.value(QStringLiteral("processes"), 2).toInt());
  c.ncclSocketIfname = s.value(QStringLiteral("ncclSocketIfname")).toString();
  return c;
}

void saveClusterSettings(const QString& projectPath, const ClusterSettings& c) {
  QSettings s;
  s.beginGroup(groupFor(projectPath));
  s.setValue(QStringLiteral("project"), projectPath);  // for a person reading the file
  s.setValue(QStringLiteral("enabled"), c.enabled);
  s.setValue(QStringLiteral("hostfile"), c.hostfile);
  s.setValue(QStringLiteral("processesPerHost"), c.processesPerHost);
  s.setValue(QStringLiteral("processes"), c.processes);
  s.setValue(QStringLiteral("ncclSocketIfname"), c.ncclSocketIfname);
}

LaunchHost currentLaunchHost() {
  LaunchHost h;
  const QString fromEnv = qEnvironmentVariable("NETSMITH_MPIRUN");
  h.mpirun = !fromEnv.isEmpty() ? QStandardPaths::findExecutable(fromEnv) : QStandardPaths::findExecutable(QStringLiteral("mpirun"));
  if (!fromEnv.isEmpty() && h.mpirun.isEmpty() && QFileInfo(fromEnv).isExecutable()) h.mpirun = fromEnv;
  h.cores = physicalCores();
  h.root = ::geteuid() == 0;
  return h;
}

QProcessEnvironment EngineCommand::processEnvironment() const {
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  for (const auto& [name, value] : environment) env.insert(name, value);
  return env;
}

QString EngineCommand::commandLine() const {
  QStringList parts;
  for (const auto& [name, value] : environment) parts << name + QLatin1Char('=') + quoted(value);
  parts << quoted(program);
  for (const QString& a : arguments) parts << quoted(a);
  return parts.join(QLatin1Char(' '));
}

EngineCommand buildEngineCommand(const QString& engine, const QStringList& engineArguments, const ClusterSettings& cluster,
                                 const LaunchHost& host) {
  EngineCommand cmd;
  if (!cluster.enabled) {
    cmd.program = engine;
    cmd.arguments = engineArguments;
    return cmd;
  }
  cmd.viaMpirun = true;
  cmd.program = host.mpirun.isEmpty() ? QStringLiteral("mpirun") : host.mpirun;
  if (host.mpirun.isEmpty())
    cmd.error = tr("Cluster training needs Open MPI's mpirun, which is not on PATH: install Debian's openmpi-bin "
                   "(apt-get install openmpi-bin), or untick Cluster.");
  const int processes = std::max(1, cluster.processes);
  QStringList& a = cmd.arguments;
  const bool local = cluster.hostfile.trimmed().isEmpty();
  if (!local) {
    a << QStringLiteral("--hostfile") << cluster.hostfile.trimmed();
    if (cluster.processesPerHost > 0) a << QStringLiteral("--map-by") << QStringLiteral("ppr:%1:node").arg(cluster.processesPerHost);
  } else if (processes > host.cores) {
    // mpirun gives this machine one slot per core and refuses more processes without it.
    a << QStringLiteral("--oversubscribe");
  }
  a << QStringLiteral("-np") << QString::number(processes);
  // The survivors of a lost rank report it by name instead of being killed by mpirun
  // (Note [MPI deadlines] in engine/comm/mpi_job.h).
  a << QStringLiteral("--mca") << QStringLiteral("orte_enable_recovery") << QStringLiteral("1");
  if (!cluster.ncclSocketIfname.trimmed().isEmpty()) {
    cmd.environment << qMakePair(QStringLiteral("NCCL_SOCKET_IFNAME"), cluster.ncclSocketIfname.trimmed());
    a << QStringLiteral("-x") << QStringLiteral("NCCL_SOCKET_IFNAME");  // exported to the ranks on other hosts too
  }
  a << engine << engineArguments;
  if (host.root) {
    cmd.environment << qMakePair(QStringLiteral("OMPI_ALLOW_RUN_AS_ROOT"), QStringLiteral("1"))
                    << qMakePair(QStringLiteral("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"), QStringLiteral("1"));
  }
  // Containers often forbid the cross-memory attach of Open MPI's shared-memory transport.
  cmd.environment << qMakePair(QStringLiteral("OMPI_MCA_btl_vader_single_copy_mechanism"), QStringLiteral("none"));
  return cmd;
}

QList<QPair<QString, int>> parseHostfile(const QString& text) {
  QList<QPair<QString, int>> hosts;
  static const QRegularExpression slotsRe(QStringLiteral("\\bslots\\s*=\\s*(\\d+)"));
  for (QString line : text.split(QLatin1Char('\n'))) {
    line = line.section(QLatin1Char('#'), 0, 0).trimmed();
    if (line.isEmpty()) continue;
    const QString name = line.section(QRegularExpression(QStringLiteral("\\s+")), 0, 0);
    const auto m = slotsRe.match(line);
    hosts << qMakePair(name, m.hasMatch() ? m.captured(1).toInt() : 0);
  }
  return hosts;
}

QStringList predictRankHosts(const ClusterSettings& cluster, const QString& hostfileText) {
  const int processes = std::max(1, cluster.processes);
  QStringList out;
  if (cluster.hostfile.trimmed().isEmpty()) {
    for (int r = 0; r < processes; ++r) out << tr("this machine");
    return out;
  }
  const auto hosts = parseHostfile(hostfileText);
  for (int r = 0; r < processes; ++r) {
    QString host;
    if (cluster.processesPerHost > 0) {
      const int h = r / cluster.processesPerHost;
      if (h < hosts.size()) host = hosts[h].first;
    } else {
      int before = 0;
      for (const auto& [name, slotCount] : hosts) {
        if (slotCount <= 0) break;  // unknown slots: mpirun counts the host's cores
        if (r < before + slotCount) {
          host = name;
          break;
        }
        before += slotCount;
      }
    }
    out << host;
  }
  return out;
}

}  // namespace netsmith::gui
