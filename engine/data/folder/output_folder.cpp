// checkOutputFolder and checkOutputOutsideSource.
#include "engine/data/folder/output_folder.h"

#include "engine/core/error.h"
#include "engine/data/folder/dataset_contents.h"

namespace fs = std::filesystem;

namespace netsmith {

namespace {

bool folderIsEmpty(const fs::path& dir) {
  std::error_code ec;
  return fs::directory_iterator(dir, ec) == fs::directory_iterator();
}

// Whether `inner` is `outer` or lies below it (both absolute and normalised).
bool within(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
    if (o->empty()) continue;  // a trailing separator
    if (i == inner.end() || *i != *o) return false;
  }
  return true;
}

}  // namespace

OutputFolder checkOutputFolder(const FolderDatasetOptions& options) {
  std::error_code ec;
  fs::path output = fs::absolute(options.output, ec).lexically_normal();
  if (!output.has_filename()) output = output.parent_path();
  NS_CHECK(output.has_filename() && output.filename() != "..", "output folder '{}' cannot be a dataset folder: name a folder",
           options.output.string());
  OutputFolder folder;
  folder.path = output;
  folder.parent = output.parent_path();
  folder.name = output.filename().string();

  // DIR: new, empty, or a dataset of ours with overwrite.
  const fs::file_status outStatus = fs::symlink_status(output, ec);
  if (outStatus.type() != fs::file_type::not_found) {
    NS_CHECK(outStatus.type() == fs::file_type::directory,
             "output '{}' exists and is not a folder: choose a new folder name", output.string());
    if (!folderIsEmpty(output)) {
      NS_CHECK(isFolderDataset(output),
               "output folder '{}' exists and is not empty: choose a new folder (it is not a dataset made by "
               "'dataset create', so it is never replaced)",
               output.string());
      // Replacing exchanges the whole folder: refused while it holds anything the builder did
      // not write (a run, a project, a user's parameters), whatever --overwrite says.
      size_t more = 0;
      const std::vector<std::string> others = entriesNotWrittenByBuilder(output, 8, &more);
      if (!others.empty()) {
        std::string list;
        for (const std::string& e : others) list += (list.empty() ? "" : ", ") + e;
        if (more) list += format(" and {} more", more);
        NS_THROW("output folder '{}' holds a dataset made by 'dataset create' and also what it did not write: {}. "
                 "'dataset create' replaces a dataset only in a folder that holds nothing else, so nothing of yours is "
                 "deleted: move those out, or choose another output folder",
                 output.string(), list);
      }
      NS_CHECK(options.overwrite, "output folder '{}' holds a dataset already: give --overwrite to replace it",
               output.string());
      folder.replacing = true;
    }
  }
  return folder;
}

void checkOutputOutsideSource(const fs::path& output, const fs::path& source) {
  std::error_code ec;
  const fs::path src = fs::weakly_canonical(source, ec);
  const fs::path out = fs::weakly_canonical(output, ec);
  NS_CHECK(!within(out, src), "output folder '{}' is inside the source folder '{}': the source is only read; "
           "write the dataset outside it", output.string(), source.string());
  NS_CHECK(!within(src, out), "the source folder '{}' is inside the output folder '{}': choose another output folder",
           source.string(), output.string());
}

}  // namespace netsmith
