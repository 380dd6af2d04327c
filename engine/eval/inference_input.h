// Inputs of `netsmith-cli infer`: PNG or JPEG files, or a Neural Network Console CSV whose label
// column (y) is optional — inference data usually has none.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/data/dataset.h"
#include "engine/data/image/resize.h"
#include "engine/project/project.h"

namespace netsmith {

// One image file decoded for a network: (channels, height, width) floats, each pixel times `scale`.
// The format comes from the file's first bytes, never its name. PNG is read as a dataset CSV's
// images are (decodePng: alpha dropped, gray stays one channel, 16-bit brought to 8), so a PNG
// gives the values training saw; JPEG through decodeImage (gray: 1 channel, colour: 3; the EXIF
// orientation applied). Nothing is resized. `error` is empty when the file decoded, else one line
// naming the file and what is wrong ("does not exist", "is not an image (PNG or JPEG)", "cannot
// decode JPEG ...").
struct InferenceImage {
  std::string path;
  Shape shape;                // (channels, height, width)
  std::string colour;         // the file's own colour type ("gray", "RGB", "YCbCr", ...), for messages
  std::vector<float> pixels;  // (channels, height, width), scaled
  std::string error;
  std::string prepared;       // what loadFittedInferenceImage did to fit it ("" when nothing)
};
InferenceImage loadInferenceImage(const std::string& path, double scale);

// Note [Inference resize]
// A person's own image rarely has the network's size: one of 48x48 for a 3x64x64 network is
// brought to it as the training images were — by the rule of the training data's dataset.json
// (`dataset create`'s size, channels and squash/crop/pad) when it has one, else squashed to the
// Input's size with its channels converted (gray <-> RGB, Rec. 601) — and the result says what
// was done to each image. An image that already fits is used as it is.
struct ImageFit {
  ImageTarget target;
  std::string rule;  // where the rule came from, for people: "crop, as the training data's dataset.json says"
};

// The fit for an Input of `inputShape` (channels 1 or 3, height, width) of a run of `project`;
// nullopt for an Input that is not an image.
std::optional<ImageFit> inferenceImageFit(const Project& project, const Shape& inputShape);

// loadInferenceImage; an image whose shape is not the fit's is decoded as 8-bit, converted and
// resized by it (prepareImage), with `prepared` saying so.
InferenceImage loadFittedInferenceImage(const std::string& path, double scale, const ImageFit& fit);

// Decodes the image files (PNG or JPEG, loadInferenceImage), each multiplied by `scale`, into one
// dataset (labels 0). With a fit every image is brought to it (loadFittedInferenceImage) and
// `prepared` gets one line per image that was changed ("FILE: what was done"); without one every
// image must have the same shape. Error names the file and what is wrong.
Dataset loadImageFiles(const std::vector<std::string>& paths, double scale, const std::optional<ImageFit>& fit,
                       std::vector<std::string>& prepared);

// Reads a dataset CSV. Without a y column, every row gets label 0 (the header and rows are read
// by the dataset reader through a copy with a y column added; image paths stay relative to the
// original CSV's folder). `names` receives each row's first x cell (the image path), for output.
Dataset loadInferenceCsv(const std::string& csvPath, double scale, std::vector<std::string>& names);

// Reads a NumPy array of inputs (Note [NumPy arrays]) of shape (N, ...) whose samples hold as many
// values as `inputShape` (N, C, H, W for an image Input; N, D for a flat one). Float arrays are
// the network's input values as they are; integer arrays (a uint8 image batch) are pixel values
// and are multiplied by `scale`, as images are. `names` receives "X.npy[i]" per sample. Error
// names the file and what does not fit.
Dataset loadInferenceNpy(const std::string& path, double scale, const Shape& inputShape, std::vector<std::string>& names);

}  // namespace netsmith
