// The rules that keep a run folder to one run: its lock, its identity, which files belong to it,
// which of them pruning may delete, and the disk space its checkpoints need.
//
// Note [One run per folder]
// A run folder belongs to the run that created it. run.json holds its `run_id` (written once, at
// creation) and `project_sha256`, the hash of project.nsproj as the run trains it; every
// checkpoint and parameter file carries the run_id, and every checkpoint the project's hash and
// the project itself. So:
// - A process works in a folder only while it holds run.lock (flock: the kernel releases it when
//   the process ends, kill -9 included); a second process is refused at once, naming the first.
// - A new run refuses a folder that holds another run's files (checkNoOtherRun): it never
//   mixes its checkpoints with another run's or overwrites that run's record.
// - A resume uses only checkpoints of the folder's run_id, and refuses a project.nsproj edited
//   since the run started (its hash differs) with the settings that differ, unless told to
//   accept the edit; an accepted edit is recorded in run.json ("accepted_edits").
// - Pruning deletes only the run's own older checkpoints, never the one just written.
// Every write in the folder is checked and atomic (Note [Atomic files]).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace netsmith {

using Json = nlohmann::json;

// An exclusive lock on DIR/run.lock, held while the object lives.
class RunFolderLock {
 public:
  // Takes the lock without waiting. Error "run folder DIR is in use by process N: ..." when
  // another process holds it; Error naming run.lock when it cannot be created. On a file system
  // that cannot lock files at all the object holds no lock and unlockedReason() says why.
  static std::unique_ptr<RunFolderLock> acquire(const std::filesystem::path& dir);
  ~RunFolderLock();
  RunFolderLock(const RunFolderLock&) = delete;
  RunFolderLock& operator=(const RunFolderLock&) = delete;

  // Empty when the lock is held.
  const std::string& unlockedReason() const { return m_unlockedReason; }

 private:
  RunFolderLock(int fd, std::string unlockedReason) : m_fd(fd), m_unlockedReason(std::move(unlockedReason)) {}
  int m_fd;
  std::string m_unlockedReason;
};

// Whether a process holds DIR/run.lock now (a run or resume is working in the folder): probed
// with a shared, non-blocking flock on a read-only descriptor, so nothing is created or held.
bool runFolderInUse(const std::filesystem::path& dir);

// The process that holds DIR/run.lock now (as it wrote itself there), or 0 when none does or it
// did not say: what a console that follows a run it did not start signals to stop it.
int64_t runFolderHolder(const std::filesystem::path& dir);

// Throws when `dir` holds files of a run (run.json, events, learning curve, parameters,
// checkpoints) or a project.nsproj other than `projectPath` (which a new run would overwrite
// with its snapshot). A missing or empty folder, or one holding only `projectPath` (the GUI
// writes its snapshot there first), is free.
void checkNoOtherRun(const std::filesystem::path& dir, const std::string& projectPath);

// A new run's id: 32 hex digits from the system's random source.
std::string newRunId();

// SHA-256 of a project snapshot's JSON in canonical form (keys sorted, no spaces), so that
// re-indenting project.nsproj is not an edit.
std::string projectSnapshotSha256(const Json& snapshot);

// The settings that differ between two project snapshots, one line per changed JSON path:
// "optimizer.lr: 0.01 → 0.1", "config.seed: 1 → 2", "network.nodes[3]: removed". At most
// `limit` lines, then "... and N more".
std::vector<std::string> settingDifferences(const Json& before, const Json& after, size_t limit = 12);

// Deletes the run's checkpoints in `dir` beyond the newest `keep`, always keeping `justWritten`;
// checkpoints of the run positioned after `justWritten` (left by an abandoned, damaged future:
// a resume picks the newest valid one) are deleted too. Files of other runs, or whose header
// cannot be read, are left alone. An empty `runId` (a run folder of an older version) counts
// every checkpoint as the run's.
void pruneCheckpoints(const std::filesystem::path& dir, const std::string& runId,
                      const std::filesystem::path& justWritten, int keep);

// The disk space a run folder needs: `keep` checkpoints plus one being written, and the
// parameter files (parameters.nsparams, best.nsparams and one being written), plus a margin
// for events, the learning curve and run.json.
struct DiskNeed {
  uint64_t checkpointBytes = 0;  // one checkpoint
  uint64_t parametersBytes = 0;  // one parameter file
  uint64_t totalBytes = 0;
};
DiskNeed diskNeed(int64_t parameterCount, int optimizerBuffersPerParameter, int keep);

// Bytes used by the checkpoints and parameter files already in `runDir` (a resume replaces them).
uint64_t runFilesBytes(const std::filesystem::path& runDir);

// Note [Run class names]
// A run remembers what its class labels are called: when the training dataset has names
// (classes.txt beside its CSV, Dataset::classNames), the trainer copies them into RUN/classes.txt
// (atomically, with each checkpoint and the final parameters, so any parameters the run has come
// with them; engine/train/run_files.cpp). evaluate, infer and export read that file, so
// they name the classes even after the dataset has moved. A run folder without one (trained before
// runs kept their names) falls back to classes.txt beside the project's training CSV, when there is
// one, then to the project's dataset.class_names (Note [Class names in a project]). A name file
// that cannot be read is an error naming it, never silently unnamed classes.
// Where a class has no name its number stands in ("3"): per_class name, true_class_name,
// predicted_class_name, infer's class_name.
constexpr const char* kRunClassNamesFile = "classes.txt";

// The run folder's class names file: RUN/classes.txt.
std::string runClassNamesPath(const std::string& runDir);

}  // namespace netsmith
