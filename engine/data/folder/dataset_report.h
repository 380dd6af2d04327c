// report.txt of a folder dataset (Note [Folder dataset]).
#pragma once

#include <string>

#include "engine/data/folder/dataset_builder.h"

namespace netsmith {

// The report: source, layout, size and channels and why, images per class and split, every
// skipped file and duplicate with the reason, the warnings.
std::string folderDatasetReport(const FolderDatasetResult& result, const FolderScan& scan);

}  // namespace netsmith
