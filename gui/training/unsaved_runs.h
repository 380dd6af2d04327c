// Note [Runs before the first Save]
// A project without a file trains into a runs folder of the application's data
// (runsRootFor("", name): ~/.local/share/Netsmith/runs/NAME), since it has no PROJECT.runs beside
// it yet. Its first Save moves those runs into PROJECT.runs, so the run history and the
// Evaluation page of the saved project show what was trained before; the run still training
// (its engine writes to its folder's path) moves when it ends. A folder of that name already in
// PROJECT.runs is never overwritten: the moved run takes the name with "-2", "-3"... A run that
// cannot move (another file system that refuses the copy, a folder in use) stays where it is and
// is named in the sentence the console shows.
#pragma once

#include <QString>
#include <QStringList>

namespace netsmith::gui {

struct AdoptedRuns {
  QStringList moved;     // folder names in the new root
  QStringList movedFrom; // each one's name before (the same but for a "-2" added)
  QStringList inUse;     // still training (a process holds run.lock): left for later
  QStringList failed;    // "NAME: why"
  // "2 runs trained before the first save moved to X" (+ what stayed and why); "" when nothing.
  QString summary(const QString& toRoot) const;
};

// Moves every run folder in `fromRoot` into `toRoot` (created when needed), except those in use.
AdoptedRuns adoptRuns(const QString& fromRoot, const QString& toRoot);

}  // namespace netsmith::gui
