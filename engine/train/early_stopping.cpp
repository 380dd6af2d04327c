#include "engine/train/early_stopping.h"

#include "engine/core/error.h"
#include "engine/model/parameters_file.h"
#include "engine/train/replica.h"
#include "engine/train/worker_pool.h"

namespace netsmith {

EarlyStopping::EarlyStopping(int64_t patience, double minDelta) : m_patience(patience), m_minDelta(minDelta) {
  NS_CHECK(patience >= 0, "config.early_stopping: expected an integer >= 0, got {}", patience);
  NS_CHECK(minDelta >= 0, "config.early_stopping_min_delta: expected a number >= 0, got {}", minDelta);
}

bool EarlyStopping::observe(int64_t epoch, double error) {
  if (!enabled() || stopped()) return stopped();
  if (m_bestEpoch == 0 || error < m_bestError - m_minDelta) {
    m_bestEpoch = epoch;
    m_bestError = error;
    m_waited = 0;
    return false;
  }
  ++m_waited;
  if (m_waited >= m_patience) m_stoppedAt = epoch;
  return stopped();
}

std::string EarlyStopping::message() const {
  if (!stopped()) return {};
  return format("stopped early at epoch {}: validation error has not improved{} for {} validation{} since epoch {} (best {})",
                m_stoppedAt, m_minDelta > 0 ? format(" by more than {}", m_minDelta) : std::string(), m_waited,
                m_waited == 1 ? "" : "s", m_bestEpoch, m_bestError);
}

Json EarlyStopping::summary() const {
  return {{"epoch", m_stoppedAt},  {"best_epoch", m_bestEpoch}, {"best_validation_error", m_bestError},
          {"patience", m_patience}, {"min_delta", m_minDelta},   {"message", message()}};
}

EarlyStopping earlyStoppingOf(const TrainingConfig& config, const Json& runSettings) {
  const auto it = runSettings.find("early_stopping");
  const int64_t patience =
      it != runSettings.end() && it->is_number_integer() ? it->get<int64_t>() : config.earlyStopping;
  return EarlyStopping(patience, config.earlyStoppingMinDelta);
}

Json keepBestParameters(const EarlyStopping& rule, const std::filesystem::path& runDir, const std::string& runId,
                        std::vector<std::unique_ptr<Replica>>& replicas, WorkerPool& pool) {
  const RunParameters best = readRunParameters(runDir.string(), "best");
  NS_CHECK(best.data.meta.value("run_id", std::string()) == runId,
           "{}: holds the best parameters of another run (run_id {}), not of this one ({}); early stopping cannot keep "
           "the best epoch's parameters",
           best.path, best.data.meta.value("run_id", std::string("none")), runId);
  // Every worker copies into its own replica, on its own thread (as a checkpoint's restore does).
  pool.runOnAll([&](int w) { applyParameters(best, replicas[static_cast<size_t>(w)]->network()); });
  Json summary = rule.summary();
  summary["parameters_epoch"] = best.data.meta.value("epoch", Json());
  return summary;
}

}  // namespace netsmith
