// TrainingRun::reportDivergence (Note [Divergence], divergence_guard.h).
#include <exception>

#include "engine/core/error.h"
#include "engine/train/divergence_report.h"
#include "engine/train/training_run.h"

namespace netsmith::training {

std::string TrainingRun::reportDivergence(const std::string& reason, std::span<const int64_t> logical, int64_t epoch,
                                          int64_t iteration, int64_t globalIteration, double lr,
                                          const WorkerRunner& onWorkers) {
  DivergenceFacts facts;
  facts.reason = reason;
  facts.epoch = epoch + 1;
  facts.iteration = iteration + 1;
  facts.globalIteration = globalIteration;
  facts.learningRate = lr;
  facts.firstGlobalIteration = m_sessionFirstGlobalIteration;
  facts.project = &m_project;
  std::string diagnosisFailure;
  // Worker 0's own thread owns its device; the others do nothing (Note [Divergence diagnosis]).
  onWorkers([&](int w) {
    if (w != 0) return;
    facts.norms = m_replicas[0]->gradientNorms();
    try {
      facts.finding = m_replicas[0]->diagnoseDivergence(m_train, logical, epoch);
    } catch (const std::exception& e) {
      diagnosisFailure = e.what();  // the run fails on the divergence either way
    }
  });
  m_divergenceReport = explainDivergence(facts);
  if (!diagnosisFailure.empty()) m_divergenceReport->finding = "the diagnosis pass failed: " + diagnosisFailure;
  m_divergenceMessage = divergenceMessage(*m_divergenceReport);
  return m_divergenceMessage;
}

std::string TrainingRun::checkSkippedGradients(std::span<const int64_t> order) {
  const GradientNorms norms = m_replicas[0]->gradientNorms();  // the workers are idle
  if (norms.firstNonFiniteStep == 0) return {};
  // The step's place in this epoch (each epoch ends with this check, so it is one of this epoch's):
  // its 0-based global index, then its iteration among the epoch's.
  const int64_t global = m_sessionFirstGlobalIteration + norms.firstNonFiniteStep - 1;
  const int64_t iteration = m_position.iteration() - (m_position.globalIteration() - global);
  const int64_t batch = m_plan.logicalBatch;
  NS_CHECK(iteration >= 0 && (iteration + 1) * batch <= static_cast<int64_t>(order.size()),
           "a gradient became non-finite at global iteration {}, which is not in this epoch", global + 1);
  const std::span<const int64_t> logical(order.data() + iteration * batch, static_cast<size_t>(batch));
  return reportDivergence("the global gradient norm was not finite (its update was skipped on the device)", logical,
                          m_position.epoch(), iteration, global + 1, m_schedule->at(global),
                          [this](const WorkerPool::Task& task) { m_pool->runOnAll(task); });
}

}  // namespace netsmith::training
