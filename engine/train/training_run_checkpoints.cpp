// TrainingRun's checkpoints (training_run.h): what a checkpoint holds (the workers' replica: its
// parameters and optimizer state; the position, TrainingPosition; the run's identity, RunFiles'
// record) and a resume from one, which every process of the job makes alike.
#include <filesystem>
#include <map>

#include "engine/core/error.h"
#include "engine/model/checkpoint.h"
#include "engine/train/training_run.h"

namespace fs = std::filesystem;

namespace netsmith::training {
namespace {

// parametersSha256 of the network's blobs with the averaged ones replaced by their average
// ("ema/<blob>" host copies): the hash of the parameters a completed run writes.
std::string averagedSha256(Network& network, std::vector<std::pair<std::string, Tensor>>& averages) {
  std::map<std::string, Tensor*> byName;
  for (auto& [name, tensor] : averages) byName[name] = &tensor;
  std::vector<ParameterRef> blobs = network.parameters();
  for (ParameterRef& p : blobs)
    if (const auto it = byName.find(WeightAverage::checkpointName(p.name)); it != byName.end()) p.value = it->second;
  return parametersSha256(std::move(blobs));
}

}  // namespace

void TrainingRun::checkReplicas(const std::string& when) { m_sync.checkReplicas(when, m_replicas, *m_pool); }

void TrainingRun::restoreFromCheckpoint() {
  // The leader chose (claimForResume: only this run's checkpoints); under mpirun every process
  // reads the same file (the run folder is on a file system all nodes see).
  std::optional<std::string> newest = m_sync.leader() ? m_files.resumeFrom() : std::nullopt;
  const Json chosen = m_sync.channel().agree(newest ? Json(*newest) : Json(nullptr));
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
  std::vector<char> averageRestored(m_replicas.size(), 0);
  m_pool->runOnAll([&](int w) {
    Replica& r = *m_replicas[static_cast<size_t>(w)];
    std::map<std::string, Tensor*> byName;
    for (auto& p : r.network().parameters()) byName["param/" + p.name] = p.value;
    Optimizer::StateList optimizerState;
    std::map<std::string, const Tensor*> averages;
    for (const auto& [name, tensor] : data.tensors) {
      if (name.rfind("param/", 0) == 0) byName.at(name)->copyFrom(tensor);
      else if (name.rfind("optim/", 0) == 0) optimizerState.emplace_back(name.substr(6), &tensor);
      else if (name.rfind("ema/", 0) == 0) averages[name] = &tensor;
    }
    r.optimizer().restoreState(optimizerState, steps);
    // Note [Weight averaging]: without one, the average starts from these weights at the next step.
    if (WeightAverage* average = r.average()) averageRestored[static_cast<size_t>(w)] = average->restore(averages, *newest);
  });
  if (m_project.optimizer.emaDecay > 0 && !averageRestored.empty() && !averageRestored[0] && m_sync.leader())
    m_bus.publish(protocol::WarningEvent{
        format("{} holds no weight average (written before optimizer.ema_decay was on): the average starts afresh "
               "from its weights",
               *newest)});
  const std::optional<TrainingPosition::BatchChange> batchChange = m_position.restore(m, m_plan.logicalBatch);
  if (batchChange && m_sync.leader())
    m_bus.publish(protocol::WarningEvent{
        format("resuming on {} device(s): the logical batch is now {} samples (it was {}), with {} iterations per "
               "epoch and a learning rate of {}; the run continues at iteration {} of epoch {} (was iteration {} of "
               "the old batch)",
               m_sync.jobWorkers().size(), m_plan.logicalBatch, batchChange->oldBatch, m_position.iterationsPerEpoch(),
               m_plan.effectiveLr, m_position.iteration(), m_position.epoch() + 1, batchChange->oldIteration)});
  // A run that had ended: its parameters.nsparams stays as it is if it holds these weights.
  const bool completed = m_sync.leader() && !m_position.epochsLeft() && m_files.holdsFinalParameters(m);
  m_position.setAlreadyCompleted(m_sync.channel().agree(Json(completed)).get<bool>());
  m_position.restoreCurve(m, *newest + ": curve");
  // The leader alone writes the run folder and the events: two ranks renaming the same
  // learning_curve.csv.tmp made one of them fail the resume.
  if (!m_sync.leader()) return;
  m_files.writeLearningCurve(m_position.curve());
  protocol::ResumedFromCheckpointEvent resumed{*newest, m_position.epoch() + 1, m_position.iteration(), std::nullopt};
  if (!m_files.deviceChange().is_null())  // Note [Resume on other devices]
    resumed.deviceChange = protocol::DeviceChange::fromJson(m_files.deviceChange(), {"device change", ""});
  m_bus.publish(resumed);
}

// A checkpoint of the position now: every process decides alike (the same positions), before the
// collective of checkReplicas; the leader writes it.
void TrainingRun::saveCheckpoint() {
  if (!m_position.markCheckpointed()) return;
  const int64_t epoch = m_position.epoch();
  const int64_t iteration = m_position.iteration();
  checkReplicas(format("at the checkpoint of epoch {}, iteration {}", epoch + (iteration > 0 ? 1 : 0), iteration));
  if (!m_sync.leader()) return;
  Replica& replica = *m_replicas[0];
  const RunRecord& record = m_files.record();
  CheckpointData data;
  data.meta = m_position.checkpointMeta();
  // Note [Weight averaging]: the average beside the weights; what a completed run writes as its
  // parameters (the average) has its own hash, which a resume compares with parameters.nsparams.
  std::vector<std::pair<std::string, Tensor>> averages;
  if (WeightAverage* average = replica.average()) averages = average->download();
  const std::string sha = replica.fingerprint();
  data.meta.update({{"format", "netsmith-checkpoint"},
                    {"optimizer_steps", replica.optimizer().steps()},
                    {"seed", m_project.config.seed},
                    {"logical_batch", m_plan.logicalBatch},
                    {"parameters_sha256", sha},
                    {"result_sha256", averages.empty() ? sha : averagedSha256(replica.network(), averages)},
                    // Note [One run per folder]: whose checkpoint this is, and what it was trained with.
                    {"run_id", record.runId()},
                    {"project_sha256", record.projectSha256()},
                    {"project", record.projectJson()}});
  for (auto& p : replica.network().parameters()) data.tensors.emplace_back("param/" + p.name, p.value->clone());
  for (auto& [name, tensor] : replica.optimizer().stateTensors()) data.tensors.emplace_back("optim/" + name, tensor->clone());
  for (auto& named : averages) data.tensors.push_back(std::move(named));
  m_files.writeCheckpoint(data, epoch, iteration, m_position.globalIteration(), m_train.classNames);
}

}  // namespace netsmith::training
