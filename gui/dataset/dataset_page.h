// DatasetPage: the training and validation sources (IDX image/label pair or Neural Network
// Console CSV), scale and shuffle — edited through the engine's loader like the Config page — and a
// preview of the data: sample count, sample shape, classes, class balance (named after
// classes.txt when there is one), a grid of samples per class, and what config.augmentation
// does to a few samples. Datasets are decoded by the engine's reader on a worker thread.
// "Create from folder…" builds a dataset from a folder of class folders (CreateDatasetDialog) and
// makes it the project's dataset in one undo step.
//
// dataset_page.cpp: the fields and the dataset made from a folder; dataset_page_preview.cpp: the
// preview shown (dataset_preview.h reads it).
#pragma once

#include <QFutureWatcher>
#include <QHash>
#include <QPointer>
#include <QWidget>
#include <memory>

#include "engine/data/dataset.h"
#include "engine/data/folder/dataset_builder.h"
#include "gui/dataset/augmentation_preview.h"
#include "gui/dataset/class_grid.h"
#include "gui/dataset/dataset_preview.h"
#include "gui/document/project_document.h"

class QCustomPlot;
class QFormLayout;
class QGridLayout;
class QLabel;
class QLineEdit;
class QComboBox;
class QGroupBox;

namespace netsmith::gui {

class CreateDatasetDialog;

class DatasetPage : public QWidget {
  Q_OBJECT
 public:
  explicit DatasetPage(ProjectDocument* doc, QWidget* parent = nullptr);
  ~DatasetPage() override;
  void reloadPreview();
  QString summaryText() const;
  // Opens "Create from folder…" (window-modal, returns at once); the page applies what it creates.
  CreateDatasetDialog* openCreateDialog();
  // Makes the created dataset the project's: training.csv, validation.csv when there is one,
  // format csv, scale 1/255, one undo step. Returns the loader's refusal, empty when applied.
  QString useCreatedDataset(const FolderDatasetResult& result);
  ClassGrid* classGrid() const { return m_classGrid; }
  AugmentationPreview* augmentationPreview() const { return m_augment; }
  QCustomPlot* balancePlot() const { return m_balance; }
  bool isAugmentationShown() const;

 signals:
  void previewReady();

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  QWidget* sourceBox(const QString& which, const QString& title);
  void showValues();
  void edited(const QString& path, const Json& value);
  void formatChosen(const QString& base, const QString& format);
  void applyPendingSource(const QString& base);
  static QStringList sourceKeys(const QString& format);
  void showPreview(const DatasetPreview& p);
  void showAugmentation();
  QString previewKey() const;

  ProjectDocument* m_doc;
  QHash<QString, QWidget*> m_editors;
  QHash<QString, QLabel*> m_errors;
  QHash<QString, QPair<QFormLayout*, QWidget*>> m_pathRows;  // "dataset.training.csv": its form row
  QLabel* m_summary;
  QCustomPlot* m_balance;
  ClassGrid* m_classGrid;
  QGroupBox* m_augmentBox;
  AugmentationPreview* m_augment;
  QPointer<CreateDatasetDialog> m_createDialog;
  QFutureWatcher<DatasetPreview> m_watcher;
  QString m_previewKey;  // the source the preview shows, so it reloads only when it changes
  bool m_showing = false;
  QHash<QString, Json> m_pendingSource;  // "dataset.training": a format switch waiting for its files (Note [Format switch])
};

}  // namespace netsmith::gui
