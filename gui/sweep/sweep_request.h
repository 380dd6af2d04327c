// A sweep as the GUI asks `netsmith-cli sweep` for it (docs/cli.md, "sweep"; Note [Studies] in
// engine/study/study_runner.h): the project, its search (a grid of every combination, the first
// setting slowest, as the CLI orders them; random; Bayesian), up to two settings with their values
// (a list, or for a search a range), other projects queued to train once each (grid only), the
// budgets, the devices (one group of devices per trial) and the limits — or a stopped study to
// resume. Its rows are the trials in the CLI's order: row k is the run folder
// `<project>.runs/<stamp>-sweep<k>-<label>/`. A grid's rows are known before it starts; a
// search's come one by one from the study's log (study_log.h).
#pragma once

#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "engine/study/samplers.h"
#include "engine/study/trial_stopping.h"
#include "gui/sweep/sweep_values.h"

namespace netsmith::gui {

// A numeric setting's range for a random or Bayesian search (--range KEY=LOW..HIGH[:log][:int]).
struct SweepRange {
  double low = 0, high = 0;
  bool log = false;
};

struct SweepAxis {
  SweepSetting setting;
  std::vector<double> values;  // a numeric list (or grid)
  QStringList choices;         // a choice setting's values
  std::optional<SweepRange> range;  // a search's range instead of a list

  // The values as the CLI and the table write them ("0.001", "Adam").
  QStringList valueTexts() const;
  // "--set" KEY=V1,V2 or "--range" KEY=LOW..HIGH[:log][:int].
  QStringList option() const;
  // Null when the values suit the setting, else the sentence to show.
  std::optional<QString> problem() const;
};

// One training of the sweep, as planned and then as it went.
struct SweepRow {
  int index = 0;           // 1-based: the CLI's k
  QString project;         // the project file it trains
  QStringList values;      // one text per axis (empty for a queued project)
  QString device;          // where it trains ("" until it starts)
  QString status = QStringLiteral("queued");  // queued, running, completed, stopped, failed, not run
  std::optional<double> finalError, bestError;  // validation error, 0..1
  int64_t bestEpoch = 0;
  int64_t epochs = 0;      // epochs trained so far
  double seconds = 0;
  QString runFolder;
  QString trialProject;    // the project the trial trains (in the study folder), once logged
  QString message;         // why it failed
  std::optional<QString> stoppedEarly;  // the stopping rule's reason (status stopped_early)

  bool finished() const;   // completed, stopped_early, stopped, failed or not run
  // "stopped early (epoch 3)" for stopped_early, else the status.
  QString statusText() const;
};

struct SweepRequest {
  QString project;             // the project file (absolute)
  study::SearchKind search = study::SearchKind::Grid;
  std::vector<SweepAxis> axes; // 0 to 2 settings; none: each project trains once
  QStringList queuedProjects;  // other project files, each trained once with its own settings (grid)
  int trials = 0;              // random and Bayesian: the trial budget (0: the CLI's 12)
  int timeBudgetMinutes = 0;   // 0: none
  std::optional<study::StopRule> earlyStop;  // nullopt: the CLI's default for the search
  int devicesPerTrial = 1;
  QString resumeFolder;        // a stopped study to continue (`sweep --resume`): the rest is unused but devices
  QStringList devices;         // "cpu:0", "cuda:1"; empty: the project's parallel.devices
  int maxEpoch = 0;            // 0: the project's config.max_epoch
  int trainSamples = 0;        // 0: all
  int validationSamples = 0;   // 0: all

  // The arguments after `netsmith-cli` (sweep ... --json).
  QStringList arguments() const;
  // A grid's trainings in the CLI's order, all "queued"; none for a search or a resume (their
  // rows come from the study's log).
  std::vector<SweepRow> plannedRows() const;
  bool isSearch() const { return search != study::SearchKind::Grid; }
  // Null when the request can start, else what to change (no values, a value out of range, the
  // same setting twice, nothing to train).
  std::optional<QString> problem() const;
};

// A value of the study's log or summary as the table writes it: a number as valueText(), a string as it is.
QString valueTextOf(const nlohmann::json& value);

// The `<project>.runs` folder the CLI puts a project's runs in.
QString runsFolderOf(const QString& projectFile);

// Fills `rows` from the CLI's JSON summary (stdout of `sweep --json`, or the study's
// summary.json): one object per trial, in row order; rows the log had not shown yet are added
// (their values from the summary's settings, in the order of `axisPaths`). Returns an error
// sentence naming the field when the text does not match (rows read so far are kept).
std::optional<QString> applySummary(const QByteArray& json, std::vector<SweepRow>& rows, const QStringList& axisPaths);

}  // namespace netsmith::gui
