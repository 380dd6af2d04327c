// folderDatasetReport.
#include "engine/data/folder/dataset_report.h"

#include <algorithm>
#include <cstdio>

#include "engine/core/error.h"

namespace netsmith {

std::string folderDatasetReport(const FolderDatasetResult& r, const FolderScan& scan) {
  std::string s = "Netsmith dataset report (netsmith-cli dataset create " NETSMITH_VERSION ")\n\n";
  s += "source:     " + scan.source.string() + "\n";
  if (r.layout == FolderLayout::GivenSplit)
    s += format("layout:     train/ and {}/ with class folders; validation: the images of {}/\n", r.validationFolder,
                r.validationFolder);
  else
    s += format("layout:     {}class folders; validation: {}% of each class, drawn with seed {}\n",
                scan.trainingFolder.empty() ? "" : "train/ with ", r.validationPercent, r.seed);
  s += format("images:     {}x{} (width x height), {} ({}), resize {}\n", r.width, r.height,
              r.channels == 1 ? "1 channel, gray" : "3 channels, RGB", r.channelsChoice, resizeModeName(r.resize));
  s += "size:       " + r.sizeChoice + "\n";
  s += format("\nImages per class ({} classes)\n", r.classes.size());
  size_t wide = 5;
  for (const auto& c : r.classes) wide = std::max(wide, c.name.size());
  char line[512];
  std::snprintf(line, sizeof line, "  %5s  %-*s  %10s  %10s\n", "label", static_cast<int>(wide), "class", "training",
                "validation");
  s += line;
  for (size_t k = 0; k < r.classes.size(); ++k) {
    std::snprintf(line, sizeof line, "  %5zu  %-*s  %10lld  %10lld\n", k, static_cast<int>(wide), r.classes[k].name.c_str(),
                  static_cast<long long>(r.classes[k].training), static_cast<long long>(r.classes[k].validation));
    s += line;
  }
  std::snprintf(line, sizeof line, "  %5s  %-*s  %10lld  %10lld\n", "", static_cast<int>(wide), "total",
                static_cast<long long>(r.trainingCount), static_cast<long long>(r.validationCount));
  s += line;
  s += format("\nSkipped ({}): files left out, and why\n", r.skipped.size());
  for (const auto& k : r.skipped) s += "  " + k.path + ": " + k.reason + "\n";
  if (r.skipped.empty()) s += "  none\n";
  s += format("\nDuplicates ({}): files with the same bytes (SHA-256) as a file kept; the first in path order is kept\n",
              r.duplicates.size());
  for (const auto& d : r.duplicates) s += "  " + d.path + ": same bytes as " + d.duplicateOf + "\n";
  if (r.duplicates.empty()) s += "  none\n";
  s += format("\nWarnings ({})\n", r.warnings.size());
  for (const auto& w : r.warnings) s += "  " + w + "\n";
  if (r.warnings.empty()) s += "  none\n";
  return s;
}

}  // namespace netsmith
