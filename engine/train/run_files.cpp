// RunFiles (run_files.h): the run folder and every file a training run writes there.
#include "engine/protocol/json_fields.h"
#include "engine/train/run_files.h"

#include <cstdio>

#include "engine/core/atomic_file.h"
#include "engine/core/error.h"
#include "engine/core/text_files.h"
#include "engine/data/class_names.h"
#include "engine/model/parameters_file.h"
#include "engine/project/project_io.h"
#include "engine/protocol/events.h"
#include "engine/train/run_folder.h"

namespace fs = std::filesystem;

namespace netsmith::training {

void publishBestEffort(EventBus& bus, const Json& event) {
  try {
    bus.publish(event);
  } catch (const Error&) {
  }
}

namespace {

// A new run folder that does not exist yet: <folder>/<stem>.runs/<timestamp>[-N].
std::string newRunFolder(const std::string& projectPath) {
  const fs::path p(projectPath);
  const fs::path root = p.parent_path() / (p.stem().string() + ".runs");
  fs::path dir = root / timestampFolderName();
  for (int n = 2; fs::exists(dir); ++n) dir = root / (timestampFolderName() + "-" + std::to_string(n));
  return dir.string();
}

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

void RunFiles::openForResume(const std::string& folder) {
  m_dir = fs::absolute(folder);
  NS_CHECK(fs::is_directory(m_dir), "{}: no such run folder", m_dir.string());
  m_record.read(m_dir);
  m_resumed = true;
}

void RunFiles::chooseNew(const std::string& folder, const std::string& projectPath, Json settings) {
  m_dir = fs::absolute(folder.empty() ? newRunFolder(projectPath) : folder);
  // At once, before the data loads; again under the lock when the folder is created.
  checkNoOtherRun(m_dir, projectPath);
  m_record.settings() = std::move(settings);
}

void RunFiles::claimForResume(uint64_t seed, bool acceptEdits) { m_resumeFrom = m_record.claimForResume(seed, acceptEdits); }

void RunFiles::setTraining(const Json& training, const Json& deviceChange) {
  m_training = training;
  m_deviceChange = deviceChange;
  if (!m_resumed) m_record.settings()["training"] = training;  // written with run.json by open()
}

void RunFiles::planDisk(TrainingPlan& plan, int64_t parameterCount, int optimizerBuffers, bool planOnly,
                        bool leader) const {
  const DiskNeed need = diskNeed(parameterCount, optimizerBuffers, kCheckpointsKept);
  // A resume replaces the checkpoints and parameter files it finds.
  const uint64_t free = freeDiskBytes(m_dir) + (m_resumed ? runFilesBytes(m_dir) : 0);
  plan.checkpointBytes = need.checkpointBytes;
  plan.diskBytesNeeded = need.totalBytes;
  plan.diskBytesFree = free;
  plan.runFolder = m_dir.string();
  if (free >= need.totalBytes) return;
  const std::string message = format(
      "{}: the run folder needs about {} of disk ({} per checkpoint: {} kept and 1 being written, and the parameter "
      "files) but only {} is free there: free some space, or train into a folder on another disk (--run-dir)",
      m_dir.string(), humanBytes(need.totalBytes), humanBytes(need.checkpointBytes), kCheckpointsKept,
      humanBytes(free));
  if (planOnly) plan.warnings.push_back("the run would not start: " + message);
  else if (leader) throw Error(message);
}

bool RunFiles::resumeTrainsNothing(int64_t maxEpoch) const {
  if (!m_resumed || !m_resumeFrom) return false;
  const Json result = m_record.settings().value("result", Json::object());
  if (!result.is_object() || result.value("status", "") != "completed") return false;
  if (result.contains("early_stopped")) return true;  // it stays stopped (Note [Early stopping])
  const Json meta = peekCheckpointMeta(*m_resumeFrom);
  return meta.value("epoch", int64_t{0}) >= maxEpoch && meta.value("iteration", int64_t{0}) == 0;
}

void RunFiles::open(const Project& snapshot, const std::vector<std::string>& devices, int64_t maxEpoch) {
  if (m_resumed) {
    fs::create_directories(m_dir / "checkpoints");
    // A resume of a completed run trains nothing: run.json keeps the devices that trained it.
    if (resumeTrainsNothing(maxEpoch)) {
      m_eventsFile = JsonLinesSink::openFile((m_dir / "events.jsonl").string());
      m_bus.add(m_eventsFile.get());
      return;
    }
    Json change = m_deviceChange;
    if (!change.is_null() && m_resumeFrom) {
      const Json meta = peekCheckpointMeta(*m_resumeFrom);
      change["epoch"] = meta.value("epoch", int64_t{0}) + 1;
      change["iteration"] = meta.value("iteration", int64_t{0});
    }
    m_record.recordTraining(m_training, change, devices);
  } else {
    m_record.create(m_dir, snapshot.path, protocol::jsonText(projectToPortableJson(snapshot), 2) + "\n");
  }
  m_eventsFile = JsonLinesSink::openFile((m_dir / "events.jsonl").string());
  m_bus.add(m_eventsFile.get());
  openTensorBoard();
}

void RunFiles::openTensorBoard() {
  try {
    m_tensorboard = std::make_unique<TensorBoardSink>(m_dir, hparamsOf(settings().value("hparams", Json())));
  } catch (const Error& e) {
    // The run's own files do not need it: say so and train.
    m_bus.publish(protocol::WarningEvent{format("no TensorBoard files for this session: {}", e.what())});
    return;
  }
  m_bus.add(m_tensorboard.get());
}

void RunFiles::closeEvents() {
  if (m_eventsFile) m_bus.remove(m_eventsFile.get());
  if (m_tensorboard) m_bus.remove(m_tensorboard.get());
}

void RunFiles::writeCheckpoint(const CheckpointData& data, int64_t epoch, int64_t iteration, int64_t globalIteration,
                               const std::vector<std::string>& classNames) {
  rememberClassNames(m_dir, classNames);
  char padded[64];
  std::snprintf(padded, sizeof padded, "e%04lld_i%06lld.ckpt", static_cast<long long>(epoch), static_cast<long long>(iteration));
  const fs::path path = m_dir / "checkpoints" / padded;
  netsmith::writeCheckpoint(path.string(), data);
  m_bus.publish(protocol::CheckpointEvent{epoch, iteration, globalIteration, fs::relative(path, m_dir).string()});

  pruneCheckpoints(m_dir / "checkpoints", m_record.runId(), path, kCheckpointsKept);
}

bool RunFiles::holdsFinalParameters(const Json& checkpointMeta) const {
  try {
    const Json params = readCheckpointMeta((m_dir / "parameters.nsparams").string());
    // Note [Weight averaging]: a run with an average writes the average; older checkpoints have no
    // result_sha256, and their result is the weights.
    const std::string result =
        checkpointMeta.value("result_sha256", checkpointMeta.value("parameters_sha256", std::string("?")));
    return params.value("parameters_sha256", std::string()) == result &&
           params.value("run_id", std::string()) == m_record.runId();
  } catch (const Error&) {
    return false;  // none, or damaged: the resume writes it
  }
}

void RunFiles::writeLearningCurve(const std::vector<CurveRow>& curve) const {
  writeTextAtomically(m_dir / "learning_curve.csv", protocol::learningCurveToCsv(curve));
}

void RunFiles::writeBestParameters(Network& network, const std::string& projectName, int64_t epoch,
                                   double validationError) const {
  writeParametersFile((m_dir / "best.nsparams").string(), network,
                      {{"project", projectName}, {"run_id", m_record.runId()}, {"epoch", epoch},
                       {"validation_error", validationError}});
}

void RunFiles::writeFinalParameters(Replica& replica, const std::string& projectName,
                                    const std::vector<std::string>& classNames) {
  rememberClassNames(m_dir, classNames);
  CheckpointData data;
  data.meta = {{"format", "netsmith-parameters"},
               {"project", projectName},
               {"run_id", m_record.runId()},
               {"parameters_sha256", replica.fingerprint()}};
  for (auto& p : replica.network().parameters()) data.tensors.emplace_back(p.name, p.value->clone());
  netsmith::writeCheckpoint((m_dir / "parameters.nsparams").string(), data);
}

void RunFiles::writeResult(const Json& result) {
  try {
    m_record.writeResult(result);
  } catch (const Error& e) {
    publishBestEffort(m_bus, protocol::WarningEvent{format("the run summary was not saved: {}", e.what())}.toJson());
  }
}

}  // namespace netsmith::training
