// RecoveryStore: autosaved copies of unsaved work, so that a crash (of the GUI, the machine or the
// power) loses at most one autosave interval. Each open document has one recovery file, written
// atomically (saveProject) next to a small JSON note naming the file it belongs to. A clean save or
// close removes both; whatever is left at the next start is offered back.
#pragma once

#include <QDateTime>
#include <QList>
#include <QString>

namespace netsmith::gui {

class ProjectDocument;

struct RecoveryEntry {
  QString recoveryFile;  // the autosaved project
  QString originalPath;  // the document's own file; empty for a project never saved
  QString name;          // the project name, for the prompt
  QDateTime savedAt;
};

class RecoveryStore {
 public:
  // `folder` empty: <AppDataLocation>/recovery.
  explicit RecoveryStore(QString folder = {});
  QString folder() const { return m_folder; }

  // Writes the document's recovery copy. Throws netsmith::Error when it cannot.
  void write(const ProjectDocument& doc);
  // Removes the recovery copy for a document whose file is `path` (empty: an unsaved one).
  void discard(const QString& path);
  void discard(const RecoveryEntry& entry);
  // Recovery copies left behind, newest first.
  QList<RecoveryEntry> pending() const;

 private:
  QString baseNameFor(const QString& path) const;

  QString m_folder;
};

}  // namespace netsmith::gui
