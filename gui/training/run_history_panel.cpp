#include "gui/training/run_history_panel.h"

#include <QDesktopServices>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QInputDialog>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QUrl>
#include <QVBoxLayout>

#include "engine/train/run_folder.h"
#include "gui/training/chart_colors.h"
#include "gui/training/run_compare_window.h"

namespace netsmith::gui {

RunHistoryPanel::RunHistoryPanel(QWidget* parent) : QGroupBox(tr("Run history (tick to overlay; right-click for more)"), parent) {
  m_list = new QListWidget(this);
  m_list->setObjectName(QStringLiteral("runHistory"));
  m_list->setToolTip(tr("Past runs of this project; tick one to overlay its learning curve, right-click to compare "
                        "it with another (or select two with Ctrl+click), resume, rename, open or delete it."));
  m_list->setContextMenuPolicy(Qt::CustomContextMenu);
  m_list->setSelectionMode(QAbstractItemView::ExtendedSelection);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_list);

  ask = [this](const QString& title, const QString& question) {
    return QMessageBox::question(this, title, question, QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel) ==
           QMessageBox::Yes;
  };
  askLabel = [this](const QString& current) -> std::optional<QString> {
    bool ok = false;
    const QString text = QInputDialog::getText(this, tr("Rename run"), tr("A name for this run (empty: none):"),
                                               QLineEdit::Normal, current, &ok);
    return ok ? std::optional<QString>(text) : std::nullopt;
  };
  openUrl = [](const QUrl& url) { QDesktopServices::openUrl(url); };

  connect(m_list, &QListWidget::itemChanged, this, [this] {
    assignColors();
    emit overlaysChanged();
  });
  connect(m_list, &QListWidget::customContextMenuRequested, this, &RunHistoryPanel::showMenu);
  // Note: only folders are watched, not events.jsonl: a run's status changes where run.json is
  // (re)written, which is an atomic rename in the run folder (created, resumed, stopped, failed,
  // completed), and each epoch renames learning_curve.csv there too; a file watch on events.jsonl
  // would refresh the list at every iteration event of a running engine.
  m_refreshSoon.setSingleShot(true);
  m_refreshSoon.setInterval(300);
  connect(&m_refreshSoon, &QTimer::timeout, this, &RunHistoryPanel::refresh);
  connect(&m_watcher, &QFileSystemWatcher::directoryChanged, this, &RunHistoryPanel::scheduleRefresh);
}

void RunHistoryPanel::setRunsRoot(const QString& root) {
  m_root = root;
  refresh();
}

void RunHistoryPanel::scheduleRefresh() {
  if (!m_refreshSoon.isActive()) m_refreshSoon.start();
}

void RunHistoryPanel::watch() {
  const QStringList watched = m_watcher.directories();
  if (!watched.isEmpty()) m_watcher.removePaths(watched);
  if (m_root.isEmpty()) return;
  QStringList paths;
  if (QFileInfo(m_root).isDir()) {
    paths << m_root;
    for (const RunSummary& run : m_runs) paths << run.folder;
  } else {
    // No run yet: watch the nearest folder that exists, to see the runs folder appear.
    QDir up(m_root);
    while (!up.exists() && up.cdUp()) {
    }
    if (up.exists()) paths << up.absolutePath();
  }
  if (!paths.isEmpty()) m_watcher.addPaths(paths);
}

void RunHistoryPanel::refresh() {
  QSet<QString> ticked;
  for (int i = 0; i < m_list->count(); ++i)
    if (m_list->item(i)->checkState() == Qt::Checked) ticked << m_list->item(i)->data(Qt::UserRole).toString();
  // The selection too (two runs picked to compare): a run writing its folder must not drop it.
  const QStringList selected = selectedFolders();
  m_runs = m_root.isEmpty() ? QList<RunSummary>() : listRuns(m_root);
  {
    const QSignalBlocker block(m_list);
    m_list->clear();
    for (const RunSummary& run : m_runs) {
      QString text = QStringLiteral("%1 · %2").arg(run.displayName(), run.status.isEmpty() ? tr("no events") : run.status);
      if (!run.sweepLabel.isEmpty()) text = tr("sweep ") + text;
      if (run.epochs > 0) text += tr(" · %n epoch(s)", nullptr, static_cast<int>(run.epochs));
      if (hasValue(run.bestValidationError)) text += tr(" · best error %1%").arg(100 * run.bestValidationError, 0, 'f', 2);
      if (run.resumable()) text += tr(" · resumable");
      auto* item = new QListWidgetItem(text, m_list);
      item->setData(Qt::UserRole, run.folder);
      item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsUserCheckable);
      item->setCheckState(ticked.contains(run.folder) ? Qt::Checked : Qt::Unchecked);
      item->setSelected(selected.contains(run.folder));
      item->setToolTip(run.message.isEmpty() ? QDir::toNativeSeparators(run.folder)
                                             : QDir::toNativeSeparators(run.folder) + QLatin1Char('\n') + run.message);
    }
  }
  assignColors();
  watch();
  emit overlaysChanged();
  emit refreshed();
}

