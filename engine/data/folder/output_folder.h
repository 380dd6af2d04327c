// DIR, the folder a dataset is written to: what it may be before a build (new, empty, or a dataset
// of this builder with overwrite) and where it may not be (Note [Folder dataset]).
#pragma once

#include <filesystem>
#include <string>

#include "engine/data/folder/dataset_builder.h"

namespace netsmith {

struct OutputFolder {
  std::filesystem::path path;    // absolute, normalised, without a trailing separator
  std::filesystem::path parent;  // where the partial folder is made
  std::string name;              // path's last part
  bool replacing = false;        // path holds a dataset of this builder, to be replaced
};

// Resolves options.output and checks what it holds now. Throws Error naming the folder when it
// names no folder, is not a folder, or is not empty and not a dataset of this builder, or is
// one and options.overwrite is not set.
OutputFolder checkOutputFolder(const FolderDatasetOptions& options);

// Throws Error when `output` lies inside `source` or `source` inside `output` (both absolute):
// the source is only read, and a dataset written into it would be read by the next build.
void checkOutputOutsideSource(const std::filesystem::path& output, const std::filesystem::path& source);

}  // namespace netsmith
