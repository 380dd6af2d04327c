#include "gui/sweep/sweep_window.h"

#include <QDesktopServices>
#include <QFileInfo>
#include <QListWidget>
#include <QUrl>

#include "gui/sweep/sweep_dialog.h"
#include "gui/training/run_history_panel.h"
#include "gui/training/training_page.h"

namespace netsmith::gui {

bool showRunInTrainingPage(TrainingPage* training, const QString& runFolder) {
  training->refreshHistory();
  RunHistoryPanel* history = training->historyPanel();
  // Compared as canonical paths: the CLI spells the folder from the path it was given.
  const QString wanted = QFileInfo(runFolder).canonicalFilePath();
  if (wanted.isEmpty()) return false;
  for (int i = 0; i < history->list()->count(); ++i) {
    const QString folder = history->list()->item(i)->data(Qt::UserRole).toString();
    if (QFileInfo(folder).canonicalFilePath() != wanted) continue;
    history->setCompared(folder, true);
    history->list()->setCurrentRow(i);
    return true;
  }
  return false;
}

SweepDialog* showSweepDialog(QWidget* window, ProjectDocument* doc, TrainingPage* training,
                             const std::function<void()>& showTrainingPage,
                             const std::function<void(const QString&)>& openProject) {
  auto* dialog = window->findChild<SweepDialog*>(QString(), Qt::FindDirectChildrenOnly);
  if (!dialog) {
    dialog = new SweepDialog(doc, window);
    QObject::connect(dialog, &SweepDialog::showRunRequested, dialog, [training, showTrainingPage](const QString& folder) {
      if (showRunInTrainingPage(training, folder)) showTrainingPage();
      else QDesktopServices::openUrl(QUrl::fromLocalFile(folder));
    });
    QObject::connect(dialog, &SweepDialog::openProjectRequested, dialog, openProject);
  }
  dialog->show();
  dialog->raise();
  dialog->activateWindow();
  return dialog;
}

}  // namespace netsmith::gui