QList<CurvePoints> RunHistoryPanel::overlays() const {
  QList<CurvePoints> curves;
  for (int i = 0; i < m_list->count() && i < m_runs.size(); ++i) {
    if (m_list->item(i)->checkState() != Qt::Checked) continue;
    CurvePoints curve = readLearningCurve(m_runs[i].folder);
    const RunSummary& run = m_runs[i];
    if (!run.label.isEmpty()) curve.label = run.label;
    else if (!run.sweepLabel.isEmpty()) curve.label = run.sweepLabel;
    curve.colorSlot = colorSlot(run.folder);
    curves << curve;
  }
  return curves;
}

namespace {
// A ticked run's colour beside its name: the key of its dotted and dash-dotted lines on the chart.
// An unticked run gets an empty one, so that the names stay in line.
QIcon swatch(const QColor& color) {
  QPixmap pixmap(16, 12);
  pixmap.fill(Qt::transparent);
  if (!color.isValid()) return QIcon(pixmap);
  QPainter painter(&pixmap);
  painter.setRenderHint(QPainter::Antialiasing);
  painter.setPen(color.darker(130));
  painter.setBrush(color);
  painter.drawRoundedRect(QRectF(1.5, 1.5, 13, 9), 2, 2);
  return QIcon(pixmap);
}
}  // namespace

void RunHistoryPanel::assignColors() {
  const QSignalBlocker block(m_list);  // an icon is item data too: no itemChanged from here
  QHash<QString, int> kept;
  QList<QListWidgetItem*> fresh;
  for (int i = 0; i < m_list->count(); ++i) {
    QListWidgetItem* item = m_list->item(i);
    const QString folder = item->data(Qt::UserRole).toString();
    if (item->checkState() != Qt::Checked) continue;
    if (m_colorSlots.contains(folder)) kept.insert(folder, m_colorSlots.value(folder));
    else fresh << item;
  }
  // Newly ticked runs take the lowest slots no ticked run holds, in list order.
  for (QListWidgetItem* item : fresh) {
    int slot = 0;
    while (std::find(kept.cbegin(), kept.cend(), slot) != kept.cend()) ++slot;
    kept.insert(item->data(Qt::UserRole).toString(), slot);
  }
  m_colorSlots = kept;
  for (int i = 0; i < m_list->count(); ++i) {
    QListWidgetItem* item = m_list->item(i);
    const int slot = m_colorSlots.value(item->data(Qt::UserRole).toString(), -1);
    item->setIcon(swatch(slot >= 0 ? overlayColor(slot) : QColor()));
  }
}

const RunSummary* RunHistoryPanel::runAt(const QString& folder) const {
  for (const RunSummary& run : m_runs)
    if (run.folder == folder) return &run;
  return nullptr;
}

void RunHistoryPanel::fail(const QString& message) {
  m_lastError = message;
  emit actionFailed(message);
}

// --- the context menu ----------------------------------------------------------------------------

void RunHistoryPanel::showMenu(const QPoint& at) {
  QListWidgetItem* item = m_list->itemAt(at);
  if (!item) return;
  contextMenuFor(item->data(Qt::UserRole).toString())->popup(m_list->viewport()->mapToGlobal(at));
}

