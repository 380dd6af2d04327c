// Inputs of `netsmith-cli infer`: PNG or JPEG files, or a Neural Network Console CSV whose label
// column (y) is optional — inference data usually has none.
#pragma once

#include <string>
#include <vector>

#include "engine/data/dataset.h"

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
};
InferenceImage loadInferenceImage(const std::string& path, double scale);

// Decodes the image files (PNG or JPEG, loadInferenceImage), each multiplied by `scale`, into one
// dataset (labels 0). Every image must have the same shape; Error names the file and what is wrong.
Dataset loadImageFiles(const std::vector<std::string>& paths, double scale);

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
