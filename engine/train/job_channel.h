// JobChannel: how the processes of one training job agree (DESIGN.md §8). In a single process it
// is trivial; under mpirun the leader (rank 0) decides what every process does next (train the
// next iteration, pause, stop, fail) and the others report their figures to it, so every
// process makes the same collectives in the same order and only the leader writes the run.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/project/project.h"

namespace netsmith {

class MpiJob;

class JobChannel {
 public:
  // A single-process job, or this process's part of the mpirun job when launched by mpirun.
  static std::unique_ptr<JobChannel> forThisProcess(double timeoutS);
  virtual ~JobChannel() = default;

  virtual bool leader() const = 0;
  virtual int processes() const = 0;
  virtual int processRank() const = 0;
  virtual std::string host(int process) const = 0;
  virtual MpiJob* mpi() = 0;  // null in a single process

  // The leader's decision reaches every process (the leader gets its own back).
  virtual Json agree(const Json& leaderDecision) = 0;
  // Every process's report, by process rank, at the leader; an empty list elsewhere.
  virtual std::vector<Json> gather(const Json& report) = 0;
  // The leader's text (a checkpoint's bytes) reaches every process.
  virtual std::string share(const std::string& leaderText) = 0;
  // After a failure that may involve a lost process: end without waiting for the others.
  virtual bool mustAbandon() const = 0;
};

}  // namespace netsmith
