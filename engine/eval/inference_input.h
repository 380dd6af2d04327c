// Inputs of `netsmith-cli infer`: PNG files, or a Neural Network Console CSV whose label column
// (y) is optional — inference data usually has none.
#pragma once

#include <string>
#include <vector>

#include "engine/data/dataset.h"

namespace netsmith {

// Decodes the PNG files, each multiplied by `scale`, into one dataset (labels 0). Every image
// must have the same shape; Error names the file and what is wrong.
Dataset loadPngFiles(const std::vector<std::string>& paths, double scale);

// Reads a dataset CSV. Without a y column, every row gets label 0 (the header and rows are read
// by the dataset reader through a copy with a y column added; image paths stay relative to the
// original CSV's folder). `names` receives each row's first x cell (the image path), for output.
Dataset loadInferenceCsv(const std::string& csvPath, double scale, std::vector<std::string>& names);

}  // namespace netsmith
