// MpiJob: the processes of one `mpirun -np P netsmith-cli train ...` (DESIGN.md §8: across
// processes, CPU tensors are combined with MPI). Rank 0 is the leader: it writes the run folder
// and the events; every other rank reports to it and follows its decisions.
//
// Note [MPI deadlines]
// A blocking MPI call waits forever for a process that died, so every exchange here is
// non-blocking and polled until a deadline (parallel.timeout_s): a rank that does not deliver in
// time is named, with its host, in a CommError, and the run fails instead of hanging. For the
// survivors to get that far, mpirun must not kill them first when a rank dies: launch with
// `--mca orte_enable_recovery 1` (docs/cluster.md); without it Open MPI ends the whole job
// itself and prints which rank died. Messages between a pair of ranks on one tag do not
// overtake each other, and each tag has one sending thread per process: data (gradients, from
// the leader worker's communication thread) and control (the coordinating thread) use separate
// duplicated communicators.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/comm/communicator.h"

namespace netsmith {

class MpiJob {
 public:
  // True when this process was started by mpirun (Open MPI's environment is present).
  static bool launchedByMpirun();
  // Initializes MPI (MPI_THREAD_MULTIPLE) once; later calls return the same job.
  static MpiJob& instance();

  int rank() const { return m_rank; }
  int size() const { return m_size; }
  const std::string& host(int rank) const { return m_hosts.at(static_cast<size_t>(rank)); }
  // "rank 1 (node7)", for messages.
  std::string describe(int rank) const;

  enum class Channel { Data, Control };

  // Leader: receives one buffer from every other rank (result[r], r >= 1; result[0] is `mine`).
  // Others: send `mine` to the leader. Floats must have the same count on every rank.
  std::vector<std::vector<float>> gatherFloats(const std::vector<float>& mine, Channel channel, double timeoutS,
                                               const std::string& what);
  // Leader sends `data` to every rank; the others receive into it (same count everywhere).
  void broadcastFloats(std::vector<float>& data, Channel channel, double timeoutS, const std::string& what);
  // The same for text of any length (JSON messages, checkpoint bytes).
  std::vector<std::string> gatherText(const std::string& mine, double timeoutS, const std::string& what);
  void broadcastText(std::string& text, double timeoutS, const std::string& what);

  // Ends MPI; after a failure (a rank may be gone) use abandon() instead, which never waits.
  void finalize();
  [[noreturn]] static void abandon(int exitCode);

 private:
  MpiJob();
  void* comm(Channel c) const;

  int m_rank = 0;
  int m_size = 1;
  std::vector<std::string> m_hosts;
  void* m_data = nullptr;     // MPI_Comm, kept opaque so that mpi.h stays out of headers
  void* m_control = nullptr;
  bool m_finalized = false;
};

}  // namespace netsmith
