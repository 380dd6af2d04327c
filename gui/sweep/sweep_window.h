// Training ▸ Sweep…: the main window's one Sweep dialog (made on first use, kept while the window
// lives, so closing it leaves a running sweep going and the menu shows it again), wired to the
// Training page: "Show in Training page" ticks the row's run in the page's history, which
// overlays its learning curve; a run of another project (a queued one) opens its folder instead.
// "Open as project" hands the trial's project file to the window (`openProject`), which opens it
// as File ▸ Open does.
#pragma once

#include <functional>

class QString;
class QWidget;

namespace netsmith::gui {

class ProjectDocument;
class SweepDialog;
class TrainingPage;

// Shows (or raises) the dialog that belongs to `window`; `showTrainingPage` brings the Training
// page to the front; `openProject` opens a project file in the window.
SweepDialog* showSweepDialog(QWidget* window, ProjectDocument* doc, TrainingPage* training,
                             const std::function<void()>& showTrainingPage,
                             const std::function<void(const QString&)>& openProject);

// Ticks `runFolder` in the Training page's history (refreshed first, so a run a sweep has just
// made is listed). False when the folder is not one of the page's project's runs.
bool showRunInTrainingPage(TrainingPage* training, const QString& runFolder);

}  // namespace netsmith::gui
