// TrainingRun's files (training_run.h): checkpoints (written and restored), learning_curve.csv,
// the final parameters, the class names (classes.txt) and run.json's result.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "engine/core/error.h"
#include "engine/core/text_files.h"
#include "engine/data/class_names.h"
#include "engine/eval/run_model.h"
#include "engine/train/checkpoint.h"
#include "engine/train/run_folder.h"
#include "engine/train/training_run.h"

namespace fs = std::filesystem;

namespace netsmith::training {

namespace {

// Note [Run class names]: RUN/classes.txt holds the training dataset's class names, written with
// the first parameters the run saves (a checkpoint or the final parameters) and again only when
// the names differ (a resume on a dataset whose classes.txt was edited). Unnamed classes write
// nothing, and leave a classes.txt of an earlier session of the run as it is.
void rememberClassNames(const fs::path& runDir, const std::vector<std::string>& names) {
  if (names.empty()) return;
  const fs::path path = runClassNamesPath(runDir.string());
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) {
    try {
      if (readClassNames(path) == names) return;
    } catch (const Error&) {
      // Damaged: replaced below with the dataset's names.
    }
  }
  writeClassNames(path, names);
}

}  // namespace

void TrainingRun::restoreFromCheckpoint() {
  // The leader chose (claimForResume: only this run's checkpoints); under mpirun every process
  // reads the same file (the run folder is on a file system all nodes see).
  std::optional<std::string> newest = m_job->leader() ? m_resumeFrom : std::nullopt;
  const Json chosen = m_job->agree(newest ? Json(*newest) : Json(nullptr));
  if (chosen.is_null()) return;  // stopped before the first checkpoint: start over in the same folder
  newest = chosen.get<std::string>();
  const CheckpointData data = readCheckpoint(*newest);
  // Check against one replica on this thread, then let every worker copy into its own.
  {
    std::map<std::string, Tensor*> byName;
    for (auto& p : m_replicas[0]->network().parameters()) byName["param/" + p.name] = p.value;
    for (const auto& [name, tensor] : data.tensors) {
      if (name.rfind("param/", 0) != 0) continue;
      const auto it = byName.find(name);
      NS_CHECK(it != byName.end(), "{}: holds {} which the project's network does not have", *newest, name);
      NS_CHECK(it->second->shape() == tensor.shape(), "{}: {} has shape {}, the network expects {}", *newest, name,
               shapeToString(tensor.shape()), shapeToString(it->second->shape()));
      byName.erase(it);
    }
    NS_CHECK(byName.empty(), "{}: lacks {}", *newest, byName.begin()->first);
  }
  const Json& m = data.meta;
  const int64_t steps = m.at("optimizer_steps").get<int64_t>();
  m_pool->runOnAll([&](int w) {
    Replica& r = *m_replicas[static_cast<size_t>(w)];
    std::map<std::string, Tensor*> byName;
    for (auto& p : r.network().parameters()) byName["param/" + p.name] = p.value;
    Optimizer::StateList optimizerState;
    for (const auto& [name, tensor] : data.tensors) {
      if (name.rfind("param/", 0) == 0) byName.at(name)->copyFrom(tensor);
      else if (name.rfind("optim/", 0) == 0) optimizerState.emplace_back(name.substr(6), &tensor);
    }
    r.optimizer().restoreState(optimizerState, steps);
  });
  m_epoch = m.at("epoch").get<int64_t>();
  m_iteration = m.at("iteration").get<int64_t>();
  m_globalIteration = m.at("global_iteration").get<int64_t>();
  m_epochLossSum = m.at("epoch_loss_sum").get<double>();
  m_epochSamples = m.at("epoch_samples").get<int64_t>();
  m_epochSeconds = m.value("epoch_seconds", 0.0);
  if (!m.at("best_validation_error").is_null()) m_bestValidationError = m["best_validation_error"].get<double>();
  // A run folder of an older version (no run.json "training": Note [Resume on other devices])
  // resumed on another number of devices (or processes): the logical batch and everything
  // counted in iterations follow the new plan; the position keeps the samples already trained.
  const int64_t oldBatch = m.value("logical_batch", m_plan.logicalBatch);
  if (oldBatch != m_plan.logicalBatch) {
    const int64_t oldIteration = m_iteration;
    m_iteration = std::min(m_iteration * oldBatch / m_plan.logicalBatch, m_iterationsPerEpoch);
    m_globalIteration = m_epoch * m_iterationsPerEpoch + m_iteration;
    if (m_job->leader())
      m_bus.publish(protocol::WarningEvent{
          format("resuming on {} device(s): the logical batch is now {} samples (it was {}), with {} iterations per "
                 "epoch and a learning rate of {}; the run continues at iteration {} of epoch {} (was iteration {} of "
                 "the old batch)",
                 m_jobWorkers.size(), m_plan.logicalBatch, oldBatch, m_iterationsPerEpoch, m_plan.effectiveLr,
                 m_iteration, m_epoch + 1, oldIteration)});
  } else {
    m_checkpointedAt = {m_epoch, m_iteration, m_globalIteration};
  }
  // A run that had ended: its parameters.nsparams stays as it is if it holds these weights.
  bool completed = false;
  if (m_job->leader() && m_epoch >= m_maxEpoch) {
    try {
      const Json params = readCheckpointMeta((m_runDir / "parameters.nsparams").string());
      completed = params.value("parameters_sha256", std::string()) == m.value("parameters_sha256", std::string("?")) &&
                  params.value("run_id", std::string()) == m_record.runId();
    } catch (const Error&) {
      // None, or damaged: the resume writes it.
    }
  }
  m_alreadyCompleted = m_job->agree(Json(completed)).get<bool>();
  m_curve = protocol::learningCurveFromJson(m.at("curve"), *newest + ": curve");
  // The leader alone writes the run folder and the events: two ranks renaming the same
  // learning_curve.csv.tmp made one of them fail the resume.
  if (!m_job->leader()) return;
  writeLearningCurve();
  protocol::ResumedFromCheckpointEvent resumed{*newest, m_epoch + 1, m_iteration, std::nullopt};
  if (!m_deviceChange.is_null())  // Note [Resume on other devices]
    resumed.deviceChange = protocol::DeviceChange::fromJson(m_deviceChange, {"device change", ""});
  m_bus.publish(resumed);
}

