// chooseImageTarget.
#include "engine/data/folder/image_target_choice.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>

#include "engine/core/error.h"

namespace netsmith {

ImageTargetChoice chooseImageTarget(const std::vector<SourceImage>& images, const FolderDatasetOptions& options,
                                    const FolderScan& scan) {
  const int64_t n = static_cast<int64_t>(images.size());
  ImageTargetChoice choice;
  ImageTarget& target = choice.target;
  target.mode = options.resize;
  int64_t withHeader = 0;
  if (options.width > 0) {
    target.width = options.width;
    target.height = options.height;
    choice.sizeChoice = "as chosen";  // the console and the CLI choose it in their own words
  } else {
    std::map<std::pair<int, int>, int64_t> sizes;
    for (const SourceImage& it : images)
      if (it.headerOk && it.duplicateOf < 0) {
        ++sizes[{it.header.width, it.header.height}];
        ++withHeader;
      }
    if (sizes.empty()) {
      std::string listed;
      for (int64_t i = 0; i < n && i < 5; ++i)
        listed += (i ? "; " : "") + (images[i].readError.empty() ? images[i].candidate->relative : images[i].readError);
      NS_THROW("none of the {} image files in {} starts with a PNG or JPEG header, so there is no image to make a "
               "dataset of: {}{}",
               n, scan.source.string(), listed, n > 5 ? format("; and {} more", n - 5) : std::string());
    }
    // The most common; ties to the larger area, then the wider.
    auto best = sizes.begin();
    for (auto it = sizes.begin(); it != sizes.end(); ++it) {
      const auto [w, h] = it->first;
      const auto [bw, bh] = best->first;
      if (it->second > best->second ||
          (it->second == best->second && (int64_t{w} * h > int64_t{bw} * bh || (int64_t{w} * h == int64_t{bw} * bh && w > bw))))
        best = it;
    }
    target.width = std::min(best->first.first, kMaxDatasetImageSide);
    target.height = std::min(best->first.second, kMaxDatasetImageSide);
    choice.sizeChoice = format("the most common in the source: {} of {} image headers read{}", best->second, withHeader,
                               sizes.size() == 1 ? "" : format(" ({} sizes found; choose a size to use another)", sizes.size()));
  }
  if (options.channels > 0) {
    target.channels = options.channels;
    choice.channelsChoice = "as chosen";
  } else {
    const bool colour = std::any_of(images.begin(), images.end(), [](const SourceImage& it) {
      return it.headerOk && it.duplicateOf < 0 && it.header.colour;
    });
    target.channels = colour ? 3 : 1;
    choice.channelsChoice = colour ? "colour images found" : "all images gray";
  }
  NS_CHECK(static_cast<uint64_t>(target.width) * target.height <= kMaxImagePixels,
           "the image size {}x{} is larger than {} pixels: choose a smaller --size", target.width, target.height,
           kMaxImagePixels);
  return choice;
}

}  // namespace netsmith
