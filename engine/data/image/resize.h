// Bringing decoded images to a dataset's size and channels: antialiased resizing in three modes
// and gray/RGB conversion. Images are the 8-bit interleaved Image of Note [Image layout].
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/data/image/image.h"

namespace netsmith {

// How an image of another aspect ratio reaches the target size (`--resize`):
//  - Squash: scaled to exactly width x height, the aspect ratio ignored.
//  - Crop:   scaled so that its short side fits, then the centre width x height kept (the excess
//            of the long side is cut off equally on both sides, an odd pixel on the right/bottom).
//  - Pad:    scaled so that its long side fits, then centred on a width x height canvas of the
//            pad value (kPadValue, black, as torchvision's Pad and Keras' pad_to_aspect_ratio
//            fill), the odd pixel of the margin on the right/bottom.
enum class ResizeMode { Squash, Crop, Pad };

constexpr uint8_t kPadValue = 0;

// "squash", "crop", "pad" (the CLI's spelling); nullopt for anything else.
std::optional<ResizeMode> parseResizeMode(const std::string& name);
const char* resizeModeName(ResizeMode mode);

// Resamples `image` to width x height (both >= 1), each axis on its own: when an axis shrinks,
// each output pixel is the area average of the source pixels it covers (exact fractional
// coverage, a box filter the width of the output pixel, so no aliasing); when it grows, bilinear
// interpolation between pixel centres (edges clamped); an axis whose size is unchanged is copied.
// Rounded to nearest. Channels are kept. An empty image or a non-positive size throws Error.
Image resizeImage(const Image& image, int width, int height);

// The same over the source rectangle (x0, y0, w, h), which must lie inside `image`.
Image resizeRegion(const Image& image, int x0, int y0, int w, int h, int width, int height);

// resizeImage in a mode; the result is always width x height.
Image resizeImage(const Image& image, int width, int height, ResizeMode mode, uint8_t padValue = kPadValue);

// `image` with 1 or 3 channels: RGB to gray by Rec. 601 luma (0.299 R + 0.587 G + 0.114 B,
// rounded), gray to RGB by repeating the value. Same channel count: a copy. Throws Error for
// another count.
Image convertChannels(const Image& image, int channels);

// What a dataset wants of every image.
struct ImageTarget {
  int width = 0;
  int height = 0;
  int channels = 3;  // 1 or 3
  ResizeMode mode = ResizeMode::Squash;
  uint8_t padValue = kPadValue;
};

// `image` converted and resized to `target`: to gray before resizing (less work), to RGB after.
Image prepareImage(const Image& image, const ImageTarget& target);

}  // namespace netsmith
