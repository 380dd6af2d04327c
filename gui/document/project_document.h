// ProjectDocument: the open project — its settings (dataset, config, optimizer, parallel), its
// network (a GraphDocument) and the one QUndoStack every edit goes through. Modified means "the
// undo stack is not at its clean index", so undoing back to the saved state is unmodified again.
//
// Loading and saving use the engine's project_io (one reader and writer of the format): a load
// keeps every key the user wrote, a save is atomic (saveProject writes a temporary file and
// renames it). GUI thread only.
#pragma once

#include <QObject>
#include <QUndoCommand>
#include <QUndoStack>

#include "engine/project/project.h"
#include "gui/document/graph_document.h"

namespace netsmith::gui {

class ProjectDocument : public QObject {
  Q_OBJECT
 public:
  explicit ProjectDocument(QObject* parent = nullptr);

  // The name of File ▸ New's project, until its first Save names it after its file.
  static constexpr const char* kNewProjectName = "Untitled";

  // The settings of File ▸ New: an empty network and the Fashion-MNIST dataset.
  static Project newProjectSettings();
  void newProject();
  // A new unsaved project holding `project` (File ▸ New from template): no file, modified, so
  // closing asks to save it.
  void newProject(const Project& project);
  // Throws netsmith::Error (naming the file and JSON path) and leaves the document as it was.
  // A network with problems is loaded (its blocks are marked), other problems refuse the file.
  void load(const QString& path);
  // Loads `file` (a recovery copy) but takes `path` as the document's file, modified.
  void loadRecovered(const QString& file, const QString& path);
  // Atomic save; throws netsmith::Error with the reason. On success `path` becomes the document's.
  void save(const QString& path);

  // The whole project as the file would hold it.
  Project toProject() const;
  std::string toText(const QString& path = {}) const;

  const Project& settings() const { return m_settings; }
  void setSettings(const Project& settings);  // raw edit, for SettingsCommand
  GraphDocument* graph() { return &m_graph; }
  const GraphDocument* graph() const { return &m_graph; }
  QUndoStack* undoStack() { return &m_undo; }

  QString path() const { return m_path; }
  QString displayName() const;  // the file name, or the project name when never saved
  bool isModified() const { return !m_undo.isClean() || m_modifiedWithoutUndo; }

 signals:
  void settingsChanged();
  void pathChanged(const QString& path);
  void modifiedChanged(bool modified);
  void loaded();  // after new/load: every view rebuilds

 private:
  void adopt(const Project& project, const QString& path);

  Project m_settings;  // network left empty: the network lives in m_graph
  GraphDocument m_graph;
  QUndoStack m_undo;
  QString m_path;
  bool m_modifiedWithoutUndo = false;  // a recovered copy is unsaved work with no undo history
};

// Changes the settings. Consecutive edits of the same field (`field`, e.g. "config.batch_size")
// merge into one undo step, so typing 128 is one step, not three.
class SettingsCommand : public QUndoCommand {
 public:
  static constexpr int kId = 0x4e53'0002;
  SettingsCommand(ProjectDocument* doc, Project before, Project after, const QString& field);
  void redo() override;
  void undo() override;
  int id() const override { return kId; }
  bool mergeWith(const QUndoCommand* other) override;

 private:
  ProjectDocument* m_doc;
  Project m_before, m_after;
  QString m_field;
};

}  // namespace netsmith::gui
