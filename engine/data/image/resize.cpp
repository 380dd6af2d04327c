#include "engine/data/image/resize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "engine/core/error.h"

namespace netsmith {

namespace {

// The source pixels and weights that make each output pixel along one axis. Weights of one output
// pixel sum to 1.
struct AxisTaps {
  std::vector<int> first;      // (dst) first source index
  std::vector<int> count;      // (dst) how many source indices
  std::vector<int> offset;     // (dst) where its weights start in `weights`
  std::vector<float> weights;
};

// Source indices [start, start + len) resampled to `dst` pixels.
AxisTaps axisTaps(int start, int len, int dst) {
  AxisTaps t;
  t.first.resize(dst);
  t.count.resize(dst);
  t.offset.resize(dst);
  const double scale = static_cast<double>(len) / dst;  // source pixels per output pixel
  for (int i = 0; i < dst; ++i) {
    t.offset[i] = static_cast<int>(t.weights.size());
    if (len == dst) {
      t.first[i] = start + i;
      t.count[i] = 1;
      t.weights.push_back(1.0f);
    } else if (len > dst) {
      // Shrinking: the output pixel covers [a, b) of the source; each source pixel weighs the
      // length of its overlap with that interval (area averaging).
      const double a = i * scale;
      const double b = (i + 1) * scale;
      const int j0 = static_cast<int>(std::floor(a));
      const int j1 = std::min(len, static_cast<int>(std::ceil(b)));
      t.first[i] = start + j0;
      t.count[i] = j1 - j0;
      for (int j = j0; j < j1; ++j) {
        const double overlap = std::min(b, j + 1.0) - std::max(a, static_cast<double>(j));
        t.weights.push_back(static_cast<float>(overlap / scale));
      }
    } else {
      // Enlarging: bilinear between the two source pixel centres around the output pixel's centre.
      const double pos = std::clamp((i + 0.5) * scale - 0.5, 0.0, static_cast<double>(len - 1));
      const int j0 = static_cast<int>(std::floor(pos));
      const int j1 = std::min(j0 + 1, len - 1);
      const auto f = static_cast<float>(pos - j0);
      t.first[i] = start + j0;
      if (j1 == j0 || f == 0.0f) {
        t.count[i] = 1;
        t.weights.push_back(1.0f);
      } else {
        t.count[i] = 2;
        t.weights.push_back(1.0f - f);
        t.weights.push_back(f);
      }
    }
  }
  return t;
}

uint8_t toByte(float v) { return static_cast<uint8_t>(std::clamp(std::lround(v), 0L, 255L)); }

void checkImage(const Image& image, const char* what) {
  NS_CHECK(image.width >= 1 && image.height >= 1 && (image.channels == 1 || image.channels == 3) &&
               image.pixels.size() == static_cast<size_t>(image.width) * image.height * image.channels,
           "{}: the image is {}x{} with {} channels and {} bytes (expected a non-empty 1- or 3-channel image)",
           what, image.width, image.height, image.channels, image.pixels.size());
}

}  // namespace

std::optional<ResizeMode> parseResizeMode(const std::string& name) {
  if (name == "squash") return ResizeMode::Squash;
  if (name == "crop") return ResizeMode::Crop;
  if (name == "pad") return ResizeMode::Pad;
  return std::nullopt;
}

const char* resizeModeName(ResizeMode mode) {
  switch (mode) {
    case ResizeMode::Squash: return "squash";
    case ResizeMode::Crop: return "crop";
    case ResizeMode::Pad: return "pad";
  }
  return "?";
}

Image resizeRegion(const Image& image, int x0, int y0, int w, int h, int width, int height) {
  checkImage(image, "resize");
  NS_CHECK(width >= 1 && height >= 1, "resize: the target size must be at least 1x1, got {}x{}", width, height);
  NS_CHECK(x0 >= 0 && y0 >= 0 && w >= 1 && h >= 1 && x0 + w <= image.width && y0 + h <= image.height,
           "resize: the region {}x{} at ({}, {}) is not inside the {}x{} image", w, h, x0, y0, image.width,
           image.height);
  const int c = image.channels;
  const AxisTaps tx = axisTaps(x0, w, width);
  const AxisTaps ty = axisTaps(y0, h, height);
  // Horizontal pass over the rows the region uses: (h, width, c) floats.
  std::vector<float> rows(static_cast<size_t>(h) * width * c);
  for (int y = 0; y < h; ++y) {
    const uint8_t* src = image.pixels.data() + image.index(0, y0 + y);
    float* dst = rows.data() + static_cast<size_t>(y) * width * c;
    for (int x = 0; x < width; ++x) {
      const float* wts = tx.weights.data() + tx.offset[x];
      for (int k = 0; k < c; ++k) {
        float sum = 0.0f;
        for (int j = 0; j < tx.count[x]; ++j) sum += wts[j] * src[static_cast<size_t>(tx.first[x] + j) * c + k];
        dst[static_cast<size_t>(x) * c + k] = sum;
      }
    }
  }
  // Vertical pass.
  Image out(width, height, c);
  const size_t rowFloats = static_cast<size_t>(width) * c;
  std::vector<float> acc(rowFloats);
  for (int y = 0; y < height; ++y) {
    std::fill(acc.begin(), acc.end(), 0.0f);
    const float* wts = ty.weights.data() + ty.offset[y];
    for (int j = 0; j < ty.count[y]; ++j) {
      const float* src = rows.data() + static_cast<size_t>(ty.first[y] - y0 + j) * rowFloats;
      for (size_t i = 0; i < rowFloats; ++i) acc[i] += wts[j] * src[i];
    }
    uint8_t* dst = out.pixels.data() + out.index(0, y);
    for (size_t i = 0; i < rowFloats; ++i) dst[i] = toByte(acc[i]);
  }
  return out;
}

Image resizeImage(const Image& image, int width, int height) {
  checkImage(image, "resize");
  return resizeRegion(image, 0, 0, image.width, image.height, width, height);
}

Image resizeImage(const Image& image, int width, int height, ResizeMode mode, uint8_t padValue) {
  checkImage(image, "resize");
  NS_CHECK(width >= 1 && height >= 1, "resize: the target size must be at least 1x1, got {}x{}", width, height);
  const int64_t w = image.width;
  const int64_t h = image.height;
  switch (mode) {
    case ResizeMode::Squash: return resizeRegion(image, 0, 0, image.width, image.height, width, height);
    case ResizeMode::Crop: {
      // The largest centred region of the target's aspect ratio.
      if (w * height > width * h) {  // wider than the target: cut left and right
        const int cw = static_cast<int>(std::clamp<int64_t>(std::llround(static_cast<double>(h) * width / height), 1, w));
        return resizeRegion(image, (image.width - cw) / 2, 0, cw, image.height, width, height);
      }
      const int ch = static_cast<int>(std::clamp<int64_t>(std::llround(static_cast<double>(w) * height / width), 1, h));
      return resizeRegion(image, 0, (image.height - ch) / 2, image.width, ch, width, height);
    }
    case ResizeMode::Pad: {
      const double scale = std::min(static_cast<double>(width) / w, static_cast<double>(height) / h);
      const int sw = static_cast<int>(std::clamp<int64_t>(std::llround(w * scale), 1, width));
      const int sh = static_cast<int>(std::clamp<int64_t>(std::llround(h * scale), 1, height));
      const Image scaled = resizeRegion(image, 0, 0, image.width, image.height, sw, sh);
      Image out(width, height, image.channels, padValue);
      const int ox = (width - sw) / 2;
      const int oy = (height - sh) / 2;
      for (int y = 0; y < sh; ++y)
        std::memcpy(&out.pixels[out.index(ox, oy + y)], &scaled.pixels[scaled.index(0, y)],
                    static_cast<size_t>(sw) * image.channels);
      return out;
    }
  }
  NS_THROW("resize: unknown mode {}", static_cast<int>(mode));
}

Image convertChannels(const Image& image, int channels) {
  checkImage(image, "convert channels");
  NS_CHECK(channels == 1 || channels == 3, "convert channels: 1 or 3 channels, got {}", channels);
  if (image.channels == channels) return image;
  Image out(image.width, image.height, channels);
  const size_t n = static_cast<size_t>(image.width) * image.height;
  if (channels == 1) {
    // Rec. 601 luma in fixed point: weights 299, 587, 114 per thousand, rounded to nearest.
    for (size_t i = 0; i < n; ++i) {
      const uint8_t* p = image.pixels.data() + 3 * i;
      out.pixels[i] = static_cast<uint8_t>((299u * p[0] + 587u * p[1] + 114u * p[2] + 500u) / 1000u);
    }
  } else {
    for (size_t i = 0; i < n; ++i) std::memset(out.pixels.data() + 3 * i, image.pixels[i], 3);
  }
  return out;
}

Image prepareImage(const Image& image, const ImageTarget& target) {
  NS_CHECK(target.channels == 1 || target.channels == 3, "image target: 1 or 3 channels, got {}", target.channels);
  if (target.channels == 1 && image.channels == 3)
    return resizeImage(convertChannels(image, 1), target.width, target.height, target.mode, target.padValue);
  Image resized = resizeImage(image, target.width, target.height, target.mode, target.padValue);
  return target.channels == image.channels ? resized : convertChannels(resized, target.channels);
}

}  // namespace netsmith
