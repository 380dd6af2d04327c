// Images of dataset samples for the Dataset page: a CHW sample of float values as a QImage, and
// the thumbnail a person sees: small images enlarged by a whole factor with nearest-neighbour (a
// 28×28 digit stays sharp at 56×56), large ones scaled down smoothly.
#pragma once

#include <QImage>
#include <QPixmap>

#include "engine/core/shape.h"

namespace netsmith::gui {

// The side a thumbnail aims at, in pixels.
inline constexpr int kThumbnailSide = 64;

// A (1,H,W) or (3,H,W) sample as an image, values mapped from [lo, hi] to 0..255 and clamped
// (lo == hi: all black). Null for other shapes.
QImage imageFromValues(const float* values, const Shape& shape, float lo, float hi);
// The same with the sample's own minimum and maximum.
QImage imageFromValues(const float* values, const Shape& shape);

// The whole factor a w×h image is enlarged by (1 when it is kThumbnailSide or larger).
int thumbnailFactor(int width, int height);
QPixmap thumbnail(const QImage& image);

}  // namespace netsmith::gui
