// RunHistoryPanel: the Training page's list of a project's past runs (run_history.h). Ticking a
// run overlays its learning curve on the chart; each run's context menu offers Compare (two
// selected runs, or the run with another: RunCompareWindow, what changed between them beside
// their curves), Resume, Resume on the ticked devices, Overlay on the chart, Rename, Open folder
// and Delete. The list follows the disk: a
// QFileSystemWatcher on the runs folder, each run folder and its events.jsonl refreshes it when
// any process — this page's engine, a `netsmith-cli train --resume` in a terminal, a sweep —
// adds, changes or removes a run.
//
// The panel never starts the engine itself: Resume asks the page (resumeRequested). Delete moves
// the folder to the desktop's trash after asking; where there is no trash it deletes only after a
// second, explicit confirmation; a run folder that a process holds (run.lock) is never deleted.
#pragma once

#include <QFileSystemWatcher>
#include <QGroupBox>
#include <QTimer>
#include <functional>

#include "gui/training/run_history.h"
#include "gui/training/training_charts.h"

class QListWidget;
class QListWidgetItem;
class QMenu;

namespace netsmith::gui {

class RunCompareWindow;

class RunHistoryPanel : public QGroupBox {
  Q_OBJECT
 public:
  explicit RunHistoryPanel(QWidget* parent = nullptr);

  // The folder whose runs are listed (and watched); refreshes at once.
  void setRunsRoot(const QString& root);
  QString runsRoot() const { return m_root; }
  // Re-reads every run (ticks are kept by folder).
  void refresh();
  QList<RunSummary> runs() const { return m_runs; }
  QListWidget* list() const { return m_list; }
  // The ticked runs' learning curves, labelled as the list names them, each with its colour slot
  // (Note [Chart colours]): a run keeps its colour while it stays ticked, shown as a swatch
  // beside it in the list, the chart's legend for the overlays.
  QList<CurvePoints> overlays() const;
  // The overlay colour slot of a ticked run's folder; -1 when it is not ticked.
  int colorSlot(const QString& folder) const { return m_colorSlots.value(folder, -1); }

  // The folder a run of the page is training in now: it cannot be resumed or deleted meanwhile.
  void setActiveFolder(const QString& folder) { m_activeFolder = folder; }
  // Whether the page could start a resume now (it is idle).
  void setResumeAllowed(bool allowed) { m_resumeAllowed = allowed; }

  // The context menu's actions for one run, as the menu runs them (tests drive them directly).
  QMenu* contextMenuFor(const QString& folder);  // owned by the panel until the next call
  void setCompared(const QString& folder, bool compared);
  // Opens the Compare window of two runs (A: the older by folder name, so the table reads as
  // what changed from one run to the next); it closes itself and is deleted when closed.
  RunCompareWindow* compareRuns(const QString& folderA, const QString& folderB);
  // The run folders selected in the list (Ctrl+click selects several), in list order.
  QStringList selectedFolders() const;
  bool renameRun(const QString& folder, const QString& label);
  bool deleteRun(const QString& folder);
  void openRunFolder(const QString& folder);
  // Why the last action failed, for the status line (also shown in a message box when visible).
  QString lastError() const { return m_lastError; }

  // Hooks a test replaces: asking a question (yes/no), asking for text (the rename), opening a URL.
  std::function<bool(const QString& title, const QString& question)> ask;
  std::function<std::optional<QString>(const QString& current)> askLabel;
  std::function<void(const QUrl&)> openUrl;

 signals:
  void overlaysChanged();
  // Resume the run in `folder`; onTickedDevices: on the devices ticked on the page (--devices).
  void resumeRequested(const QString& folder, bool onTickedDevices);
  void refreshed();
  void actionFailed(const QString& message);

 private:
  void showMenu(const QPoint& at);
  void watch();
  void scheduleRefresh();
  const RunSummary* runAt(const QString& folder) const;
  void fail(const QString& message);
  // Gives each ticked run a colour slot (the lowest free one) and its swatch; unticked runs lose theirs.
  void assignColors();

  QString m_root;
  QList<RunSummary> m_runs;
  QListWidget* m_list;
  QMenu* m_menu = nullptr;
  QFileSystemWatcher m_watcher;
  QTimer m_refreshSoon;  // watcher signals come in bursts (an atomic write is a create and a rename)
  QString m_activeFolder;
  bool m_resumeAllowed = true;
  QString m_lastError;
  QHash<QString, int> m_colorSlots;  // ticked run folder -> overlayColor slot
};

}  // namespace netsmith::gui
