// Which usable image trains and which validates, and the images of each class in each split
// (Note [Validation split], Note [Folder dataset]).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/data/folder/dataset_builder.h"
#include "engine/data/folder/source_image.h"

namespace netsmith {

// Sets `split` of every usable image: drawn per class (chooseValidationSplit with `percent` and
// `seed`) for class folders, the folder's for a given split.
void assignSplits(std::vector<SourceImage>& images, const std::vector<int64_t>& usable, const FolderScan& scan, double percent,
                  uint64_t seed);

// Fills result.classes (label order) with the usable images of each class in each split, and
// appends a warning for a class without validation images in a given split. Throws Error for a
// class with no usable training image, naming its folder and the first of its files left out.
void countClassImages(const std::vector<SourceImage>& images, const std::vector<int64_t>& usable, const FolderScan& scan,
                      FolderDatasetResult& result);

}  // namespace netsmith
