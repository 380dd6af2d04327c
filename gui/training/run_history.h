// Past runs of a project: the folders under <project folder>/<stem>.runs/ (docs/events.md), each
// summarised from its events.jsonl (how it finished) for the Training page's history list.
#pragma once

#include <QList>
#include <QString>

#include "gui/run/engine_event.h"

namespace netsmith::gui {

struct RunSummary {
  QString folder;  // absolute
  QString name;    // the folder name: its start time, YYYYMMDD-HHMMSS
  QString status;  // completed | stopped | failed | running or interrupted ("" when unknown)
  long long epochs = 0;
  double bestValidationError = kNoValue;
  QString message;
};

// Where runs of the project at `projectPath` go: <folder>/<stem>.runs. For a project never saved,
// <AppDataLocation>/runs/<name>.
QString runsRootFor(const QString& projectPath, const QString& projectName);
// Runs under `runsRoot`, newest first.
QList<RunSummary> listRuns(const QString& runsRoot);
// Reads one run folder's events.jsonl.
RunSummary summariseRun(const QString& folder);

}  // namespace netsmith::gui
