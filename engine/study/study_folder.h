// A study's folder, <project>.runs/<stamp>-sweep/ (Note [Studies], study_runner.h): study.json
// (what the study is: its search, settings, seed, budgets and training options), base.nsproj (the
// project it varies), one project per trial (<k>-<label>.nsproj), trials.jsonl (the log: each
// trial's values when suggested, its validation errors, an early stop, its end) and summary.json
// (a row per trial, rewritten as trials end). The log is appended a whole line at a time (Note
// [Atomic files]); a line torn by kill -9 is dropped when the study resumes, so a study killed at
// any moment resumes with exactly the trials it had suggested.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/atomic_file.h"
#include "engine/study/samplers.h"
#include "engine/study/trial_stopping.h"

namespace netsmith::study {

struct StudyDefinition {
  std::string projectPath;  // the base project as it was given (for the summary; base.nsproj trains)
  std::string stamp;        // the folder's timestamp, shared by its trials' run folders
  SearchKind search = SearchKind::Grid;
  std::vector<SearchParameter> parameters;
  std::vector<std::string> queued;  // grid only: other projects trained once each after the grid
  uint64_t seed = 1;
  int64_t trialBudget = 0;         // the most trials (a grid: at most its size)
  double timeBudgetSeconds = 0;    // 0: none
  StopSettings stopping;
  std::vector<std::string> devices;
  int devicesPerTrial = 1;
  // The training options every trial gets (netsmith-cli train's).
  std::optional<int64_t> maxEpoch;
  std::optional<int64_t> earlyStopping;
  int64_t trainSamples = 0;
  int64_t validationSamples = 0;

  Json toJson() const;
  static StudyDefinition fromJson(const Json& j, const std::string& file);
};

struct EpochRecord {
  int64_t epoch = 0;
  double validationError = 0;
};

// What the log says of one trial.
struct TrialRecord {
  int64_t index = 0;  // 0-based; shown 1-based
  TrialValues values;
  std::string label;        // "alpha=0.00316", or a queued project's name
  std::string project;      // the trial's project file (in the study folder)
  std::string sourceProject;  // the project it varies: base.nsproj's source, or a queued one
  std::string runDir;
  std::vector<EpochRecord> epochs;
  std::optional<std::string> stoppedEarly;  // why the stopping rule stopped it
  // "" while it has not ended; else completed, stopped_early, failed, or stopped (by the time budget).
  std::string status;
  std::string message;
  std::string devices;  // "cpu:0" or "cuda:0+cuda:1"
  double seconds = 0;
  std::string parametersSha256;

  bool ended() const { return !status.empty(); }
  std::optional<double> bestError() const;
  std::optional<double> finalError() const;
  int64_t bestEpoch() const;
  Observation observation() const { return {values, status == "failed" ? std::nullopt : bestError()}; }
};

class StudyFolder {
 public:
  // A new study: claims <runs>/<stamp>-sweep/ with one mkdir (a second sweep started in the same
  // second waits for the next one), writes base.nsproj and study.json. `definition.stamp` is set.
  static std::unique_ptr<StudyFolder> create(const std::filesystem::path& runs, StudyDefinition& definition,
                                             const std::string& baseProjectText);
  // An existing study, its log read (a damaged line other than a torn last one is an Error naming
  // the file and line). Takes the folder's lock: a study resumes in one process at a time.
  static std::unique_ptr<StudyFolder> open(const std::filesystem::path& dir);
  ~StudyFolder();

  const std::filesystem::path& dir() const { return m_dir; }
  const StudyDefinition& definition() const { return m_definition; }
  StudyDefinition& definition() { return m_definition; }
  std::filesystem::path baseProject() const { return m_dir / "base.nsproj"; }
  // The trials the log holds, in order of suggestion.
  std::vector<TrialRecord>& trials() { return m_trials; }
  // The study time the log has seen (seconds, over every session): the time budget's clock.
  double secondsUsed() const { return m_secondsUsed; }

  // Appends to trials.jsonl (whole lines; not thread-safe: the runner holds its lock). `at`: study seconds.
  void logTrial(const TrialRecord& trial, double at);
  void logEpoch(const TrialRecord& trial, const EpochRecord& epoch, double at);
  void logStoppedEarly(const TrialRecord& trial, double at);
  void logEnded(const TrialRecord& trial, double at);
  // summary.json: a row per trial (the sweep's summary format, with the study's fields).
  Json summary() const;
  void writeSummary() const;
  // Study.json again (a resume may raise the budgets).
  void writeDefinition() const;

 private:
  explicit StudyFolder(std::filesystem::path dir) : m_dir(std::move(dir)) {}
  void readLog();
  void append(const Json& line);
  std::filesystem::path m_dir;
  StudyDefinition m_definition;
  std::vector<TrialRecord> m_trials;
  double m_secondsUsed = 0;
  std::unique_ptr<LineAppender> m_log;
  std::shared_ptr<void> m_lock;
};

}  // namespace netsmith::study
