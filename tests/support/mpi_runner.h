// Runs netsmith-cli under Open MPI's mpirun on this machine (the tests of label mpi), and finds
// one rank's process to kill.
#pragma once

#include <sys/types.h>

#include <QtTest>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/cli_runner.h"

namespace netsmith::test {

// What mpirun needs in a container or on CI: run as root, no cross-memory attach. Returns false
// (the test then skips) without Debian's openmpi-bin.
inline bool prepareMpirun() {
  qputenv("OMPI_ALLOW_RUN_AS_ROOT", "1");
  qputenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
  qputenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none");
  return runProcess("mpirun", {"--version"}, 30000).exitCode == 0;
}

inline QStringList mpirunArgs(int processes, const QStringList& cliArgs, bool survivorsReport = false) {
  QStringList args{"--oversubscribe"};
  // Without it Open MPI ends the whole job itself when a rank dies (docs/cluster.md).
  if (survivorsReport) args << "--mca" << "orte_enable_recovery" << "1";
  args << "-np" << QString::number(processes) << cliPath();
  return args + cliArgs;
}

inline CliRun mpirun(int processes, const QStringList& cliArgs, bool survivorsReport = false,
                     const std::function<void(const Json&, QProcess&)>& onEvent = {}) {
  return runProcess("mpirun", mpirunArgs(processes, cliArgs, survivorsReport), 600000, onEvent);
}

// Sets parallel.timeout_s in a run folder's project snapshot, as a user would before resuming a
// job that lost a rank (the resume must then be given --accept-edited-settings).
inline void setRunTimeout(const std::string& runDir, int seconds) {
  const std::filesystem::path snapshot = std::filesystem::path(runDir) / "project.nsproj";
  std::ifstream in(snapshot);
  Json saved = Json::parse(in);
  in.close();
  saved["parallel"]["timeout_s"] = seconds;
  std::ofstream(snapshot) << saved.dump(2) << "\n";
}

// The pid of the netsmith-cli process of `rank` whose command line mentions `marker`.
inline pid_t findRank(const std::string& marker, int rank) {
  namespace fs = std::filesystem;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream cmd(entry.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(cmd)), {});
    if (cmdline.find("netsmith-cli") == std::string::npos || cmdline.find(marker) == std::string::npos) continue;
    if (cmdline.find("mpirun") == 0) continue;
    std::ifstream env(entry.path() / "environ");
    std::string environ((std::istreambuf_iterator<char>(env)), {});
    if (environ.find("OMPI_COMM_WORLD_RANK=" + std::to_string(rank) + '\0') != std::string::npos) return std::stoi(name);
  }
  return -1;
}

}  // namespace netsmith::test
