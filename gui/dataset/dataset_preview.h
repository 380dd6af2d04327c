// The Dataset page's preview of one data source, read off the GUI thread: its size, sample shape,
// classes and class balance, the first samples of each class as images, and a few samples for the
// augmentation preview. The Evaluation page's sample browser draws its samples with sampleToImage.
#pragma once

#include <QImage>
#include <QList>
#include <QString>
#include <QStringList>
#include <QVector>

#include "engine/data/dataset.h"
#include "engine/project/project.h"
#include "gui/dataset/augmentation_preview.h"
#include "gui/dataset/class_grid.h"

namespace netsmith::gui {

// What the preview shows of one source (computed off the GUI thread).
struct DatasetPreview {
  QString error;  // empty: loaded
  long long size = 0;
  QString shape;
  long long classes = 0;
  QVector<double> classCounts;
  QStringList classNames;          // classes.txt; empty when unnamed
  bool images = false;             // samples are (1,H,W) or (3,H,W)
  QList<ClassSamples> classRows;   // the first classes' first samples (vector labels: one row)
  QList<AugmentSource> augmentSources;
};

// Sample i of an image dataset ((1,H,W) or (3,H,W)) scaled to its own min/max; null otherwise.
QImage sampleToImage(const Dataset& data, int64_t i);

// Reads `spec` and picks `perClass` samples of each of the first kMaxClassRows classes and
// `augmentCount` samples (of different classes) for the augmentation preview.
inline constexpr int kMaxClassRows = 100;
DatasetPreview previewDataSource(const DataSourceSpec& spec, double scale, int perClass, int augmentCount = 2);

}  // namespace netsmith::gui
