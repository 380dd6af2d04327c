// SampleBrowser: the evaluated samples with their image, true label, predicted label and a bar of
// the predicted likelihood; a filter shows the worst-classified samples (the evaluation's list,
// misclassified, lowest likelihood for the true class first), the misclassified or all samples
// (from predictions.csv), or one cell of the confusion matrix. The selected sample is shown large
// with every class's likelihood. Images are read from the evaluated dataset by the engine's
// dataset reader on a worker thread, like the Dataset page's preview.
#pragma once

#include <QFutureWatcher>
#include <QWidget>
#include <memory>

#include "engine/data/dataset.h"
#include "gui/evaluation/evaluation_result.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QTableWidget;

namespace netsmith::gui {

struct LoadedDataset {
  std::shared_ptr<const Dataset> data;
  QString error;
};

class SampleBrowser : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kMaxRows = 500;
  enum class Filter { Worst, Misclassified, All, Cell };

  explicit SampleBrowser(QWidget* parent = nullptr);
  ~SampleBrowser() override;

  // Shows `result`'s samples and starts reading its dataset's images (unless it is the same dataset).
  void setResult(const EvaluationResult& result);
  void clear();
  void setFilter(Filter filter);
  // Shows the samples of one confusion-matrix cell.
  void showCell(int trueClass, int predictedClass);
  Filter filter() const;

  const QList<SamplePrediction>& rows() const { return m_rows; }
  bool imagesLoaded() const { return m_data != nullptr; }
  QString imageError() const { return m_imageError; }
  QTableWidget* table() const { return m_table; }

 signals:
  void imagesReady();

 private:
  void fillRows();
  void showImages();
  void showDetail(int row);

  EvaluationResult m_result;
  QList<SamplePrediction> m_rows;
  int m_cellTrue = -1, m_cellPredicted = -1;
  std::shared_ptr<const Dataset> m_data;
  QString m_dataKey, m_imageError;
  QFutureWatcher<LoadedDataset> m_watcher;
  QString m_loadingKey;

  QComboBox* m_filter;
  QLabel* m_count;
  QTableWidget* m_table;
  QLabel* m_image;
  QLabel* m_caption;
  QCustomPlot* m_likelihoods;
};

}  // namespace netsmith::gui