void TrainingRun::saveCheckpoint(int64_t epoch, int64_t iteration) {
  // Every process decides alike (the same positions), before the collective below.
  const std::array<int64_t, 3> position{epoch, iteration, m_globalIteration};
  if (position == m_checkpointedAt) return;
  m_checkpointedAt = position;
  checkReplicas(format("at the checkpoint of epoch {}, iteration {}", epoch + (iteration > 0 ? 1 : 0), iteration));
  if (!m_job->leader()) return;
  rememberClassNames(m_runDir, m_train.classNames);
  Replica& replica = *m_replicas[0];
  CheckpointData data;
  data.meta = {{"format", "netsmith-checkpoint"},
               {"epoch", epoch},
               {"iteration", iteration},
               {"global_iteration", m_globalIteration},
               {"epoch_loss_sum", m_epochLossSum},
               {"epoch_samples", m_epochSamples},
               {"epoch_seconds", m_epochSeconds},
               {"best_validation_error", optionalJson(m_bestValidationError)},
               {"optimizer_steps", replica.optimizer().steps()},
               {"seed", m_project.config.seed},
               {"logical_batch", m_plan.logicalBatch},
               {"curve", protocol::learningCurveToJson(m_curve)},
               {"parameters_sha256", replica.fingerprint()},
               // Note [One run per folder]: whose checkpoint this is, and what it was trained with.
               {"run_id", m_record.runId()},
               {"project_sha256", m_record.projectSha256()},
               {"project", m_record.projectJson()}};
  for (auto& p : replica.network().parameters()) data.tensors.emplace_back("param/" + p.name, p.value->clone());
  for (auto& [name, tensor] : replica.optimizer().stateTensors()) data.tensors.emplace_back("optim/" + name, tensor->clone());
  char padded[64];
  std::snprintf(padded, sizeof padded, "e%04lld_i%06lld.ckpt", static_cast<long long>(epoch), static_cast<long long>(iteration));
  const fs::path path = m_runDir / "checkpoints" / padded;
  writeCheckpoint(path.string(), data);
  m_bus.publish(protocol::CheckpointEvent{epoch, iteration, m_globalIteration, fs::relative(path, m_runDir).string()});

  pruneCheckpoints(m_runDir / "checkpoints", m_record.runId(), path, kCheckpointsKept);
}

void TrainingRun::writeLearningCurve() {
  writeTextAtomically(m_runDir / "learning_curve.csv", protocol::learningCurveToCsv(m_curve));
}

void TrainingRun::writeFinalParameters() {
  rememberClassNames(m_runDir, m_train.classNames);
  Replica& replica = *m_replicas[0];
  CheckpointData data;
  data.meta = {{"format", "netsmith-parameters"},
               {"project", m_project.name},
               {"run_id", m_record.runId()},
               {"parameters_sha256", replica.fingerprint()}};
  for (auto& p : replica.network().parameters()) data.tensors.emplace_back(p.name, p.value->clone());
  writeCheckpoint((m_runDir / "parameters.nsparams").string(), data);
}

// The run's summary in run.json ("result"; RunFigures::runResult).
Json TrainingRun::runResult(const TrainResult& result) {
  const Json r = m_figures.runResult(result.status, result.parametersSha256, m_runDir, m_workers[0].batch);
  try {
    m_record.writeResult(r);
  } catch (const Error& e) {
    publishBestEffort(m_bus, protocol::WarningEvent{format("the run summary was not saved: {}", e.what())}.toJson());
  }
  return r;
}

}  // namespace netsmith::training
