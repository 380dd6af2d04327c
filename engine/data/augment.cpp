#include "engine/data/augment.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/rng.h"

namespace netsmith {
namespace {

// Uniform in [lo, hi] from u in [0, 1).
double between(double lo, double hi, float u) { return lo + (hi - lo) * static_cast<double>(u); }

// Steps 1-3 of Note [Augmentation draws] as one pass: output pixel (i, j) reads the copy `src`
// of the sample at the place the flips, the crop and the affine warp send it to.
void warp(const Augmentation& aug, const AugmentDraw& d, int64_t channels, int64_t height, int64_t width,
          const float* src, float* out) {
  const int64_t plane = height * width;
  // The crop's offset of the un-flipped output in the warped image's frame.
  const int64_t cropDx = d.cropX - aug.cropPadding;
  const int64_t cropDy = d.cropY - aug.cropPadding;
  const bool bilinear = aug.rotationDegrees > 0 || aug.scale > 0;

  if (!bilinear) {
    // Whole-pixel moves only: a copy, exact. Output (i, j) = source (ii + cropDy - shiftY, jj + cropDx - shiftX).
    const int64_t dx = cropDx - d.shiftX;
    const int64_t dy = cropDy - d.shiftY;
    for (int64_t i = 0; i < height; ++i) {
      const int64_t r = (d.flipVertical ? height - 1 - i : i) + dy;
      for (int64_t c = 0; c < channels; ++c) {
        float* o = out + c * plane + i * width;
        if (r < 0 || r >= height) {
          std::fill(o, o + width, 0.0f);
          continue;
        }
        const float* row = src + c * plane + r * width;
        if (!d.flipHorizontal) {
          for (int64_t j = 0; j < width; ++j) {
            const int64_t col = j + dx;
            o[j] = col >= 0 && col < width ? row[col] : 0.0f;
          }
        } else {
          for (int64_t j = 0; j < width; ++j) {
            const int64_t col = width - 1 - j + dx;
            o[j] = col >= 0 && col < width ? row[col] : 0.0f;
          }
        }
      }
    }
    return;
  }

  // Inverse map: source = centre + R(-a)(p - centre - t) / zoom, p the warped image's pixel:
  // source = (ax + cosA·u - sinA·v, ay + sinA·u + cosA·v), u, v the pixel's column and row.
  const double radians = d.angleDegrees * std::numbers::pi / 180.0;
  const double inv = 1.0 / d.zoom;
  const double cosA = std::cos(radians) * inv;
  const double sinA = std::sin(radians) * inv;
  const double centreX = static_cast<double>(width - 1) / 2;
  const double centreY = static_cast<double>(height - 1) / 2;
  const double offX = -centreX - static_cast<double>(d.shiftX), offY = -centreY - static_cast<double>(d.shiftY);
  const auto w = static_cast<float>(width);
  const auto h = static_cast<float>(height);
  for (int64_t i = 0; i < height; ++i) {
    const int64_t v = (d.flipVertical ? height - 1 - i : i) + cropDy;  // row in the warped image
    const double dy = static_cast<double>(v) + offY;
    // Per row in double, per pixel in float: a column step adds (cosA, sinA).
    const double rowX = centreX + offX * cosA - dy * sinA;
    const double rowY = centreY + offX * sinA + dy * cosA;
    for (int64_t j = 0; j < width; ++j) {
      const int64_t u = (d.flipHorizontal ? width - 1 - j : j) + cropDx;
      float* o = out + i * width + j;
      const auto sx = static_cast<float>(rowX + static_cast<double>(u) * cosA);
      const auto sy = static_cast<float>(rowY + static_cast<double>(u) * sinA);
      // Outside the crop's padding, or no source pixel within reach (NaN fails too): fill 0.
      if (u < 0 || u >= width || v < 0 || v >= height || !(sx > -1 && sx < w && sy > -1 && sy < h)) {
        for (int64_t c = 0; c < channels; ++c) o[c * plane] = 0.0f;
        continue;
      }
      // floor for values > -1, without the library call.
      const int64_t x0 = static_cast<int64_t>(sx + 1) - 1;
      const int64_t y0 = static_cast<int64_t>(sy + 1) - 1;
      const float fx = sx - static_cast<float>(x0);
      const float fy = sy - static_cast<float>(y0);
      const float w00 = (1 - fx) * (1 - fy), w01 = fx * (1 - fy), w10 = (1 - fx) * fy, w11 = fx * fy;
      const int64_t at = y0 * width + x0;
      if (x0 >= 0 && x0 + 1 < width && y0 >= 0 && y0 + 1 < height) {
        for (int64_t c = 0; c < channels; ++c) {
          const float* s = src + c * plane + at;
          o[c * plane] = w00 * s[0] + w01 * s[1] + w10 * s[width] + w11 * s[width + 1];
        }
        continue;
      }
      // At the border: neighbours outside the image contribute 0 (torchvision's fill 0). Each
      // neighbour is checked on both sides: float rounding of sx + 1 may put x0 at -1 or width.
      const bool left = x0 >= 0 && x0 < width, right = x0 + 1 >= 0 && x0 + 1 < width;
      const bool top = y0 >= 0 && y0 < height, bottom = y0 + 1 >= 0 && y0 + 1 < height;
      for (int64_t c = 0; c < channels; ++c) {
        const float* s = src + c * plane;  // indexed only at neighbours inside the image
        float sum = 0;
        if (top && left) sum += w00 * s[at];
        if (top && right) sum += w01 * s[at + 1];
        if (bottom && left) sum += w10 * s[at + width];
        if (bottom && right) sum += w11 * s[at + width + 1];
        o[c * plane] = sum;
      }
    }
  }
}

}  // namespace

AugmentDraw drawAugmentation(const Augmentation& aug, uint64_t seed, int64_t epoch, int64_t sampleId, int64_t height,
                             int64_t width) {
  // Note [Augmentation draws]: ten values, always all of them, in this order.
  const uint64_t key = mix64(mix64(mix64(seed ^ kAugmentStream) + static_cast<uint64_t>(epoch)) ^
                             mix64(static_cast<uint64_t>(sampleId)));
  const auto u = [key](uint64_t k) { return toUnitFloat(mix64(key + k)); };
  AugmentDraw d;
  d.flipHorizontal = aug.flipHorizontal && u(0) < 0.5f;
  d.flipVertical = aug.flipVertical && u(1) < 0.5f;
  const int64_t p = std::max<int64_t>(aug.cropPadding, 0);
  const double positions = static_cast<double>(2 * p + 1);
  d.cropX = std::min(static_cast<int64_t>(static_cast<double>(u(2)) * positions), 2 * p);
  d.cropY = std::min(static_cast<int64_t>(static_cast<double>(u(3)) * positions), 2 * p);
  if (aug.rotationDegrees > 0) d.angleDegrees = between(-aug.rotationDegrees, aug.rotationDegrees, u(4));
  if (aug.scale > 0) d.zoom = std::max(between(1 - aug.scale, 1 + aug.scale, u(5)), 1e-3);
  if (aug.shift > 0) {
    d.shiftX = std::llround(between(-aug.shift, aug.shift, u(6)) * static_cast<double>(width));
    d.shiftY = std::llround(between(-aug.shift, aug.shift, u(7)) * static_cast<double>(height));
  }
  if (aug.brightness > 0) d.brightness = static_cast<float>(between(std::max(0.0, 1 - aug.brightness), 1 + aug.brightness, u(8)));
  if (aug.contrast > 0) d.contrast = static_cast<float>(between(std::max(0.0, 1 - aug.contrast), 1 + aug.contrast, u(9)));
  return d;
}

void applyAugmentation(const Augmentation& aug, const AugmentDraw& d, int64_t channels, int64_t height, int64_t width,
                       float* values) {
  const int64_t n = channels * height * width;
  if (n == 0) return;
  const bool geometric = aug.rotationDegrees > 0 || aug.scale > 0 || aug.shift > 0 || aug.cropPadding > 0 ||
                         d.flipHorizontal || d.flipVertical;
  if (geometric) {
    // The sample's values before the pass; grows to the largest sample once per thread.
    thread_local std::vector<float> scratch;
    if (scratch.size() < static_cast<size_t>(n)) scratch.resize(static_cast<size_t>(n));
    std::memcpy(scratch.data(), values, static_cast<size_t>(n) * sizeof(float));
    warp(aug, d, channels, height, width, scratch.data(), values);
  }
  if (aug.brightness > 0)
    for (int64_t i = 0; i < n; ++i) values[i] *= d.brightness;
  if (aug.contrast > 0) {
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += values[i];
    const auto mean = static_cast<float>(sum / static_cast<double>(n));
    const float k = d.contrast;
    for (int64_t i = 0; i < n; ++i) values[i] = (values[i] - mean) * k + mean;
  }
}

void augmentBatch(const Augmentation& aug, uint64_t seed, int64_t epoch, std::span<const int64_t> sampleIds, Tensor& x) {
  if (!aug.enabled()) return;
  NS_CHECK(x.rank() == 4,
           "config.augmentation: the samples have shape {}, not images (C,H,W): augmentation transforms images only; "
           "turn it off for this data",
           shapeToString(Shape(x.shape().begin() + (x.rank() > 0 ? 1 : 0), x.shape().end())));
  NS_CHECK(x.onHost(), "augmentBatch: the batch must be in host memory");
  const int64_t batch = x.dim(0), channels = x.dim(1), height = x.dim(2), width = x.dim(3);
  NS_CHECK(static_cast<int64_t>(sampleIds.size()) == batch, "augmentBatch: {} sample indices for a batch of {}",
           sampleIds.size(), batch);
  const int64_t sample = channels * height * width;
  for (int64_t b = 0; b < batch; ++b) {
    const AugmentDraw d = drawAugmentation(aug, seed, epoch, sampleIds[static_cast<size_t>(b)], height, width);
    applyAugmentation(aug, d, channels, height, width, x.data() + b * sample);
  }
}

void augmentSample(const Augmentation& aug, uint64_t seed, int64_t epoch, int64_t sampleId, const Shape& sampleShape,
                   std::span<float> values) {
  if (!aug.enabled()) return;
  checkAugmentable(aug, sampleShape, "the sample");
  NS_CHECK(static_cast<int64_t>(values.size()) == numel(sampleShape), "augmentSample: {} values for a sample of shape {}",
           values.size(), shapeToString(sampleShape));
  const AugmentDraw d = drawAugmentation(aug, seed, epoch, sampleId, sampleShape[1], sampleShape[2]);
  applyAugmentation(aug, d, sampleShape[0], sampleShape[1], sampleShape[2], values.data());
}

void checkAugmentable(const Augmentation& aug, const Shape& sampleShape, const std::string& what) {
  if (!aug.enabled()) return;
  NS_CHECK(sampleShape.size() == 3,
           "config.augmentation: {} has samples of shape {}, not images (C,H,W): augmentation (flips, crops, rotation, "
           "brightness, ...) transforms images only; turn it off (remove config.augmentation) for vector data",
           what, shapeToString(sampleShape));
}

std::string describeAugmentation(const Augmentation& aug) {
  if (!aug.enabled()) return "off";
  std::string s;
  const auto add = [&s](const std::string& part) { s += (s.empty() ? "" : ", ") + part; };
  if (aug.flipHorizontal) add("horizontal flip");
  if (aug.flipVertical) add("vertical flip");
  if (aug.cropPadding > 0) add(format("crop padding {}", aug.cropPadding));
  if (aug.rotationDegrees > 0) add(format("rotation ±{}°", aug.rotationDegrees));
  if (aug.scale > 0) add(format("scale ±{}", aug.scale));
  if (aug.shift > 0) add(format("shift ±{}", aug.shift));
  if (aug.brightness > 0) add(format("brightness ±{}", aug.brightness));
  if (aug.contrast > 0) add(format("contrast ±{}", aug.contrast));
  return s;
}

}  // namespace netsmith
