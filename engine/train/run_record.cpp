#include "engine/protocol/json_fields.h"
#include "engine/train/run_record.h"

#include <fstream>

#include "engine/core/atomic_file.h"
#include "engine/core/error.h"
#include "engine/core/text_files.h"
#include "engine/model/checkpoint.h"

namespace fs = std::filesystem;

namespace netsmith {
namespace {

std::string isoTimeNow() { return localTimeNow("%Y-%m-%dT%H:%M:%S%z"); }

Json readJsonFile(const fs::path& path, const fs::path& folder) {
  std::ifstream in(path);
  NS_CHECK(in.good(), "{}: missing; is {} a Netsmith run folder?", path.string(), folder.string());
  try {
    return Json::parse(in);
  } catch (const std::exception& e) {
    NS_THROW("{}: not valid JSON: {}", path.string(), e.what());
  }
}

}  // namespace

void RunRecord::read(const fs::path& dir) {
  m_dir = dir;
  // run.json is written last when a run folder is created (create()): a folder without it but
  // with the snapshot was killed while being created, before anything was trained.
  std::error_code ec;
  NS_CHECK(fs::exists(m_dir / "run.json", ec) || !fs::exists(m_dir / "project.nsproj", ec),
           "{}: the run was interrupted while its folder was being created (run.json is missing), before it trained: "
           "start it again with `netsmith-cli train {} --run-dir {}`",
           m_dir.string(), (m_dir / "project.nsproj").string(), m_dir.string());
  m_settings = readJsonFile(m_dir / "run.json", m_dir);
  NS_CHECK(m_settings.is_object(), "{}: expected a JSON object", (m_dir / "run.json").string());
  m_projectJson = readJsonFile(m_dir / "project.nsproj", m_dir);
  m_projectSha = projectSnapshotSha256(m_projectJson);
  m_runId = m_settings.value("run_id", std::string());
}

void RunRecord::lock() {
  m_lock = RunFolderLock::acquire(m_dir);
  if (!m_lock->unlockedReason().empty()) m_bus.publish({{"event", "warning"}, {"message", m_lock->unlockedReason()}});
}

// Removes the temporary files a killed writer left (Note [Atomic files]); the lock is held.
void RunRecord::removeTemporaries() {
  std::vector<std::string> removed = removeStaleTemporaryFiles(m_dir);
  for (const auto& name : removeStaleTemporaryFiles(m_dir / "checkpoints")) removed.push_back("checkpoints/" + name);
  if (removed.empty()) return;
  std::string list;
  for (const auto& r : removed) list += (list.empty() ? "" : ", ") + r;
  m_bus.publish({{"event", "warning"},
                 {"message", format("removed {} temporary file(s) left by an interrupted write: {}", removed.size(), list)}});
}

std::optional<std::string> RunRecord::claimForResume(uint64_t seed, bool acceptEdits) {
  lock();
  removeTemporaries();
  if (m_runId.empty())
    m_bus.publish({{"event", "warning"},
                   {"message", format("{}: no run_id (a run folder of an older Netsmith): its checkpoints cannot be told "
                                      "from another run's",
                                      (m_dir / "run.json").string())}});
  std::vector<std::string> rejected;
  const auto newest = newestValidCheckpoint((m_dir / "checkpoints").string(), &rejected, m_runId);
  for (const auto& r : rejected) m_bus.publish({{"event", "warning"}, {"message", "skipped checkpoint: " + r}});
  checkProjectUnedited(newest ? readCheckpointMeta(*newest) : Json::object(), seed, acceptEdits);
  return newest;
}

// A resume continues the settings its checkpoints were trained with, or says what changed.
void RunRecord::checkProjectUnedited(const Json& checkpointMeta, uint64_t seed, bool acceptEdits) {
  const std::string& now = m_projectSha;
  const std::string started = m_settings.value("project_sha256", std::string());
  const std::string trained = checkpointMeta.value("project_sha256", std::string());
  const bool seedChanged = checkpointMeta.contains("seed") && checkpointMeta["seed"] != Json(seed);
  const bool edited = (!started.empty() && started != now) || (!trained.empty() && trained != now) || seedChanged;
  if (!edited) return;
  std::vector<std::string> changes;
  if (checkpointMeta.contains("project")) changes = settingDifferences(checkpointMeta["project"], m_projectJson);
  if (changes.empty() && seedChanged) changes.push_back(format("config.seed: {} → {}", checkpointMeta["seed"].dump(), seed));
  if (changes.empty())
    changes.push_back(format("its SHA-256 is now {}, the run started with {}", now.substr(0, 12),
                             (trained.empty() ? started : trained).substr(0, 12)));
  std::string list;
  for (const auto& c : changes) list += (list.empty() ? "" : "; ") + c;
  NS_CHECK(acceptEdits,
           "{}: edited since the run trained its checkpoints ({}): resuming would continue with settings its weights "
           "were not trained with, and the run's record would no longer say what produced it; put the file back as it "
           "was, start a new run with the edited project, or pass --accept-edited-settings to continue with the "
           "edited settings (recorded in run.json)",
           (m_dir / "project.nsproj").string(), list);
  Json edit = {{"time", isoTimeNow()},
               {"from_sha256", trained.empty() ? started : trained},
               {"to_sha256", now},
               {"changes", changes}};
  if (checkpointMeta.contains("epoch")) {
    edit["epoch"] = checkpointMeta["epoch"];
    edit["iteration"] = checkpointMeta["iteration"];
  }
  if (!m_settings.contains("accepted_edits") || !m_settings["accepted_edits"].is_array())
    m_settings["accepted_edits"] = Json::array();
  m_settings["accepted_edits"].push_back(edit);
  m_settings["project_sha256"] = now;
  writeSettings();
  m_bus.publish({{"event", "warning"},
                 {"message", format("resuming with edited settings (--accept-edited-settings, recorded in run.json): {}", list)}});
}

void RunRecord::create(const fs::path& dir, const std::string& projectPath, const std::string& snapshotText) {
  m_dir = dir;
  std::error_code ec;
  const bool existed = fs::exists(m_dir, ec);
  fs::create_directories(m_dir, ec);
  NS_CHECK(!ec, "{}: cannot create the run folder: {}", m_dir.string(), ec.message());
  lock();
  // Again under the lock: two runs started into one folder at once.
  checkNoOtherRun(m_dir, projectPath);
  removeTemporaries();
  const bool hadSnapshot = fs::exists(m_dir / "project.nsproj", ec);
  const bool hadCheckpoints = fs::exists(m_dir / "checkpoints", ec);

  m_projectJson = Json::parse(snapshotText);
  m_projectSha = projectSnapshotSha256(m_projectJson);
  m_runId = newRunId();
  m_settings["format"] = "netsmith-run";
  m_settings["run_id"] = m_runId;
  m_settings["created"] = isoTimeNow();
  m_settings["project_sha256"] = m_projectSha;
  try {
    fs::create_directories(m_dir / "checkpoints", ec);
    NS_CHECK(!ec, "{}: cannot create: {}", (m_dir / "checkpoints").string(), ec.message());
    writeFileAtomically(m_dir / "project.nsproj", snapshotText);
    // run.json last: a folder that has it is complete, and resumable.
    writeSettings();
  } catch (const Error& e) {
    // Leave no half-made run behind: what this attempt made goes.
    std::error_code cleanupEc;
    if (!existed) {
      fs::remove_all(m_dir, cleanupEc);
    } else {
      fs::remove(m_dir / "run.json", cleanupEc);
      if (!hadSnapshot) fs::remove(m_dir / "project.nsproj", cleanupEc);
      if (!hadCheckpoints) fs::remove(m_dir / "checkpoints", cleanupEc);
    }
    NS_THROW("{}; the run did not start and left no run in {}: free some space (or choose another folder) and start "
             "it again",
             e.what(), m_dir.string());
  }
  m_started = true;
}

void RunRecord::writeSettings() { writeFileAtomically(m_dir / "run.json", protocol::jsonText(m_settings, 2) + "\n"); }

void RunRecord::recordTraining(const Json& training, const Json& change, const std::vector<std::string>& devices) {
  m_settings["training"] = training;
  if (!change.is_null()) {
    if (!m_settings.contains("device_changes") || !m_settings["device_changes"].is_array())
      m_settings["device_changes"] = Json::array();
    Json dated = change;
    dated["time"] = isoTimeNow();
    m_settings["device_changes"].push_back(dated);
  }
  if (!devices.empty()) m_settings["devices"] = devices;
  writeSettings();
}

void RunRecord::recordInitialParameters(const Json& report) {
  m_settings["initial_parameters"] = report;
  writeSettings();
}

void RunRecord::writeResult(const Json& result) {
  m_settings["result"] = result;
  writeSettings();
}

void RunRecord::recordFailure(const std::string& message) {
  if (!m_started) return;
  m_started = false;  // once
  m_settings["result"] = {
      {"status", "failed"},
      {"message", message},
      {"resume", format("netsmith-cli train --resume {} continues from the newest checkpoint", m_dir.string())}};
  try {
    writeSettings();
  } catch (const Error&) {
    // The disk that failed the run may fail this too; the folder then keeps its last state.
  }
}

}  // namespace netsmith
