// The Dataset page's preview of one data source (dataset_preview.h), read off the GUI thread.
#include "gui/dataset/dataset_preview.h"

#include <QObject>
#include <algorithm>

#include "engine/core/shape.h"
#include "engine/data/dataset.h"
#include "gui/dataset/sample_thumbnails.h"
#include "gui/document/qt_text.h"

namespace netsmith::gui {

QImage sampleToImage(const Dataset& data, int64_t i) {
  // Images: (1,H,W) or (3,H,W), shown with their own min/max so any scale displays.
  const auto& s = data.sampleShape;
  if (s.size() != 3 || (s[0] != 1 && s[0] != 3) || i < 0 || i >= data.size) return {};
  const std::vector<float> values = data.sampleValues(i);
  return imageFromValues(values.data(), s);
}

DatasetPreview previewDataSource(const DataSourceSpec& spec, double scale, int perClass, int augmentCount) {
  DatasetPreview p;
  try {
    const Dataset data = loadDataSource(spec, scale, "skip");
    p.size = data.size;
    p.shape = qs(shapeToString(data.sampleShape));
    p.classes = data.numClasses;
    for (const std::string& name : data.classNames) p.classNames << qs(name);
    if (data.numClasses > 0) {
      p.classCounts.fill(0, static_cast<int>(data.numClasses));
      for (int64_t i = 0; i < data.size; ++i) {
        const auto c = static_cast<int64_t>(*data.label(i));
        if (c >= 0 && c < data.numClasses) p.classCounts[static_cast<int>(c)] += 1;
      }
    }
    const auto& s = data.sampleShape;
    p.images = s.size() == 3 && (s[0] == 1 || s[0] == 3);
    if (!p.images) return p;
    const auto className = [&](int64_t c) {
      return c >= 0 && c < static_cast<int64_t>(data.classNames.size()) ? qs(data.classNames[static_cast<size_t>(c)]) : QString();
    };
    if (data.numClasses > 0) {
      // The first perClass samples of each of the first kMaxClassRows classes, in file order.
      const int rows = static_cast<int>(std::min<int64_t>(data.numClasses, kMaxClassRows));
      QVector<QList<long long>> picked(rows);
      int full = 0;
      for (int64_t i = 0; i < data.size && full < rows; ++i) {
        const auto c = static_cast<int64_t>(*data.label(i));
        if (c < 0 || c >= rows || picked[static_cast<int>(c)].size() >= perClass) continue;
        picked[static_cast<int>(c)] << i;
        if (picked[static_cast<int>(c)].size() == perClass) ++full;
      }
      for (int c = 0; c < rows; ++c) {
        ClassSamples row;
        row.label = c;
        row.name = className(c);
        row.count = static_cast<long long>(p.classCounts[c]);
        row.indices = picked[c];
        for (const long long i : picked[c]) row.images << sampleToImage(data, i);
        p.classRows << row;
      }
      // Augmentation: the first sample of each of the first classes.
      for (int c = 0; c < rows && p.augmentSources.size() < augmentCount; ++c) {
        if (picked[c].isEmpty()) continue;
        const long long i = picked[c].front();
        p.augmentSources << AugmentSource{i, className(c).isEmpty() ? QObject::tr("class %1").arg(c) : className(c),
                                          data.sampleShape, data.sampleValues(i)};
      }
    } else {
      // Vector targets: one row of the first samples.
      ClassSamples row;
      row.label = -1;
      row.name = QObject::tr("first samples");
      row.count = data.size;
      for (int64_t i = 0; i < std::min<int64_t>(perClass, data.size); ++i) {
        row.indices << i;
        row.images << sampleToImage(data, i);
      }
      p.classRows << row;
      for (int64_t i = 0; i < std::min<int64_t>(augmentCount, data.size); ++i)
        p.augmentSources << AugmentSource{i, QObject::tr("sample %1").arg(i), data.sampleShape, data.sampleValues(i)};
    }
  } catch (const std::exception& e) {
    p.error = QString::fromUtf8(e.what());
  }
  return p;
}

}  // namespace netsmith::gui
