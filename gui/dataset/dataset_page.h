// DatasetPage: the training and validation sources (IDX image/label pair or Neural Network
// Console CSV), scale and shuffle — edited through the engine's loader like the Config page — and a
// preview of the data: sample count, sample shape, classes, class balance and a grid of samples
// with their labels. Datasets are decoded by the engine's reader on a worker thread.
#pragma once

#include <QFutureWatcher>
#include <QHash>
#include <QWidget>
#include <memory>

#include "engine/data/dataset.h"
#include "gui/document/project_document.h"

class QCustomPlot;
class QGridLayout;
class QLabel;
class QLineEdit;
class QComboBox;

namespace netsmith::gui {

// What the preview shows of one source (computed off the GUI thread).
struct DatasetPreview {
  QString error;  // empty: loaded
  long long size = 0;
  QString shape;
  long long classes = 0;
  QVector<double> classCounts;
  QList<QImage> samples;
  QList<QString> labels;
};

// Sample i of an image dataset ((1,H,W) or (3,H,W)) scaled to its own min/max; null otherwise.
QImage sampleToImage(const Dataset& data, int64_t i);

DatasetPreview previewDataSource(const DataSourceSpec& spec, double scale, int sampleCount);

class DatasetPage : public QWidget {
  Q_OBJECT
 public:
  explicit DatasetPage(ProjectDocument* doc, QWidget* parent = nullptr);
  ~DatasetPage() override;
  void reloadPreview();
  QString summaryText() const;

 signals:
  void previewReady();

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  QWidget* sourceBox(const QString& which, const QString& title);
  void showValues();
  void edited(const QString& path, const Json& value);
  void showPreview(const DatasetPreview& p);

  ProjectDocument* m_doc;
  QHash<QString, QWidget*> m_editors;
  QHash<QString, QLabel*> m_errors;
  QLabel* m_summary;
  QCustomPlot* m_balance;
  QGridLayout* m_grid;
  QWidget* m_gridHost;
  QFutureWatcher<DatasetPreview> m_watcher;
  QString m_previewKey;  // the source the preview shows, so it reloads only when it changes
  bool m_showing = false;
};

}  // namespace netsmith::gui
