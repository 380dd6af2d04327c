// MainWindow: wires the pages (Edit, Dataset, Config, Training, Evaluation) to one ProjectDocument
// and owns the menus and file handling: New, Open, Save, Save As, recent files, the unsaved-changes
// prompt, autosave to a recovery file, window layout in QSettings. No page logic lives here.
#pragma once

#include <QMainWindow>
#include <QTimer>

#include "gui/document/project_document.h"
#include "gui/document/recovery_store.h"

class QTabWidget;
class QMenu;

namespace netsmith::gui {

class EditPage;
class DatasetPage;
class ConfigPage;
class TrainingPage;
class EvaluationPage;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  static constexpr int kAutosaveIntervalMs = 30000;
  // Fits a 1366×768 screen with a taskbar and the window's title bar; pages larger than the room
  // they get scroll.
  static constexpr int kMinimumWidth = 900, kMinimumHeight = 560;

  explicit MainWindow(QWidget* parent = nullptr);

  // Opens `path`; on failure shows the loader's message and keeps the current document.
  bool openProject(const QString& path);
  // Offers the recovery copies left by a crash; returns true if one was restored.
  bool offerRecovery();
  bool save();
  bool saveAs();
  // Writes the recovery copy now (the timer calls it).
  void autosave();
  void showPage(const QString& name);  // "edit", "dataset", "config", "training", "evaluation"

  ProjectDocument* document() { return &m_doc; }
  EditPage* editPage() const { return m_edit; }
  TrainingPage* trainingPage() const { return m_training; }
  DatasetPage* datasetPage() const { return m_dataset; }
  ConfigPage* configPage() const { return m_config; }
  EvaluationPage* evaluationPage() const { return m_evaluation; }
  RecoveryStore& recovery() { return m_recovery; }

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void createMenus();
  void newProject();
  void open();
  // Save / Discard / Cancel when modified; false: the user cancelled.
  bool maybeSave();
  void updateTitle();
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void showMessage(const QString& text);

  ProjectDocument m_doc;
  RecoveryStore m_recovery;
  QTimer m_autosave;
  int m_autosavedIndex = -1;
  QTabWidget* m_tabs;
  EditPage* m_edit;
  DatasetPage* m_dataset;
  ConfigPage* m_config;
  TrainingPage* m_training;
  EvaluationPage* m_evaluation;
  QMenu* m_recentMenu = nullptr;
};

}  // namespace netsmith::gui
