// TrainingRun::reportDivergence (Note [Divergence], divergence_guard.h).
#include <exception>

#include "engine/core/error.h"
#include "engine/train/divergence_report.h"
#include "engine/train/training_run.h"

namespace netsmith::training {

std::string TrainingRun::reportDivergence(const std::string& reason, std::span<const int64_t> logical, int64_t epoch,
                                          int64_t iteration, double lr, const WorkerRunner& onWorkers) {
  DivergenceFacts facts;
  facts.reason = reason;
  facts.epoch = epoch + 1;
  facts.iteration = iteration + 1;
  facts.globalIteration = m_position.globalIteration();
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

}  // namespace netsmith::training
