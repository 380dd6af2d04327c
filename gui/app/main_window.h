// MainWindow: wires the pages (Edit, Dataset, Config, Training, Evaluation) to one ProjectDocument
// and owns the menus and file handling: New, New from sample, Open, Save, Save As, recent files,
// the unsaved-changes prompt, autosave to a recovery file, window layout in QSettings, and the Help
// menu (F1: this page's section of the documentation; Note [Help locations]). No page logic lives
// here. main_window.cpp: the pages, the menus, help and closing; main_window_files.cpp: the
// project file (new, open, save, recovery, recent files).
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
  // Save As without the dialog: `path` (".nsproj" added when missing).
  bool saveAsFile(QString path);
  // Writes the recovery copy now (the timer calls it).
  void autosave();
  void showPage(const QString& name);  // "edit", "dataset", "config", "training", "evaluation"
  QString currentPage() const;

  // File > New from sample: the sample `file` as a new project that has no file yet (unsaved; the
  // sample itself is never written). False when the user cancelled or the file cannot be read.
  bool newFromSample(const QString& file);
  // File ▸ New from template: the dialog (TemplateDialog), then a new unsaved project with the
  // current project's settings and the template's network. Returns false when cancelled.
  bool newFromTemplate();
  // A new unsaved project: the current one's settings with `network`, named `name`.
  bool newProjectWithNetwork(const NetworkSpec& network, const QString& name);
  // Help > Help on this page (F1): the page's section of gui.md in the help window.
  void showPageHelp();
  // Help > Documentation: docs/gui.md in the desktop's viewer (QDesktopServices).
  void openDocumentation();
  QMenu* samplesMenu() const { return m_samplesMenu; }
  class HelpViewer* helpViewer() const { return m_helpViewer; }

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
  QMenu* m_samplesMenu = nullptr;
  class HelpViewer* m_helpViewer = nullptr;
};

}  // namespace netsmith::gui
