// A sweep as the GUI asks `netsmith-cli sweep` for it (docs/cli.md, "sweep"): the project, up to
// two settings with their values (every combination, the first setting slowest, as the CLI orders
// them), other projects queued to train once each, the devices (one training per device at a
// time) and the limits. Its rows are the trainings in the CLI's order: row k is the run folder
// `<project>.runs/<stamp>-sweep<k>-<label>/`.
#pragma once

#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "gui/sweep/sweep_values.h"

namespace netsmith::gui {

struct SweepAxis {
  SweepSetting setting;
  std::vector<double> values;
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
  QString message;         // why it failed

  bool finished() const;   // completed, stopped, failed or not run
};

struct SweepRequest {
  QString project;             // the project file (absolute)
  std::vector<SweepAxis> axes; // 0 to 2 settings; none: each project trains once
  QStringList queuedProjects;  // other project files, each trained once with its own settings
  QStringList devices;         // "cpu:0", "cuda:1"; empty: the project's parallel.devices
  int maxEpoch = 0;            // 0: the project's config.max_epoch
  int trainSamples = 0;        // 0: all
  int validationSamples = 0;   // 0: all

  // The arguments after `netsmith-cli` (sweep ... --json).
  QStringList arguments() const;
  // The trainings in the CLI's order, all "queued".
  std::vector<SweepRow> plannedRows() const;
  // Null when the request can start, else what to change (no values, a value out of range, the
  // same setting twice, nothing to train).
  std::optional<QString> problem() const;
};

// The `<project>.runs` folder the CLI puts a project's runs in.
QString runsFolderOf(const QString& projectFile);

// Fills `rows` from the CLI's JSON summary (stdout of `sweep --json`, or the sweep's
// summary.json): one object per training, in row order. Returns an error sentence naming the
// field when the text does not match (rows read so far are kept).
std::optional<QString> applySummary(const QByteArray& json, std::vector<SweepRow>& rows);

}  // namespace netsmith::gui
