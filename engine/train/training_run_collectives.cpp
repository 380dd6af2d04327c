// TrainingRun's collectives (training_run.h): what every process of the job does together —
// agreeing on the leader's decisions, pausing, checking that the replicas agree, validating.
#include <atomic>
#include <thread>

#include "engine/core/error.h"
#include "engine/train/training_run.h"

namespace fs = std::filesystem;

namespace netsmith::training {

// Every process learns whether the leader found a failure (given on the leader); all throw it.
void TrainingRun::agreeOrThrow(const std::string& failure) {
  const Json decision = m_job->agree(failure.empty() ? Json{{"do", "go"}} : Json{{"do", "fail"}, {"message", failure}});
  if (decision.value("do", "") == "fail") throw Error(decision.value("message", std::string("failed")));
}

// Returns true when the run is to stop. Under mpirun the leader repeats "pause" every second
// while paused, so that the others, waiting for its next word, do not take it for lost.
bool TrainingRun::waitWhilePaused(RunControl& control) {
  if (m_job->processes() == 1) return control.waitWhilePaused();
  if (!m_job->leader()) {
    Json decision;
    do {
      decision = m_job->agree({});
    } while (decision.value("do", "") == "pause");
    return decision.value("do", "") == "stop";
  }
  auto lastWord = Clock::now();
  while (control.paused() && !control.stopRequested()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (secondsSince(lastWord) >= 1.0) {
      m_job->agree({{"do", "pause"}});
      lastWord = Clock::now();
    }
  }
  const bool stop = control.stopRequested();
  m_job->agree({{"do", stop ? "stop" : "resume"}});
  return stop;
}

void TrainingRun::checkReplicas(const std::string& when) {
  if (m_jobWorkers.size() < 2) return;
  std::vector<std::string> prints(m_replicas.size());
  m_pool->runOnAll([&](int w) { prints[static_cast<size_t>(w)] = m_replicas[static_cast<size_t>(w)]->fingerprint(); });
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
std::optional<BatchCounts> TrainingRun::validate(RunControl& control) {
  const Dataset& v = *m_validation;
  const int64_t blocks = (v.size + kValidationBatch - 1) / kValidationBatch;
  const auto n = static_cast<int64_t>(m_jobWorkers.size());
  std::vector<std::vector<BatchCounts>> perWorker(m_replicas.size());
  std::atomic<bool> interrupted{false};
  m_pool->runOnAll([&](int w) {
    const int64_t g = m_firstJobWorker + w;
    const int64_t first = blocks * g / n;
    const int64_t last = blocks * (g + 1) / n;
    auto& counts = perWorker[static_cast<size_t>(w)];
    counts = m_replicas[static_cast<size_t>(w)]->evaluateBlocks(
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
