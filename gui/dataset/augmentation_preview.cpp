#include "gui/dataset/augmentation_preview.h"

#include <QGridLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>

#include "engine/data/augment.h"
#include "gui/dataset/sample_thumbnails.h"

namespace netsmith::gui {

AugmentationPreview::AugmentationPreview(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_description = new QLabel(this);
  m_description->setWordWrap(true);
  m_description->setStyleSheet(QStringLiteral("color:#666"));
  m_grid = new QGridLayout;
  m_grid->setHorizontalSpacing(4);
  m_grid->setVerticalSpacing(2);
  layout->addWidget(m_description);
  layout->addLayout(m_grid);
  layout->addStretch(1);
}

void AugmentationPreview::setSources(const QList<AugmentSource>& sources) {
  m_sources = sources;
  m_shown = false;
  rebuild();
}

void AugmentationPreview::setAugmentation(const Augmentation& augmentation, uint64_t seed) {
  if (m_shown && augmentation == m_augmentation && seed == m_seed) return;
  m_augmentation = augmentation;
  m_seed = seed;
  m_shown = false;
  rebuild();
}

QString AugmentationPreview::description() const { return m_description->text(); }

void AugmentationPreview::rebuild() {
  while (QLayoutItem* item = m_grid->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  m_images.clear();
  m_shown = true;
  if (!m_augmentation.enabled()) {
    m_description->setText(tr("Augmentation is off (Global Config ▸ Augmentation)."));
    return;
  }
  if (m_sources.isEmpty()) {
    m_description->setText(tr("No image samples to augment."));
    return;
  }
  QString error;
  for (const AugmentSource& s : m_sources) {
    if (s.values.empty()) continue;
    const auto [lo, hi] = std::minmax_element(s.values.begin(), s.values.end());
    const float top = *hi > *lo ? *hi : *lo + 1;
    QList<QImage> row{imageFromValues(s.values.data(), s.shape, *lo, top)};
    try {
      for (int epoch = 0; epoch < kEpochs; ++epoch) {
        std::vector<float> v = s.values;
        augmentSample(m_augmentation, m_seed, epoch, s.index, s.shape, v);
        row << imageFromValues(v.data(), s.shape, *lo, top);
      }
    } catch (const std::exception& e) {
      error = QString::fromUtf8(e.what());
      break;
    }
    m_images << row;
  }
  if (!error.isEmpty()) {
    m_images.clear();
    m_description->setText(error);
    return;
  }
  m_description->setText(tr("%1 · seed %2: each epoch draws anew, the same on every device and after a resume.")
                             .arg(QString::fromStdString(describeAugmentation(m_augmentation)))
                             .arg(m_seed));
  // Column headings, then per sample: the original and its epochs.
  auto heading = [this](const QString& text, int column) {
    auto* label = new QLabel(text, this);
    label->setAlignment(Qt::AlignCenter);
    label->setStyleSheet(QStringLiteral("color:#666"));
    m_grid->addWidget(label, 0, column, Qt::AlignCenter);
  };
  heading(tr("as stored"), 1);
  for (int e = 0; e < kEpochs; ++e) heading(tr("epoch %1").arg(e + 1), 2 + e);
  for (int r = 0; r < m_images.size(); ++r) {
    auto* name = new QLabel(m_sources[r].label, this);
    name->setToolTip(tr("Training sample %1").arg(m_sources[r].index));
    m_grid->addWidget(name, 1 + r, 0);
    for (int c = 0; c < m_images[r].size(); ++c) {
      auto* cell = new QLabel(this);
      cell->setPixmap(thumbnail(m_images[r][c]));
      cell->setToolTip(c == 0 ? tr("Sample %1 as stored").arg(m_sources[r].index)
                              : tr("Sample %1 as training sees it in epoch %2").arg(m_sources[r].index).arg(c));
      m_grid->addWidget(cell, 1 + r, 1 + c, Qt::AlignCenter);
    }
  }
  m_grid->setColumnStretch(kEpochs + 2, 1);
}

}  // namespace netsmith::gui
