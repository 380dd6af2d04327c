// HierarchicalCommunicator: one worker's rank in a job of several processes (mpirun), each with
// several worker threads. A collective runs in three steps: the process's workers combine in
// shared memory (InProcessGroup), the processes' leader workers combine over MPI, and the result
// comes back to every worker of the process.
//
// Note [Reduction across processes]
// Global ranks number the devices process by process (process 0's workers, then process 1's,
// ...). The in-process step sums each process's workers in the tree order over its local ranks;
// the cross-process step gathers the processes' sums at rank 0, which adds them in the tree
// order over processes (Note [Reduction tree]) and sends the total back. When every process has
// the same power-of-two number of workers, each process's sum is one subtree of the tree over
// all global ranks, so the total is added in exactly the order one process with all the workers
// would use: `mpirun -np 2` with one worker each trains the same weights as one process with
// two workers (Note [Reproducible training]). Gathering at rank 0 costs P × the bucket on rank
// 0's link, which is fine for the few processes of a workstation or small cluster; the exchanges
// have deadlines (Note [MPI deadlines]).
#pragma once

#include <string>
#include <vector>

#include "engine/comm/communicator.h"
#include "engine/comm/mpi_job.h"

namespace netsmith {

class HierarchicalCommunicator final : public Communicator {
 public:
  // local: this worker's rank among the process's workers. globalNames: every device of the job,
  // by global rank; firstGlobalRank: the global rank of this process's local rank 0.
  HierarchicalCommunicator(Communicator& local, MpiJob& job, std::vector<std::string> globalNames, int firstGlobalRank,
                           double timeoutS);

  int rank() const override { return m_firstGlobalRank + m_local.rank(); }
  int size() const override { return static_cast<int>(m_names.size()); }
  const std::string& deviceName(int rank) const override { return m_names.at(static_cast<size_t>(rank)); }

  void allReduceSum(float* data, int64_t count) override;
  // The root must be global rank 0 (the only broadcast training makes).
  void broadcast(float* data, int64_t count, int root) override;
  void barrier() override;
  void abort(const std::string& reason) override { m_local.abort(reason); }

 private:
  Communicator& m_local;
  MpiJob& m_job;
  std::vector<std::string> m_names;
  int m_firstGlobalRank;
  double m_timeoutS;
  std::vector<float> m_buffer;
};

}  // namespace netsmith
