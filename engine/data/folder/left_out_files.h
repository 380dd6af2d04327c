// What a dataset build leaves out of the source once every image is read and converted: the
// skipped files with their reasons and the duplicates, as the report lists them.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/data/folder/dataset_builder.h"
#include "engine/data/folder/source_image.h"

namespace netsmith {

// Appends to result.skipped (then sorted by path, with the scan's skips already there) every image
// that could not be read or converted, and a duplicate whose kept copy did not convert; appends
// to result.duplicates every other duplicate, in candidate order.
void listLeftOutFiles(const std::vector<SourceImage>& images, FolderDatasetResult& result);

// The indices of the usable images, in candidate order. Throws Error when there is none, naming
// the source and the first skipped files with their reasons.
std::vector<int64_t> usableImages(const std::vector<SourceImage>& images, const std::vector<SkippedFile>& skipped,
                                  const FolderScan& scan);

}  // namespace netsmith
