// The size and channels a folder dataset's images are converted to: given, or chosen from the
// images' headers (Note [Folder dataset]).
#pragma once

#include <string>
#include <vector>

#include "engine/data/folder/dataset_builder.h"
#include "engine/data/folder/source_image.h"
#include "engine/data/image/resize.h"

namespace netsmith {

constexpr int kMaxDatasetImageSide = 8192;  // pixels on each side, given or chosen

struct ImageTargetChoice {
  ImageTarget target;
  std::string sizeChoice;      // FolderDatasetResult::sizeChoice
  std::string channelsChoice;  // FolderDatasetResult::channelsChoice
};

// options.width x options.height when given, else the most common size among the images read with
// a header that are not duplicates (ties to the larger area, then the wider; each side at most
// kMaxDatasetImageSide); options.channels when given, else 3 if any of those images is colour.
// Throws Error when no image has a header (naming the first files and why) or when the size is
// more than kMaxImagePixels.
ImageTargetChoice chooseImageTarget(const std::vector<SourceImage>& images, const FolderDatasetOptions& options,
                                    const FolderScan& scan);

}  // namespace netsmith
