// RunFiles: the run folder of a training run (one part of TrainingRun, training_run.h): which
// folder, its run.json and lock (RunRecord), the disk it needs, events.jsonl and the TensorBoard
// event file (tensorboard_sink.h) on the events bus, and every file the run writes there: checkpoints (named, written, pruned), learning_curve.csv,
// classes.txt, best.nsparams, parameters.nsparams and run.json's result. What goes into a
// checkpoint is the caller's (TrainingPosition and the replica); where and how it is kept is
// this part's. Under mpirun only the leader writes (the callers see to it); every process knows
// the folder. The rules that keep a folder to one run are run_folder.h's (Note [One run per
// folder]).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/project/project.h"
#include "engine/model/checkpoint.h"
#include "engine/train/events.h"
#include "engine/train/parallel_plan.h"
#include "engine/train/replica.h"
#include "engine/train/run_record.h"
#include "engine/train/tensorboard_sink.h"
#include "engine/train/training_position.h"

namespace netsmith::training {

inline constexpr int kCheckpointsKept = 3;

// Publishes to every sink that still works: after a failure, a full disk (events.jsonl) must not
// hide the error from the sinks that can show it (EventBus gives every sink the event before
// rethrowing).
void publishBestEffort(EventBus& bus, const Json& event);

class RunFiles {
 public:
  explicit RunFiles(EventBus& bus) : m_bus(bus), m_record(bus) {}
  ~RunFiles() { closeEvents(); }
  RunFiles(const RunFiles&) = delete;
  RunFiles& operator=(const RunFiles&) = delete;

  // A resume (any process): the run folder `folder`, its run.json and project snapshot read.
  void openForResume(const std::string& folder);
  // A new run: its folder (empty: <project folder>/<name>.runs/<YYYYMMDD-HHMMSS>), refused at once
  // when it holds another run, and the settings a resume keeps (run.json's, written by open()).
  void chooseNew(const std::string& folder, const std::string& projectPath, Json settings);
  bool resumed() const { return m_resumed; }
  const std::filesystem::path& dir() const { return m_dir; }
  std::string projectSnapshotPath() const { return (m_dir / "project.nsproj").string(); }
  // run.json's settings: the command-line overrides a resume keeps, and the run's "training".
  const Json& settings() { return m_record.settings(); }
  const RunRecord& record() const { return m_record; }

  // A resume, on the leader, before the data loads: takes the folder and chooses the checkpoint
  // to continue from (RunRecord::claimForResume).
  void claimForResume(uint64_t seed, bool acceptEdits);
  const std::optional<std::string>& resumeFrom() const { return m_resumeFrom; }

  // run.json's "training" for this session (Note [Resume on other devices],
  // training_run_setup.cpp), and for a resume what it changed against the previous session
  // (null: nothing).
  void setTraining(const Json& training, const Json& deviceChange);
  const Json& deviceChange() const { return m_deviceChange; }

  // Note [One run per folder]: the plan says what the folder needs on disk. A real run refuses to
  // start without it (the leader throws), rather than fail when the disk fills; a plan warns.
  void planDisk(TrainingPlan& plan, int64_t parameterCount, int optimizerBuffers, bool planOnly, bool leader) const;

  // The leader, before training: creates the folder of a new run (with the project snapshot and
  // run.json) or records a resume's session in run.json (`devices`: --devices), and appends the
  // run's events to events.jsonl and a new TensorBoard event file from here on (with run.json's
  // `hparams`; a TensorBoard file that cannot be created is a warning).
  // `maxEpoch`: the run's, so that a resume of a completed run leaves its record as it was.
  void open(const Project& snapshot, const std::vector<std::string>& devices, int64_t maxEpoch);
  // A resume from the checkpoint at the end of a completed run, with no epochs added.
  bool resumeTrainsNothing(int64_t maxEpoch) const;
  // Stops writing events.jsonl and the TensorBoard file (they leave the bus).
  void closeEvents();

  // From here on a failure is recorded in run.json (recordFailure; best effort).
  void markStarted() { m_record.markStarted(); }
  void recordFailure(const std::string& message) { m_record.recordFailure(message); }
  // run.json's "initial_parameters": what config.initial_parameters gave (Note [Initial parameters]).
  void recordInitialParameters(const Json& report) { m_record.recordInitialParameters(report); }

  // Leader: writes checkpoints/eEPOCH_iITERATION.ckpt (and classes.txt), publishes `checkpoint`
  // and prunes the run's older checkpoints.
  void writeCheckpoint(const CheckpointData& data, int64_t epoch, int64_t iteration, int64_t globalIteration,
                       const std::vector<std::string>& classNames);
  // Leader, a resume of a run at its last epoch: true when parameters.nsparams holds the
  // checkpoint's weights (`checkpointMeta`) of this run.
  bool holdsFinalParameters(const Json& checkpointMeta) const;
  void writeLearningCurve(const std::vector<CurveRow>& curve) const;
  // best.nsparams: the parameters of the epoch with the best validation error (config.save_best).
  void writeBestParameters(Network& network, const std::string& projectName, int64_t epoch, double validationError) const;
  // parameters.nsparams (and classes.txt): the parameters the run ends with.
  void writeFinalParameters(Replica& replica, const std::string& projectName, const std::vector<std::string>& classNames);
  // run.json's "result"; a failure to write it is a warning, not the run's failure.
  void writeResult(const Json& result);

 private:
  EventBus& m_bus;
  std::filesystem::path m_dir;
  bool m_resumed = false;
  // run.json and the project snapshot; on the leader it holds the folder's lock (Note [One run
  // per folder]). Its settings are the overrides a resume keeps.
  RunRecord m_record;
  std::optional<std::string> m_resumeFrom;  // the leader's choice of checkpoint
  Json m_training;
  Json m_deviceChange;
  void openTensorBoard();

  std::unique_ptr<JsonLinesSink> m_eventsFile;  // the run's events.jsonl
  std::unique_ptr<TensorBoardSink> m_tensorboard;  // this session's TensorBoard event file
};

}  // namespace netsmith::training
