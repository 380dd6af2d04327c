// CreateDatasetDialog: the Dataset page's "Create from folder…": the options of `netsmith-cli
// dataset create SOURCE --output DIR [--size WxH] [--channels 1|3] [--resize MODE] [--validation
// PERCENT] [--seed N] [--overwrite]`, with the CLI's defaults, and the engine's builder
// (buildFolderDataset, Note [Folder dataset]) run on a worker thread with a progress bar and
// Cancel. A cancelled or failed build leaves no DIR (the builder writes a hidden sibling folder and
// renames it at the end). When the build succeeds the dialog emits created() and turns into the
// summary: images per split, classes, the image size and why, skipped files with their reasons
// and duplicates in a list the person can scroll.
#pragma once

#include <QDialog>
#include <QFutureWatcher>
#include <atomic>
#include <memory>
#include <optional>

#include "engine/data/folder/dataset_builder.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace netsmith::gui {

// What one build gave: the result, or the builder's error sentence.
struct FolderBuildOutcome {
  std::optional<FolderDatasetResult> result;
  QString error;
};

// The options the dialog's fields mean; a sentence saying what to change when they are not valid.
struct DialogOptions {
  FolderDatasetOptions options;
  QString problem;
};

class CreateDatasetDialog : public QDialog {
  Q_OBJECT
 public:
  explicit CreateDatasetDialog(QWidget* parent = nullptr);
  ~CreateDatasetDialog() override;  // a running build is cancelled and waited for

  void setSource(const QString& folder);
  void setOutput(const QString& folder);
  DialogOptions options() const;

  // Starts the build of what the fields say (the Create button); false, with the reason shown,
  // when the fields are not valid or a build is running.
  bool start();
  // Asks a running build to stop (the Cancel button while building).
  void cancelBuild();
  bool isBuilding() const;

  // After a build: its outcome (nullopt before the first one ends).
  const std::optional<FolderBuildOutcome>& outcome() const { return m_outcome; }
  QString statusText() const;
  QString summaryText() const;
  // The summary's list: the classes with their counts, the skipped files with the reasons, the
  // duplicates, one line each.
  QStringList listedLines() const;
  // A line under the summary (the page says what it did with the dataset).
  void setProjectNote(const QString& html);

 signals:
  // A build ended with a dataset (GUI thread).
  void created(const netsmith::FolderDatasetResult& result);
  // A build ended: created, cancelled or failed.
  void buildFinished();

 protected:
  void reject() override;  // Esc, the window's close button, Cancel when idle

 private:
  void sourceChanged();
  void showProgress(const BuildProgress& p);
  void finishBuild();
  void showSummary(const FolderDatasetResult& r);
  void setBuilding(bool building);

  QLineEdit* m_source;
  QLineEdit* m_output;
  QComboBox* m_size;
  QComboBox* m_channels;
  QComboBox* m_resize;
  QDoubleSpinBox* m_validation;
  QLabel* m_validationNote;
  QSpinBox* m_seed;
  QCheckBox* m_overwrite;
  QWidget* m_form;
  QLabel* m_intro;
  QLabel* m_stage;
  QProgressBar* m_progress;
  QLabel* m_summary;
  QListWidget* m_files;
  QLabel* m_projectNote;
  QPushButton* m_create;
  QPushButton* m_cancel;
  QFutureWatcher<FolderBuildOutcome> m_watcher;
  std::shared_ptr<std::atomic<bool>> m_cancelFlag;
  std::optional<FolderBuildOutcome> m_outcome;
  bool m_closeWhenDone = false;
  bool m_outputEdited = false;
};

}  // namespace netsmith::gui

Q_DECLARE_METATYPE(netsmith::FolderDatasetResult)
