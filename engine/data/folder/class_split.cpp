// assignSplits and countClassImages.
#include "engine/data/folder/class_split.h"

#include <string>

#include "engine/core/error.h"

namespace netsmith {

void assignSplits(std::vector<SourceImage>& images, const std::vector<int64_t>& usable, const FolderScan& scan, double percent,
                  uint64_t seed) {
  if (scan.layout == FolderLayout::ClassFolders) {
    std::vector<int> labels;
    std::vector<std::string> keys;
    for (const int64_t i : usable) {
      labels.push_back(images[i].candidate->label);
      keys.push_back(images[i].candidate->relative);
    }
    const auto splits = chooseValidationSplit(labels, keys, static_cast<int>(scan.classNames.size()), percent, seed);
    for (size_t k = 0; k < usable.size(); ++k) images[usable[k]].split = splits[k];
  } else {
    for (const int64_t i : usable) images[i].split = images[i].candidate->split;
  }
}

void countClassImages(const std::vector<SourceImage>& images, const std::vector<int64_t>& usable, const FolderScan& scan,
                      FolderDatasetResult& result) {
  result.classes.resize(scan.classNames.size());
  for (size_t c = 0; c < scan.classNames.size(); ++c) result.classes[c].name = scan.classNames[c];
  for (const int64_t i : usable) {
    auto& counts = result.classes[images[i].candidate->label];
    (images[i].split == DataSplit::Training ? counts.training : counts.validation) += 1;
  }
  for (size_t c = 0; c < result.classes.size(); ++c) {
    const auto& counts = result.classes[c];
    if (counts.training > 0) {
      if (scan.layout == FolderLayout::GivenSplit && counts.validation == 0)
        result.warnings.push_back(format("class '{}' has no validation image in {}/", counts.name, scan.validationFolder));
      continue;
    }
    // The class's folders and what happened to their files.
    std::string why;
    int listed = 0, skippedHere = 0;
    const std::string folder = (scan.layout == FolderLayout::GivenSplit || !scan.trainingFolder.empty()
                                    ? scan.trainingFolder + "/"
                                    : std::string()) +
                               counts.name + "/";
    for (const auto& k : result.skipped)
      if (k.path.compare(0, folder.size(), folder) == 0) {
        ++skippedHere;
        if (listed++ < 3) why += "; " + k.path + ": " + k.reason;
      }
    for (const auto& d : result.duplicates)
      if (d.path.compare(0, folder.size(), folder) == 0) {
        ++skippedHere;
        if (listed++ < 3) why += "; " + d.path + ": same bytes as " + d.duplicateOf;
      }
    NS_THROW("class '{}' has no usable training image{} ({} file{} in {} left out{}): add PNG or JPEG images to {}, "
             "or remove the folder",
             counts.name,
             counts.validation > 0 ? format(" (only {} in {}/)", counts.validation, scan.validationFolder) : std::string(),
             skippedHere, skippedHere == 1 ? "" : "s", folder, why, (scan.source / folder).string());
  }
}

}  // namespace netsmith
