// MainWindow (main_window.h): the project file: New, Open, Save, Save As (which moves the runs of
// a project trained before its first Save), the autosaved recovery copy, and the recent files.
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QTabWidget>

#include "engine/core/error.h"
#include "gui/app/main_window.h"
#include "gui/evaluation/evaluation_page.h"
#include "gui/training/run_history.h"
#include "gui/training/training_page.h"

namespace netsmith::gui {

namespace {
constexpr int kMaxRecentFiles = 8;
}  // namespace

bool MainWindow::maybeSave() {
  if (!m_doc.isModified()) return true;
  const auto answer = QMessageBox::warning(this, tr("Unsaved changes"),
                                           tr("%1 has changes that are not saved. Save them?").arg(m_doc.displayName()),
                                           QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (answer == QMessageBox::Save) return save();
  return answer == QMessageBox::Discard;
}

void MainWindow::newProject() {
  if (!maybeSave()) return;
  m_recovery.discard(m_doc.path());
  m_doc.newProject();
  m_tabs->setCurrentIndex(0);  // Edit
}

void MainWindow::open() {
  if (!maybeSave()) return;
  const QString dir = m_doc.path().isEmpty() ? QString() : QFileInfo(m_doc.path()).absolutePath();
  const QString path = QFileDialog::getOpenFileName(this, tr("Open project"), dir, tr("Netsmith projects (*.nsproj);;All files (*)"));
  if (!path.isEmpty()) openProject(path);
}

bool MainWindow::openProject(const QString& path) {
  const QString previous = m_doc.path();
  try {
    m_doc.load(path);
  } catch (const Error& e) {
    QMessageBox::critical(this, tr("Cannot open the project"), qs(e.what()));
    return false;
  }
  if (previous != m_doc.path()) m_recovery.discard(previous);
  addRecent(m_doc.path());
  showMessage(tr("Opened %1").arg(m_doc.path()));
  return true;
}

bool MainWindow::save() {
  if (m_doc.path().isEmpty()) return saveAs();
  try {
    m_doc.save(m_doc.path());
  } catch (const Error& e) {
    QMessageBox::critical(this, tr("Cannot save the project"), tr("%1\n\nYour changes are still open here; try Save As.").arg(qs(e.what())));
    return false;
  }
  m_recovery.discard(m_doc.path());
  addRecent(m_doc.path());
  showMessage(tr("Saved %1").arg(m_doc.path()));
  return true;
}

bool MainWindow::saveAs() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Save project as"), m_doc.path(), tr("Netsmith projects (*.nsproj)"));
  return !path.isEmpty() && saveAsFile(path);
}

bool MainWindow::saveAsFile(QString path) {
  if (!path.endsWith(QLatin1String(".nsproj"))) path += QStringLiteral(".nsproj");
  const QString old = m_doc.path();
  // Note [Runs before the first Save]: where the runs of the project without a file went.
  const QString unsavedRuns = old.isEmpty() ? runsRootFor({}, qs(m_doc.settings().name)) : QString();
  try {
    m_doc.save(path);
  } catch (const Error& e) {
    QMessageBox::critical(this, tr("Cannot save the project"), qs(e.what()));
    return false;
  }
  m_recovery.discard(old);
  m_recovery.discard(m_doc.path());
  addRecent(m_doc.path());
  const QString adopted = unsavedRuns.isEmpty() ? QString() : m_training->adoptUnsavedRuns(unsavedRuns);
  if (!adopted.isEmpty()) m_evaluation->refreshRuns();  // it listed the runs folder before they moved in
  showMessage(adopted.isEmpty() ? tr("Saved %1").arg(m_doc.path()) : tr("Saved %1; %2").arg(m_doc.path(), adopted));
  return true;
}

void MainWindow::autosave() {
  if (!m_doc.isModified()) return;
  if (m_doc.undoStack()->index() == m_autosavedIndex) return;  // nothing new since the last copy
  try {
    m_recovery.write(m_doc);
    m_autosavedIndex = m_doc.undoStack()->index();
  } catch (const Error& e) {
    showMessage(tr("Autosave failed: %1").arg(qs(e.what())));
  }
}

bool MainWindow::offerRecovery() {
  const auto pending = m_recovery.pending();
  if (pending.isEmpty()) return false;
  const RecoveryEntry& newest = pending.first();
  const QString what = newest.originalPath.isEmpty() ? tr("an unsaved project '%1'").arg(newest.name) : newest.originalPath;
  const auto answer = QMessageBox::question(
      this, tr("Recover unsaved work"),
      tr("Netsmith did not close normally. Unsaved changes to %1 from %2 were kept.\n\nRestore them?")
          .arg(what, QLocale().toString(newest.savedAt, QLocale::ShortFormat)),
      QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes);
  if (answer != QMessageBox::Yes) {
    for (const auto& e : pending) m_recovery.discard(e);
    return false;
  }
  try {
    m_doc.loadRecovered(newest.recoveryFile, newest.originalPath);
  } catch (const Error& e) {
    QMessageBox::critical(this, tr("Cannot restore"), qs(e.what()));
    return false;
  }
  showMessage(tr("Restored unsaved changes; save them to keep them."));
  return true;
}

void MainWindow::addRecent(const QString& path) {
  QSettings settings;
  QStringList recent = settings.value(QStringLiteral("recentFiles")).toStringList();
  recent.removeAll(path);
  recent.prepend(path);
  while (recent.size() > kMaxRecentFiles) recent.removeLast();
  settings.setValue(QStringLiteral("recentFiles"), recent);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  m_recentMenu->clear();
  const QStringList recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
  for (const QString& path : recent)
    m_recentMenu->addAction(QFileInfo(path).fileName() + QStringLiteral("  —  ") + QFileInfo(path).absolutePath(), this,
                            [this, path] {
                              if (maybeSave()) openProject(path);
                            });
  m_recentMenu->setEnabled(!recent.isEmpty());
}

}  // namespace netsmith::gui
