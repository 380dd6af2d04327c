// Data augmentation (config.augmentation): random flips, crop with padding, rotation, scale and
// shift, brightness and contrast of training images, each sample's draw a pure function of
// (seed, epoch, global sample index) — Note [Augmentation draws].
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "engine/core/shape.h"
#include "engine/core/tensor.h"
#include "engine/project/project.h"

namespace netsmith {

// Note [Augmentation draws]
// A sample's transforms depend only on (seed, epoch, global sample index): ten values
// u_k = toUnitFloat(mix64(key + k)), key = mix64(mix64(mix64(seed ^ kAugmentStream) + epoch) ^
// mix64(index)), are drawn for every sample in a fixed order whatever is enabled (so turning
// one transform on does not change another's draw). The stream constant keeps them apart from
// the epoch's shuffle (epochOrder) and Dropout's masks (RandomKey). So a sample is transformed
// alike on any device, in any batch position and after a resume, and reproducible training
// (Note [Reproducible training]) gives the same weights on 1, 2 and 4 devices with it.
//
// The transforms, in this order, on one CHW sample of scaled values (what the network sees):
//   1. Affine warp (rotation_degrees, scale, shift), torchvision RandomAffine-like: angle
//      a ~ U[-r, r] degrees (positive: counter-clockwise on screen), zoom s ~ U[1-z, 1+z], shift
//      (tx, ty) = round(U[-f, f]·W), round(U[-f, f]·H) pixels. Output pixel p (column, row) takes
//      the source at c + R(-a)(p - c - t)/s, c = ((W-1)/2, (H-1)/2) the centre, sampled bilinearly;
//      source pixels outside the image count as 0 (fill 0, torchvision's default). With neither
//      rotation nor scale set, the shift moves whole pixels exactly (no interpolation).
//   2. Crop with padding P (torchvision RandomCrop(padding=P)): the image padded by P zeros on
//      every side, cropped back to H×W at offset (ox, oy), each uniform in [0, 2P]: output (i, j)
//      = padded (i + oy, j + ox) = image (i + oy - P, j + ox - P), 0 outside.
//   3. Flips: left-right (flip_horizontal) and top-bottom (flip_vertical), each with probability 0.5.
//   4. Brightness: x ← x·b, b ~ U[max(0, 1-B), 1+B].
//   5. Contrast: x ← (x - m)·k + m, k ~ U[max(0, 1-K), 1+K], m the mean of the sample's values
//      (all channels) after step 4.
// Steps 4-5 are ColorJitter's formulas on the scaled values, without clamping: the value range
// depends on dataset.scale. Steps 1-3 are one pass over the sample; identity when all are off.

// The stream constant of Note [Augmentation draws].
inline constexpr uint64_t kAugmentStream = 0x4175676D656E7421ull;  // "Augment!"

// One sample's drawn transforms (Note [Augmentation draws]); a disabled transform draws the
// identity (no flip, offset P, angle 0, zoom 1, shift 0, factors 1).
struct AugmentDraw {
  bool flipHorizontal = false;
  bool flipVertical = false;
  int64_t cropX = 0, cropY = 0;  // offset in the padded image, in [0, 2P]; P: no move
  double angleDegrees = 0;
  double zoom = 1;
  int64_t shiftX = 0, shiftY = 0;  // pixels, positive: content moves right / down
  float brightness = 1;
  float contrast = 1;
};

AugmentDraw drawAugmentation(const Augmentation& aug, uint64_t seed, int64_t epoch, int64_t sampleId, int64_t height,
                             int64_t width);

// Applies `draw` to one sample (C, H, W) of `values` in place. Needs no allocation once the
// calling thread's scratch buffer has grown to one sample.
void applyAugmentation(const Augmentation& aug, const AugmentDraw& draw, int64_t channels, int64_t height,
                       int64_t width, float* values);

// Augments every sample of the host batch x (N, C, H, W) in place: row n is the dataset's sample
// sampleIds[n] (its global index), drawn for (seed, epoch). Nothing when aug is all off. Throws
// when x is not a batch of images (rank 4) or sampleIds does not have N entries. Any thread may
// call it; each thread keeps one sample of scratch memory.
void augmentBatch(const Augmentation& aug, uint64_t seed, int64_t epoch, std::span<const int64_t> sampleIds,
                  Tensor& x);

// One sample (sampleShape (C, H, W), values sampleNumel floats) augmented as training would
// augment dataset sample sampleId in `epoch`: for the Dataset page's preview.
void augmentSample(const Augmentation& aug, uint64_t seed, int64_t epoch, int64_t sampleId, const Shape& sampleShape,
                   std::span<float> values);

// Throws when augmentation is on and samples of `sampleShape` are not images (C, H, W):
// `what` names them in the message ("the Input 'x'", or a data file).
void checkAugmentable(const Augmentation& aug, const Shape& sampleShape, const std::string& what);

// "off", or what is on: "horizontal flip, crop padding 4, rotation ±15°, brightness ±0.2".
std::string describeAugmentation(const Augmentation& aug);

}  // namespace netsmith
