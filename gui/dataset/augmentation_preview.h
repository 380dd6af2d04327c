// AugmentationPreview: what config.augmentation does to a few training samples: each sample as
// stored, then as training sees it in epochs 1 to kEpochs — the engine's own augmentSample with
// the project's seed and the sample's index (Note [Augmentation draws]), so the preview is the
// very draw training makes. Brightness and contrast stay visible: every variant is shown on the
// original's value range, not stretched to its own.
#pragma once

#include <QImage>
#include <QList>
#include <QWidget>
#include <vector>

#include "engine/core/shape.h"
#include "engine/project/project.h"

class QGridLayout;
class QLabel;

namespace netsmith::gui {

// A training sample to augment: its index in the dataset, its label text and its values (C,H,W).
struct AugmentSource {
  long long index = 0;
  QString label;
  Shape shape;
  std::vector<float> values;
};

class AugmentationPreview : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kEpochs = 6;

  explicit AugmentationPreview(QWidget* parent = nullptr);

  void setSources(const QList<AugmentSource>& sources);
  // Redraws when the settings differ from the ones shown.
  void setAugmentation(const Augmentation& augmentation, uint64_t seed);

  int rowCount() const { return m_images.size(); }
  // The row's images: the original, then epochs 1..kEpochs.
  QList<QImage> rowImages(int row) const { return m_images.value(row); }
  QString description() const;  // "horizontal flip, rotation ±15° · seed 1", or why nothing shows

 private:
  void rebuild();

  QGridLayout* m_grid;
  QLabel* m_description;
  QList<AugmentSource> m_sources;
  Augmentation m_augmentation;
  uint64_t m_seed = 0;
  bool m_shown = false;  // m_images match m_sources, m_augmentation and m_seed
  QList<QList<QImage>> m_images;
};

}  // namespace netsmith::gui