QMenu* RunHistoryPanel::contextMenuFor(const QString& folder) {
  delete m_menu;
  m_menu = new QMenu(this);
  const RunSummary* run = runAt(folder);
  const bool active = folder == m_activeFolder;
  const bool resumable = run && run->resumable() && m_resumeAllowed && !active;
  // Compare: the two selected runs when this is one of them, else this run with any other.
  const QStringList selected = selectedFolders();
  if (selected.size() == 2 && selected.contains(folder)) {
    m_menu->addAction(tr("Compare the two selected runs"), this, [this, selected] { compareRuns(selected[0], selected[1]); })
        ->setObjectName(QStringLiteral("compareSelected"));
  }
  QMenu* compareWith = m_menu->addMenu(tr("Compare with"));
  compareWith->menuAction()->setObjectName(QStringLiteral("compareWith"));
  compareWith->setToolTip(tr("What changed between the two runs (settings, network, run options, results) beside "
                             "their learning curves"));
  for (const RunSummary& other : std::as_const(m_runs)) {
    if (other.folder == folder) continue;
    compareWith->addAction(other.displayName(), this, [this, folder, other = other.folder] { compareRuns(folder, other); })
        ->setData(other.folder);
  }
  compareWith->setEnabled(!compareWith->isEmpty());
  m_menu->addSeparator();
  const QString why = !run ? tr("the run is gone")
                      : active ? tr("this run is training now")
                      : !m_resumeAllowed ? tr("a run is training now")
                      : !run->hasCheckpoint ? tr("the run has no checkpoint")
                                            : tr("the run %1").arg(run->status.isEmpty() ? tr("has no events") : run->status);
  QAction* resume = m_menu->addAction(tr("Resume"), this, [this, folder] { emit resumeRequested(folder, false); });
  resume->setObjectName(QStringLiteral("resume"));
  QAction* resumeTicked = m_menu->addAction(tr("Resume on the ticked devices"), this,
                                            [this, folder] { emit resumeRequested(folder, true); });
  resumeTicked->setObjectName(QStringLiteral("resumeOnTickedDevices"));
  for (QAction* a : {resume, resumeTicked}) {
    a->setEnabled(resumable);
    if (!resumable) a->setToolTip(tr("Cannot resume: %1").arg(why));
  }
  m_menu->setToolTipsVisible(true);
  m_menu->addSeparator();
  QAction* overlay = m_menu->addAction(tr("Overlay on the chart"));
  overlay->setObjectName(QStringLiteral("overlay"));
  overlay->setCheckable(true);
  for (int i = 0; i < m_list->count(); ++i)
    if (m_list->item(i)->data(Qt::UserRole).toString() == folder) overlay->setChecked(m_list->item(i)->checkState() == Qt::Checked);
  connect(overlay, &QAction::toggled, this, [this, folder](bool on) { setCompared(folder, on); });
  m_menu->addAction(tr("Rename…"), this, [this, folder] {
          const RunSummary* r = runAt(folder);
          if (const auto label = askLabel(r ? r->label : QString())) renameRun(folder, *label);
        })->setObjectName(QStringLiteral("rename"));
  m_menu->addAction(tr("Open folder"), this, [this, folder] { openRunFolder(folder); })
      ->setObjectName(QStringLiteral("openFolder"));
  m_menu->addSeparator();
  QAction* remove = m_menu->addAction(tr("Delete…"), this, [this, folder] { deleteRun(folder); });
  remove->setObjectName(QStringLiteral("delete"));
  remove->setEnabled(!active);
  return m_menu;
}

void RunHistoryPanel::setCompared(const QString& folder, bool compared) {
  for (int i = 0; i < m_list->count(); ++i)
    if (m_list->item(i)->data(Qt::UserRole).toString() == folder)
      m_list->item(i)->setCheckState(compared ? Qt::Checked : Qt::Unchecked);  // itemChanged: overlaysChanged
}

QStringList RunHistoryPanel::selectedFolders() const {
  QStringList folders;
  for (int i = 0; i < m_list->count(); ++i)
    if (m_list->item(i)->isSelected()) folders << m_list->item(i)->data(Qt::UserRole).toString();
  return folders;
}

RunCompareWindow* RunHistoryPanel::compareRuns(const QString& folderA, const QString& folderB) {
  // The older run is A: folder names start with their time stamp.
  const bool swap = QFileInfo(folderB).fileName() < QFileInfo(folderA).fileName();
  const QString a = swap ? folderB : folderA, b = swap ? folderA : folderB;
  const auto name = [this](const QString& folder) {
    const RunSummary* run = runAt(folder);
    return run ? run->displayName() : QFileInfo(folder).fileName();
  };
  auto* window = new RunCompareWindow(a, name(a), b, name(b), this);
  window->show();
  window->raise();
  return window;
}

bool RunHistoryPanel::renameRun(const QString& folder, const QString& label) {
  QString error;
  if (!writeRunLabel(folder, label, &error)) {
    fail(tr("Cannot rename the run: %1").arg(error));
    return false;
  }
  refresh();
  return true;
}

void RunHistoryPanel::openRunFolder(const QString& folder) { openUrl(QUrl::fromLocalFile(folder)); }

bool RunHistoryPanel::deleteRun(const QString& folder) {
  if (folder == m_activeFolder) {
    fail(tr("Cannot delete %1: this run is training now; stop it first.").arg(QDir::toNativeSeparators(folder)));
    return false;
  }
  const RunSummary* run = runAt(folder);
  const QString name = run ? run->displayName() : QFileInfo(folder).fileName();
  // Another process (a CLI run or resume) holds the folder's lock: never delete under it. The
  // lock is let go at once (before the folder moves).
  try {
    RunFolderLock::acquire(folder.toStdString());
  } catch (const std::exception& e) {
    fail(tr("Cannot delete %1: %2").arg(name, QString::fromUtf8(e.what())));
    return false;
  }
  if (!ask(tr("Delete run"), tr("Move the run %1 (%2) to the trash? Its checkpoints, parameters and learning curve go "
                                "with it.")
                                 .arg(name, QDir::toNativeSeparators(folder))))
    return false;
  if (!QFile::moveToTrash(folder)) {
    // No trash here (a headless machine, another file system): only on a second, explicit yes.
    if (!ask(tr("Delete run permanently"),
             tr("There is no trash for %1. Delete the run %2 permanently? This cannot be undone.")
                 .arg(QDir::toNativeSeparators(folder), name)))
      return false;
    if (!QDir(folder).removeRecursively()) {
      fail(tr("Cannot delete %1 completely; what is left stays there.").arg(QDir::toNativeSeparators(folder)));
      refresh();
      return false;
    }
  }
  refresh();
  return true;
}

}  // namespace netsmith::gui
