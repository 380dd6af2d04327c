// SweepDialog (Training ▸ Sweep…): a study of the open project through `netsmith-cli sweep`
// (SweepRunner): its trials train it with other values of one or two settings — every
// combination of a grid (and other projects queued to train once each), or drawn at random or by
// TPE from lists and ranges within a trial and a time budget, weak trials stopped early — each on
// its own device or group of devices. The results table fills while the study runs; its best
// row is marked; beside it the study view (study_view.h) draws the trials' parallel coordinates
// and each setting's importance. A row's run can be shown in the Training page's history
// (showRunRequested), its trial opened as a project (openProjectRequested) or its folder opened;
// a stopped study can be resumed.
//
// The sweep trains the project file as saved: with unsaved changes the dialog says so and offers
// to save.
#pragma once

#include <QDialog>

#include "engine/monitor/devices.h"
#include "gui/document/project_document.h"
#include "gui/sweep/search_box.h"
#include "gui/sweep/study_view.h"
#include "gui/sweep/sweep_axis_editor.h"
#include "gui/sweep/sweep_runner.h"
#include "gui/sweep/sweep_table.h"

class QCheckBox;
class QLabel;
class QListWidget;
class QPushButton;
class QSpinBox;

namespace netsmith::gui {

class SweepDialog : public QDialog {
  Q_OBJECT
 public:
  explicit SweepDialog(ProjectDocument* doc, QWidget* parent = nullptr);
  // A devices query still running is cancelled (its answer would reach deleted widgets).
  ~SweepDialog() override;

  SweepAxisEditor* firstAxis() const { return m_axes[0]; }
  SweepAxisEditor* secondAxis() const { return m_axes[1]; }
  QCheckBox* secondAxisBox() const { return m_useSecond; }
  SweepTable* table() const { return m_table; }
  SearchBox* searchBox() const { return m_search; }
  StudyView* studyView() const { return m_studyView; }
  void setDevicesPerTrial(int n);
  SweepRunner* runner() { return &m_runner; }

  // The device list (from `devices --json`, asked for when the dialog is first shown); the ticks
  // start as the project's parallel.devices.
  void setAvailableDevices(const std::vector<DeviceInfo>& devices);
  void setCheckedDevices(const QStringList& ids);
  QStringList checkedDevices() const;
  void addQueuedProject(const QString& file);
  QStringList queuedProjects() const;
  // 0: the project's own.
  void setLimits(int maxEpoch, int trainSamples, int validationSamples);

  // The sweep the fields describe; nullopt with `error` set when it cannot start.
  std::optional<SweepRequest> request(QString* error) const;
  // The same as the buttons. start() returns false with the reason in problemText().
  bool start();
  void stop();
  // Continues the last study after Stop (or a kill): `sweep --resume FOLDER` on the ticked devices.
  bool resume();
  QString problemText() const;
  QString statusText() const;

 signals:
  // Show this run in the Training page's history (the main window decides how).
  void showRunRequested(const QString& runFolder);
  // Open this trial's project file in the console (the main window decides how).
  void openProjectRequested(const QString& projectFile);

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  QWidget* buildSettings();
  QWidget* buildDevices();
  QWidget* buildResults();
  void showContextMenu(const QPoint& at);
  void refreshStudyView();
  void searchChanged();
  void projectChanged();
  void updatePreview();
  void updateButtons();
  void queryDevices();
  void showSelectedRun();
  void openSelectedFolder();
  void openSelectedProject();

  ProjectDocument* m_doc;
  SweepRunner m_runner;
  SweepAxisEditor* m_axes[2];
  QCheckBox* m_useSecond;
  SearchBox* m_search;
  QListWidget* m_devices;
  QSpinBox* m_devicesPerTrial;
  QLabel* m_devicesNote;
  QSpinBox* m_maxEpoch;
  QSpinBox* m_trainSamples;
  QSpinBox* m_validationSamples;
  QLabel* m_unsaved;
  QPushButton* m_save;
  QLabel* m_preview;
  QPushButton* m_start;
  QPushButton* m_stop;
  QPushButton* m_showRun;
  QPushButton* m_openFolder;
  QPushButton* m_openProject;
  QPushButton* m_resume;
  SweepTable* m_table;
  StudyView* m_studyView;
  QLabel* m_status;
  QProcess* m_devicesQuery = nullptr;
  bool m_devicesAsked = false;
};

}  // namespace netsmith::gui
