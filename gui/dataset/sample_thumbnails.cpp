#include "gui/dataset/sample_thumbnails.h"

#include <algorithm>

namespace netsmith::gui {

QImage imageFromValues(const float* x, const Shape& s, float lo, float hi) {
  if (s.size() != 3 || (s[0] != 1 && s[0] != 3) || s[1] < 1 || s[2] < 1) return {};
  const int64_t h = s[1], w = s[2], plane = h * w;
  const float range = hi > lo ? hi - lo : 0;
  auto level = [&](float v) {
    if (range <= 0) return 0;
    return std::clamp(static_cast<int>(255.0f * (v - lo) / range + 0.5f), 0, 255);
  };
  QImage img(static_cast<int>(w), static_cast<int>(h), QImage::Format_RGB32);
  for (int64_t y = 0; y < h; ++y) {
    auto* line = reinterpret_cast<QRgb*>(img.scanLine(static_cast<int>(y)));
    for (int64_t xx = 0; xx < w; ++xx) {
      const int64_t at = y * w + xx;
      if (s[0] == 3) {
        line[xx] = qRgb(level(x[at]), level(x[plane + at]), level(x[2 * plane + at]));
      } else {
        const int g = level(x[at]);
        line[xx] = qRgb(g, g, g);
      }
    }
  }
  return img;
}

QImage imageFromValues(const float* values, const Shape& shape) {
  int64_t n = 1;
  for (const int64_t d : shape) n *= d;
  if (n <= 0) return {};
  const auto [lo, hi] = std::minmax_element(values, values + n);
  return imageFromValues(values, shape, *lo, *hi > *lo ? *hi : *lo + 1);
}

int thumbnailFactor(int width, int height) { return std::max(1, kThumbnailSide / std::max({1, width, height})); }

QPixmap thumbnail(const QImage& image) {
  if (image.isNull()) return {};
  const int side = std::max(image.width(), image.height());
  if (side > kThumbnailSide)
    return QPixmap::fromImage(image.scaled(kThumbnailSide, kThumbnailSide, Qt::KeepAspectRatio, Qt::SmoothTransformation));
  const int k = thumbnailFactor(image.width(), image.height());
  return QPixmap::fromImage(image.scaled(image.width() * k, image.height() * k, Qt::IgnoreAspectRatio, Qt::FastTransformation));
}

}  // namespace netsmith::gui
