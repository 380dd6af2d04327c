// dataset.json of a folder dataset: its settings and counts, and the mark by which
// isFolderDataset knows a folder that `dataset create --overwrite` may replace.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "engine/data/folder/dataset_builder.h"

namespace netsmith {

constexpr const char* kFolderDatasetManifestName = "dataset.json";

// The text of dataset.json (2-space indented, ending in a line break) for a finished build.
std::string folderDatasetManifest(const FolderDatasetResult& result, const FolderScan& scan);

// What the folder dataset in `dir` made of every image (dataset.json's width, height, channels
// and resize); nullopt when `dir` holds no readable dataset.json of `dataset create`.
std::optional<ImageTarget> folderDatasetImageTarget(const std::filesystem::path& dir);

}  // namespace netsmith
