// listLeftOutFiles and usableImages.
#include "engine/data/folder/left_out_files.h"

#include <algorithm>

#include "engine/core/error.h"

namespace netsmith {

void listLeftOutFiles(const std::vector<SourceImage>& images, FolderDatasetResult& result) {
  for (const SourceImage& it : images) {
    const std::string& rel = it.candidate->relative;
    if (!it.readError.empty()) {
      result.skipped.push_back({rel, it.readError});
    } else if (it.duplicateOf >= 0) {
      const SourceImage& kept = images[it.duplicateOf];
      if (kept.usable) result.duplicates.push_back({rel, kept.candidate->relative});
      else result.skipped.push_back({rel, "same bytes as " + kept.candidate->relative + ", which is skipped: " + kept.decodeError});
    } else if (!it.usable) {
      result.skipped.push_back({rel, it.decodeError});
    }
  }
  std::sort(result.skipped.begin(), result.skipped.end(),
            [](const SkippedFile& a, const SkippedFile& b) { return a.path < b.path; });
}

std::vector<int64_t> usableImages(const std::vector<SourceImage>& images, const std::vector<SkippedFile>& skipped,
                                  const FolderScan& scan) {
  const int64_t n = static_cast<int64_t>(images.size());
  std::vector<int64_t> usable;
  for (int64_t i = 0; i < n; ++i)
    if (images[i].usable) usable.push_back(i);
  if (usable.empty()) {
    std::string listed;
    for (size_t k = 0; k < skipped.size() && k < 5; ++k) listed += (k ? "; " : "") + skipped[k].path + ": " + skipped[k].reason;
    NS_THROW("no image in {} could be used ({} image file{} read, every one skipped): {}{}", scan.source.string(), n,
             n == 1 ? "" : "s", listed,
             skipped.size() > 5 ? format("; and {} more (all listed in the report)", skipped.size() - 5) : std::string());
  }
  return usable;
}

}  // namespace netsmith
