// Past runs of a project: the folders under <project folder>/<stem>.runs/ (docs/events.md), each
// summarised from its events.jsonl (how it finished) for the Training page's history list.
//
// `netsmith-cli sweep` adds one run folder per setting, <ts>-sweep<k>-<label>/, and the folder
// <ts>-sweep/ with the variant projects and summary.json ([{settings, label, run, ...}]). The
// sweep's runs are listed like any other, labelled with their setting; its own folder is not a run.
#pragma once

#include <QHash>
#include <QList>
#include <QString>

#include "gui/run/engine_event.h"

namespace netsmith::gui {

struct RunSummary {
  QString folder;  // absolute
  QString name;    // the folder name: its start time, YYYYMMDD-HHMMSS
  // completed | stopped | failed | running (started, not finished, a process holds run.lock) |
  // interrupted (started, not finished, nobody holds it: killed) | "" when unknown
  QString status;
  long long epochs = 0;
  double bestValidationError = kNoValue;
  QString message;
  QString sweepLabel;  // a sweep's run: its setting, "alpha=0.003"; else empty
  QString sweep;       // a sweep's run: the sweep's time stamp (its folder is <sweep>-sweep)
  QString label;       // the name a person gave it (RUN/label.txt, Rename in the history); else empty
  bool hasCheckpoint = false;  // checkpoints/ holds a .ckpt: `train --resume` continues from it

  // What the history and the chart legend call the run: "20261122-143000 · alpha=0.003", or the
  // person's label with the folder name: "wider net (20261122-143000)".
  QString displayName() const;
  // Stopped, failed or interrupted, with a checkpoint to continue from.
  bool resumable() const;
};

// Where runs of the project at `projectPath` go: <folder>/<stem>.runs. For a project never saved,
// <AppDataLocation>/runs/<name>.
QString runsRootFor(const QString& projectPath, const QString& projectName);
// Runs under `runsRoot`, newest first.
QList<RunSummary> listRuns(const QString& runsRoot);
// Reads one run folder's events.jsonl.
RunSummary summariseRun(const QString& folder);
// A run's label (RUN/label.txt, one line; the engine never reads it), or empty.
QString readRunLabel(const QString& folder);
// Writes (or, for an empty label, removes) RUN/label.txt atomically; false with the reason in
// `error` when it cannot.
bool writeRunLabel(const QString& folder, const QString& label, QString* error);
// A sweep's summary.json: the folder name of each variant's run → its label. Empty when absent.
QHash<QString, QString> readSweepLabels(const QString& sweepFolder);

}  // namespace netsmith::gui
