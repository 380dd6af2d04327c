// RunRecord: a run folder's record of its run — run.json (identity, settings a resume keeps,
// result) and the project snapshot — created for a new run, claimed and checked for a resume,
// and updated as the run ends (Note [One run per folder], run_folder.h). The trainer's leader
// process owns one; it holds the folder's lock from the claim to the end of the run.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/train/events.h"
#include "engine/train/run_folder.h"

namespace netsmith {

class RunRecord {
 public:
  explicit RunRecord(EventBus& bus) : m_bus(bus) {}

  // A resume (any process): reads DIR/run.json and DIR/project.nsproj. Error names what is
  // missing; a folder killed while being created says how to start the run again.
  void read(const std::filesystem::path& dir);

  // A resume, on the leader, before the data loads: takes the folder's lock, removes the
  // temporaries a kill left, chooses the newest valid checkpoint of this run (warnings name the
  // ones skipped), and checks project.nsproj against it. An edited project (or a checkpoint of
  // another seed) is an Error listing what differs, unless `acceptEdits`: then the edit is
  // recorded in run.json ("accepted_edits"). Returns the checkpoint to continue from.
  std::optional<std::string> claimForResume(uint64_t seed, bool acceptEdits);

  // A new run, on the leader: creates and locks DIR (which must hold no other run), writes the
  // project snapshot `snapshotText` and run.json (a new run_id, its time, the snapshot's hash and
  // settings()). A failure part-way removes what this attempt made and says so.
  void create(const std::filesystem::path& dir, const std::string& projectPath, const std::string& snapshotText);

  // A resume, on the leader, with the lock held: run.json's "training" (the devices and the logical
  // batch the run now trains with: Note [Resume on other devices]) becomes `training`; a non-null
  // `change` is added to "device_changes"; non-empty `devices` (--devices) become "devices", the
  // list a later resume continues on. Throws Error when run.json cannot be written.
  void recordTraining(const Json& training, const Json& change, const std::vector<std::string>& devices);

  // A new run, on the leader, after create(): run.json's "initial_parameters" becomes `report`
  // (Note [Initial parameters]). Throws Error when run.json cannot be written.
  void recordInitialParameters(const Json& report);

  // From here on a failure of the run is recorded in run.json.
  void markStarted() { m_started = true; }
  // Sets run.json's "result" and writes it; throws Error when it cannot be written.
  void writeResult(const Json& result);
  // Marks run.json "failed" with the reason, once the run has started (best effort: on a full
  // disk the folder keeps its last state, which resumes).
  void recordFailure(const std::string& message);

  // run.json: the command-line settings a resume keeps (set before create()), and more.
  Json& settings() { return m_settings; }
  const Json& settings() const { return m_settings; }
  const std::filesystem::path& dir() const { return m_dir; }
  const std::string& runId() const { return m_runId; }  // empty: a folder of an older version
  const Json& projectJson() const { return m_projectJson; }
  const std::string& projectSha256() const { return m_projectSha; }

 private:
  void lock();
  void removeTemporaries();
  void checkProjectUnedited(const Json& checkpointMeta, uint64_t seed, bool acceptEdits);
  void writeSettings();

  EventBus& m_bus;
  std::filesystem::path m_dir;
  Json m_settings = Json::object();
  std::unique_ptr<RunFolderLock> m_lock;
  std::string m_runId;
  Json m_projectJson;        // project.nsproj as this run trains it
  std::string m_projectSha;  // projectSnapshotSha256(m_projectJson)
  bool m_started = false;
};

}  // namespace netsmith
