// ClassGrid: the Dataset page's samples per class: one row per class with its label, name (from
// classes.txt; the number when unnamed) and sample count, then the first few samples of that
// class as thumbnails (sample_thumbnails.h).
#pragma once

#include <QImage>
#include <QList>
#include <QWidget>

class QGridLayout;
class QLabel;

namespace netsmith::gui {

// One class's row, computed off the GUI thread by previewDataSource.
struct ClassSamples {
  int label = 0;
  QString name;  // empty: unnamed
  long long count = 0;
  QList<QImage> images;
  QList<long long> indices;  // the samples' indices in the dataset
};

class ClassGrid : public QWidget {
  Q_OBJECT
 public:
  explicit ClassGrid(QWidget* parent = nullptr);

  // `totalClasses` > classes.size(): a line says only the first rows are shown.
  void setClasses(const QList<ClassSamples>& classes, long long totalClasses);
  // No rows; `message` instead (vector data, an unreadable source).
  void showMessage(const QString& message);

  int rowCount() const { return m_classes.size(); }
  // "T-shirt_top" or, unnamed, "class 3".
  QString rowName(int row) const;
  QList<QImage> rowImages(int row) const { return m_classes.value(row).images; }

 private:
  void clearRows();
  QGridLayout* m_grid;
  QLabel* m_message;
  QList<ClassSamples> m_classes;
};

}  // namespace netsmith::gui
