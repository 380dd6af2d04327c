// JobSync: the synchronization of a training job (one part of TrainingRun, training_run.h): the
// processes of the job (JobChannel: one, or mpirun's), who trains where (this process's workers
// among the job's, by global rank), the communicators the workers' replicas all-reduce through,
// and what every process does together: following the leader's decisions, pausing, checking
// that the replicas agree, and validating. Every process calls the same methods in the same
// order (Note [Bucket order]); only the leader decides.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/devices/device_factory.h"
#include "engine/comm/hierarchical_communicator.h"
#include "engine/data/dataset.h"
#include "engine/train/job_channel.h"
#include "engine/train/metrics.h"
#include "engine/train/parallel_plan.h"
#include "engine/train/replica.h"
#include "engine/train/run_control.h"
#include "engine/train/worker_pool.h"

namespace netsmith::training {

inline constexpr int64_t kValidationBatch = 256;

class JobSync {
 public:
  // Joins this process's part of the job, and makes `parallel.devices` the job's list (Note
  // [Devices of an mpirun job]); `parallel` as it was before is kept (asWritten()).
  void join(ParallelConfig& parallel);
  // The project's parallel settings before join() named every device of the job: what the run's
  // project snapshot keeps.
  const ParallelConfig& asWritten() const { return m_asWritten; }

  bool joined() const { return m_job != nullptr; }
  bool leader() const { return m_job->leader(); }
  int processes() const { return m_job->processes(); }
  JobChannel& channel() { return *m_job; }

  // The plan's active devices: this process's become its workers (an Error when it has none).
  void assignWorkers(const std::vector<DevicePlan>& planDevices);
  const std::vector<DevicePlan>& workers() const { return m_workers; }        // this process's
  const std::vector<DevicePlan>& jobWorkers() const { return m_jobWorkers; }  // the job's, by global rank
  int firstJobWorker() const { return m_firstJobWorker; }                     // the global rank of workers()[0]

  // The workers' communicators, of the devices' kind. Across processes the leader worker waits
  // for the other processes up to the timeout while this process's other workers wait for it:
  // they wait longer, so that the lost process is the one named.
  void connect(const DeviceKind& kind, const std::vector<std::string>& groupIds, double timeoutS);
  CommunicatorGroup& group() { return *m_group; }
  // Worker w's communicator among every worker of the job.
  Communicator& communicator(int w);
  // A hung worker may still use its communicator: leave the communicators be (the process
  // exits soon).
  void abandonCommunicators();
  // CommunicatorGroup::endAfterFailure, when connected: before the devices are destroyed.
  void endAfterFailure() {
    if (m_group) m_group->endAfterFailure();
  }

  // The leader's decision for the next iteration ("step", "pause" or "stop"), which every process
  // follows. A failure the leader found (pendingFailure) is thrown on every process.
  std::string nextStep(RunControl& control, const std::string& pendingFailure);
  // Every process learns whether the leader found a failure (given on the leader); all throw it.
  void agreeOrThrow(const std::string& failure);
  // Returns true when the run is to stop.
  bool waitWhilePaused(RunControl& control);
  // Throws on every process when the workers' parameters differ (`when` says where in the run).
  void checkReplicas(const std::string& when, const std::vector<std::unique_ptr<Replica>>& replicas, WorkerPool& pool);
  // The job's validation counts; nullopt when stopped during validation.
  std::optional<BatchCounts> validate(const Dataset& validation, const std::vector<std::unique_ptr<Replica>>& replicas,
                                      WorkerPool& pool, RunControl& control);

 private:
  void nameJobDevices(ParallelConfig& parallel);

  // Declared in this order so that the communicators end before the job's processes part.
  std::unique_ptr<JobChannel> m_job;
  ParallelConfig m_asWritten;
  std::vector<DevicePlan> m_workers;
  std::vector<DevicePlan> m_jobWorkers;
  int m_firstJobWorker = 0;
  std::unique_ptr<CommunicatorGroup> m_group;
  std::vector<std::unique_ptr<HierarchicalCommunicator>> m_jobComms;  // under mpirun
};

}  // namespace netsmith::training
