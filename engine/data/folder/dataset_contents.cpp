// entriesNotWrittenByBuilder.
#include "engine/data/folder/dataset_contents.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/data/csv_tokenizer.h"
#include "engine/data/folder/dataset_manifest.h"
#include "engine/data/sample_store.h"

namespace fs = std::filesystem;

namespace netsmith {

namespace {

constexpr const char* kImagesFolder = "images";
constexpr const char* kCsvNames[] = {"training.csv", "validation.csv"};

// The first cells (x:image) of a dataset CSV's rows after the header: images/... paths.
void addImagePaths(const fs::path& csv, std::set<std::string>& paths) {
  std::ifstream in(csv, std::ios::binary);
  if (!in) return;
  std::ostringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  std::vector<std::string> cells;
  size_t pos = 0;
  bool header = true;
  while (pos < all.size()) {
    const csv::RecordScan scan = csv::parseRecord(all, pos, &cells);
    if (scan.next <= pos) break;
    pos = scan.next;
    if (!header && scan.cellCount > 0) paths.insert(cells[0]);
    header = false;
  }
}

class Listing {
 public:
  Listing(size_t limit, size_t* more) : m_limit(limit), m_more(more) {}
  void add(std::string entry) {
    if (m_entries.size() < m_limit) m_entries.push_back(std::move(entry));
    else ++*m_more;
  }
  std::vector<std::string> take() { return std::move(m_entries); }

 private:
  size_t m_limit;
  size_t* m_more;
  std::vector<std::string> m_entries;
};

}  // namespace

std::vector<std::string> entriesNotWrittenByBuilder(const fs::path& dir, size_t limit, size_t* more) {
  size_t ignored = 0;
  if (!more) more = &ignored;
  *more = 0;
  std::set<std::string> topLevel = {kFolderDatasetManifestName, "classes.txt", "report.txt", kImagesFolder};
  std::set<std::string> images;
  for (const char* name : kCsvNames) {
    topLevel.insert(name);
    topLevel.insert(sampleStorePathFor(dir / name).filename().string());
    addImagePaths(dir / name, images);
  }
  Listing found(limit, more);
  std::error_code ec;
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    const fs::file_status status = fs::symlink_status(dir / name, ec);
    const bool folder = status.type() == fs::file_type::directory;
    const bool expected = topLevel.count(name) && (name == kImagesFolder ? folder : status.type() == fs::file_type::regular);
    if (!expected) found.add(folder ? name + "/" : name);
  }
  // Below images/: only the files the CSVs name (and the folders that hold them).
  const fs::path imageRoot = dir / kImagesFolder;
  if (fs::symlink_status(imageRoot, ec).type() == fs::file_type::directory) {
    std::vector<std::string> unexpected;
    for (auto it = fs::recursive_directory_iterator(imageRoot, fs::directory_options::none, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      const fs::file_status status = it->symlink_status(ec);
      if (status.type() == fs::file_type::directory) continue;
      const std::string relative = it->path().lexically_relative(dir).generic_string();
      if (status.type() != fs::file_type::regular || !images.count(relative)) unexpected.push_back(relative);
    }
    std::sort(unexpected.begin(), unexpected.end());
    for (std::string& entry : unexpected) found.add(std::move(entry));
  }
  return found.take();
}

}  // namespace netsmith
