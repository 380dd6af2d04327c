// ConfusionMatrixPlot: the confusion matrix as a heat map (QCustomPlot's QCPColorMap), rows the
// true class (class 0 at the top), columns the predicted class, each cell coloured by its share
// of the row (so a class's recall reads along the diagonal whatever its size) and labelled with
// its count. Clicking a cell emits cellClicked.
#pragma once

#include <QVector>
#include <QWidget>

class QCustomPlot;
class QCPColorMap;

namespace netsmith::gui {

class ConfusionMatrixPlot : public QWidget {
  Q_OBJECT
 public:
  explicit ConfusionMatrixPlot(QWidget* parent = nullptr);

  // counts[true][predicted]; names: one per class (axis labels).
  void setMatrix(const QVector<QVector<long long>>& counts, const QStringList& names);
  void clear();
  QCustomPlot* plot() const { return m_plot; }
  // The text written in cell (true, predicted), for tests; empty when none.
  QString cellText(int trueClass, int predictedClass) const;
  // The colour map's value at a cell: the count's share of its row, 0..1.
  double cellValue(int trueClass, int predictedClass) const;

 signals:
  void cellClicked(int trueClass, int predictedClass);

 private:
  QCustomPlot* m_plot;
  QCPColorMap* m_map;
  QVector<QVector<long long>> m_counts;
};

}  // namespace netsmith::gui
