// JobSync (job_sync.h): the job's processes, who trains where, the workers' communicators and
// what every process of the job does together.
#include "engine/train/job_sync.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "engine/core/error.h"
#include "engine/project/device_name.h"

namespace netsmith::training {

void JobSync::join(ParallelConfig& parallel) {
  m_job = JobChannel::forThisProcess(parallel.timeoutS);
  m_asWritten = parallel;  // the snapshot keeps the user's own lists
  nameJobDevices(parallel);
}

// Note [Devices of an mpirun job]
// Under mpirun the job's devices are named "rank<R>/<device>". parallel.devices may list them so
// (then each process trains the entries of its rank, and worker_load gives one load per device
// of the job), or list plain devices, which every process then trains (and worker_load is per
// process, repeated). The list is in rank order, so each process's devices are consecutive
// global ranks (Note [Reduction across processes]); the leader's list is the one all use.
// Plain GPUs are the local rank's (Note [GPUs across processes]): the process with local rank L
// (the L-th of the job's processes on its host) trains cuda:(N + L × the list's length) for each
// listed cuda:N, so that `mpirun -np 2` on a machine with two GPUs puts one process on each —
// unless CUDA_VISIBLE_DEVICES is set (Slurm's --gpus-per-task, a wrapper script), which already
// gives each process its own GPUs as its cuda:0, cuda:1, ...
void JobSync::nameJobDevices(ParallelConfig& parallel) {
  auto& devices = parallel.devices;
  const bool ranked = std::any_of(devices.begin(), devices.end(), [](const std::string& d) { return d.find('/') != std::string::npos; });
  if (m_job->processes() == 1) {
    NS_CHECK(!ranked, "parallel.devices: \"{}\" names a process rank, which needs a run under mpirun", devices.front());
    return;
  }
  const int processes = m_job->processes();
  std::vector<std::string> job;
  if (ranked) {
    int previous = 0;
    for (size_t i = 0; i < devices.size(); ++i) {
      const std::string& d = devices[i];
      const auto slash = d.find('/');
      NS_CHECK(slash != std::string::npos && d.rfind("rank", 0) == 0,
               "parallel.devices[{}]: \"{}\": name every device of an mpirun job with its rank (rank0/cpu:0) or none", i, d);
      const int rank = std::stoi(d.substr(4, slash - 4));
      NS_CHECK(rank >= previous && rank < processes,
               "parallel.devices[{}]: \"{}\": ranks must be listed in order, from 0 to {} (this job has {} processes)", i,
               d, processes - 1, processes);
      previous = rank;
      job.push_back(d);
    }
  } else {
    std::vector<double> loads;
    const bool gpusPerProcess = std::getenv("CUDA_VISIBLE_DEVICES") != nullptr;
    for (int r = 0; r < processes; ++r) {
      int localRank = 0;
      for (int q = 0; q < r; ++q) localRank += m_job->host(q) == m_job->host(r) ? 1 : 0;
      for (size_t i = 0; i < devices.size(); ++i) {
        std::string device = devices[i];
        if (device.rfind("cuda:", 0) == 0 && isDecimalIndex(device.substr(5)) && !gpusPerProcess && localRank > 0)
          device = format("cuda:{}", std::stoi(device.substr(5)) + localRank * static_cast<int>(devices.size()));
        job.push_back(format("rank{}/{}", r, device));
        if (!parallel.workerLoad.empty()) loads.push_back(parallel.workerLoad[i]);
      }
    }
    parallel.workerLoad = loads;
  }
  for (int r = 0; r < processes; ++r) {
    const std::string prefix = format("rank{}/", r);
    NS_CHECK(std::any_of(job.begin(), job.end(), [&](const std::string& d) { return d.rfind(prefix, 0) == 0; }),
             "parallel.devices lists no device for rank {} ({}) of the {} processes mpirun started", r, m_job->host(r), processes);
  }
  devices = job;
}

void JobSync::assignWorkers(const std::vector<DevicePlan>& planDevices) {
  const std::string mine = m_job->processes() > 1 ? format("rank{}/", m_job->processRank()) : "";
  for (const DevicePlan& d : planDevices) {
    if (d.batch == 0) continue;
    if (d.id.rfind(mine, 0) == 0) {
      if (m_workers.empty()) m_firstJobWorker = static_cast<int>(m_jobWorkers.size());
      m_workers.push_back(d);
    }
    m_jobWorkers.push_back(d);
  }
  NS_CHECK(!m_workers.empty(), "rank {} ({}) has no device with a load > 0: give it one, or start fewer processes",
           m_job->processRank(), m_job->host(m_job->processRank()));
}

void JobSync::connect(const DeviceKind& kind, const std::vector<std::string>& groupIds, double timeoutS) {
  std::vector<std::string> jobIds;
  for (const auto& w : m_jobWorkers) jobIds.push_back(w.id);
  if (m_job->processes() > 1 && kind.makeJobGroup) {
    // Note [GPUs across processes]: one group over the job's devices. A process that cannot make
    // the id (no GPU on the leader) says so on every process instead of leaving them waiting.
    std::string jobId;
    std::string failure;
    if (m_job->leader()) {
      try {
        jobId = kind.makeJobId();
      } catch (const Error& e) {
        failure = e.what();
      }
    }
    const Json decision = m_job->agree({{"job_id", jobId}, {"failure", failure}});
    NS_CHECK(decision.value("failure", "").empty(), "rank 0 ({}) could not start the job's group: {}", m_job->host(0),
             decision.value("failure", ""));
    m_group = kind.makeJobGroup({decision.value("job_id", ""), m_firstJobWorker, jobIds, groupIds}, timeoutS);
    return;
  }
  m_group = kind.makeGroup(groupIds, m_job->processes() > 1 ? 2 * timeoutS + 5 : timeoutS);
  if (MpiJob* mpi = m_job->mpi())
    for (int w = 0; w < static_cast<int>(m_workers.size()); ++w)
      m_jobComms.push_back(std::make_unique<HierarchicalCommunicator>(m_group->communicator(w), *mpi, jobIds,
                                                                      m_firstJobWorker, timeoutS));
}

Communicator& JobSync::communicator(int w) {
  return m_jobComms.empty() ? m_group->communicator(w) : static_cast<Communicator&>(*m_jobComms[static_cast<size_t>(w)]);
}

void JobSync::abandonCommunicators() {
  (void)m_group.release();
  for (auto& c : m_jobComms) (void)c.release();
}

std::string JobSync::nextStep(RunControl& control, const std::string& pendingFailure) {
  // The leader decides, every process follows: they stay in step (Note [Bucket order]).
  std::string next = "step";
  if (m_job->leader())
    next = !pendingFailure.empty() ? "fail" : control.paused() ? "pause" : control.stopRequested() ? "stop" : "step";
  if (m_job->processes() > 1) {
    const Json decision = m_job->agree({{"do", next}, {"message", pendingFailure}});
    next = decision.value("do", "");
    if (next == "fail") throw Error(decision.value("message", std::string()));
  } else if (next == "fail") {
    throw Error(pendingFailure);  // the leader's own decision (a single process has no one to tell)
  }
  return next;
}

void JobSync::agreeOrThrow(const std::string& failure) {
  const Json decision = m_job->agree(failure.empty() ? Json{{"do", "go"}} : Json{{"do", "fail"}, {"message", failure}});
  if (decision.value("do", "") == "fail") throw Error(decision.value("message", std::string("failed")));
}

// Under mpirun the leader repeats "pause" every second while paused, so that the others,
// waiting for its next word, do not take it for lost.
bool JobSync::waitWhilePaused(RunControl& control) {
  if (m_job->processes() == 1) return control.waitWhilePaused();
  if (!m_job->leader()) {
    Json decision;
    do {
      decision = m_job->agree({});
    } while (decision.value("do", "") == "pause");
    return decision.value("do", "") == "stop";
  }
  using Clock = std::chrono::steady_clock;
  auto lastWord = Clock::now();
  while (control.paused() && !control.stopRequested()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (std::chrono::duration<double>(Clock::now() - lastWord).count() >= 1.0) {
      m_job->agree({{"do", "pause"}});
      lastWord = Clock::now();
    }
  }
  const bool stop = control.stopRequested();
  m_job->agree({{"do", stop ? "stop" : "resume"}});
  return stop;
}

void JobSync::checkReplicas(const std::string& when, const std::vector<std::unique_ptr<Replica>>& replicas,
                            WorkerPool& pool) {
  if (m_jobWorkers.size() < 2) return;
  std::vector<std::string> prints(replicas.size());
  pool.runOnAll([&](int w) { prints[static_cast<size_t>(w)] = replicas[static_cast<size_t>(w)]->fingerprint(); });
  std::vector<std::string> all;
  for (const Json& report : m_job->gather(Json(prints)))
    for (const Json& p : report) all.push_back(p.get<std::string>());
  std::string failure;
  for (size_t w = 1; w < all.size() && failure.empty(); ++w) {
    if (all[w] != all[0])
      failure = format("the replicas differ {}: {}'s parameters (fingerprint {}) are not {}'s ({}); every device must "
                       "apply the same update, so this is a bug in a kernel or in the all-reduce",
                       when, m_jobWorkers[w].id, all[w].substr(0, 12), m_jobWorkers[0].id, all[0].substr(0, 12));
  }
  agreeOrThrow(failure);
}

// Every worker evaluates a contiguous share of the blocks; the blocks' counts are added in block
// order, so the result does not depend on the number of devices. A stop during validation ends
// it within a block: nullopt, and every process learns it from the leader.
std::optional<BatchCounts> JobSync::validate(const Dataset& v, const std::vector<std::unique_ptr<Replica>>& replicas,
                                             WorkerPool& pool, RunControl& control) {
  const int64_t blocks = (v.size + kValidationBatch - 1) / kValidationBatch;
  const auto n = static_cast<int64_t>(m_jobWorkers.size());
  std::vector<std::vector<BatchCounts>> perWorker(replicas.size());
  std::atomic<bool> interrupted{false};
  pool.runOnAll([&](int w) {
    const int64_t g = m_firstJobWorker + w;
    const int64_t first = blocks * g / n;
    const int64_t last = blocks * (g + 1) / n;
    auto& counts = perWorker[static_cast<size_t>(w)];
    counts = replicas[static_cast<size_t>(w)]->evaluateBlocks(
        v, std::min(first * kValidationBatch, v.size), std::min(last * kValidationBatch, v.size), kValidationBatch,
        [&control] { return control.stopRequested(); });
    if (static_cast<int64_t>(counts.size()) < last - first) interrupted = true;
  });
  Json report = {{"stopped", interrupted.load()}, {"counts", Json::array()}};
  for (const auto& counts : perWorker)
    for (const auto& c : counts) report["counts"].push_back({c.lossSum, c.errors, c.counted, c.samples});
  BatchCounts total;
  bool stopped = control.stopRequested();
  for (const Json& fromProcess : m_job->gather(report)) {
    stopped = stopped || fromProcess.value("stopped", false);
    for (const Json& c : fromProcess.at("counts"))
      total.add({c[0].get<double>(), c[1].get<int64_t>(), c[2].get<int64_t>(), c[3].get<int64_t>()});
  }
  if (m_job->agree(Json(stopped)).get<bool>()) return std::nullopt;
  return total;
}

}  // namespace netsmith::training
