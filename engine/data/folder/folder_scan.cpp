// scanImageFolder (Note [Image folder layout]), chooseValidationSplit (Note [Validation split])
// and readImageHeader.
#include "engine/data/folder/folder_scan.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <utility>

#include "engine/core/error.h"
#include "engine/core/rng.h"
#include "engine/core/utf8.h"
#include "engine/data/image/exif.h"

namespace fs = std::filesystem;

namespace netsmith {

const char* dataSplitName(DataSplit split) { return split == DataSplit::Training ? "training" : "validation"; }

int64_t FolderScan::count(int label, DataSplit split) const {
  return std::count_if(images.begin(), images.end(),
                       [&](const ImageCandidate& c) { return c.label == label && c.split == split; });
}

namespace {

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

bool isHidden(const std::string& name) { return !name.empty() && name[0] == '.'; }

// Why a file name is not read, or "" when it is an image candidate.
std::string extensionProblem(const std::string& name) {
  const auto dot = name.rfind('.');
  const std::string ext = dot == std::string::npos || dot == 0 ? "" : lower(name.substr(dot + 1));
  if (ext == "png" || ext == "jpg" || ext == "jpeg" || ext == "jpe" || ext == "jfif") return "";
  if (ext.empty()) return "not a PNG or JPEG file name (no extension)";
  static const std::set<std::string> kOtherImages = {"bmp", "gif",  "webp", "tif", "tiff", "heic", "heif",
                                                      "avif", "ppm", "pgm", "pbm", "pnm", "jp2", "jxl", "svg"};
  if (kOtherImages.count(ext))
    return "." + ext + " images are not read: convert them to PNG or JPEG";
  return "not a PNG or JPEG file name (." + ext + ")";
}

struct Entry {
  std::string name;
  fs::path path;
  enum Kind { Folder, File, Broken, Other } kind = Other;
  bool link = false;  // a symbolic link (kind says what it points to)
};

// The entries of `dir`, sorted by name; false with the reason when it cannot be listed.
bool listFolder(const fs::path& dir, std::vector<Entry>& out, std::string& why) {
  out.clear();
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  if (ec) {
    why = "cannot read folder: " + ec.message();
    return false;
  }
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    Entry e;
    e.path = it->path();
    e.name = e.path.filename().string();
    std::error_code sec;
    e.link = fs::is_symlink(fs::symlink_status(e.path, sec));
    const fs::file_status st = fs::status(e.path, sec);  // follows symbolic links
    if (sec || st.type() == fs::file_type::not_found) e.kind = fs::is_symlink(fs::symlink_status(e.path, sec)) ? Entry::Broken : Entry::Other;
    else if (st.type() == fs::file_type::directory) e.kind = Entry::Folder;
    else if (st.type() == fs::file_type::regular) e.kind = Entry::File;
    out.push_back(std::move(e));
  }
  if (ec) {
    why = "cannot read folder: " + ec.message();
    return false;
  }
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
  return true;
}

std::string join(const std::string& a, const std::string& b) { return a.empty() ? b : a + "/" + b; }

struct FolderId {
  dev_t dev;
  ino_t ino;
  bool operator<(const FolderId& o) const { return dev != o.dev ? dev < o.dev : ino < o.ino; }
};

bool folderId(const fs::path& p, FolderId& id) {
  struct stat st;
  if (::stat(p.c_str(), &st) != 0) return false;
  id = {st.st_dev, st.st_ino};
  return true;
}

class Scanner {
 public:
  Scanner(FolderScan& scan, const std::function<bool()>& cancelled) : m_scan(scan), m_cancelled(cancelled) {}

  void checkCancelled() {
    if (m_cancelled && m_cancelled()) throw ScanCancelled{};
  }

  void skip(const std::string& path, const std::string& reason) { m_scan.skipped.push_back({path, reason}); }

  // The class folders directly in `rel` (a split root): name -> path. Files there are skipped.
  std::vector<std::pair<std::string, fs::path>> classFolders(const std::string& rel) {
    std::vector<std::pair<std::string, fs::path>> out;
    std::vector<Entry> entries;
    std::string why;
    const fs::path dir = rel.empty() ? m_scan.source : m_scan.source / rel;
    if (!listFolder(dir, entries, why)) NS_THROW("{}: {}", dir.string(), why);
    for (const Entry& e : entries) {
      const std::string path = join(rel, e.name);
      if (isHidden(e.name)) {
        skip(e.kind == Entry::Folder ? path + "/" : path, e.kind == Entry::Folder ? "hidden folder, not read" : "hidden");
      } else if (const std::string target = e.kind == Entry::Folder && e.link ? sourceFolderLinkedTo(e.path) : "";
                 !target.empty()) {
        skip(path + "/", "a symbolic link to " + target + ": not followed (the source's folders are read under their own "
                         "paths, so that each image is labelled by where it is)");
      } else if (e.kind == Entry::Folder) {
        if (e.name.find_first_of("\r\n") != std::string::npos)
          skip(path + "/", "a class name cannot hold a line break (classes.txt has one name per line): rename the folder");
        else
          out.emplace_back(e.name, e.path);
      } else if (e.kind == Entry::Broken) {
        skip(path, "broken symbolic link");
      } else {
        skip(path, "not in a class folder: only the files inside class folders are read");
      }
    }
    return out;
  }

  // For a link to a folder inside SOURCE: the target's path below SOURCE ("." for SOURCE itself);
  // empty when the target lies outside SOURCE (a class folder kept elsewhere is followed).
  std::string sourceFolderLinkedTo(const fs::path& link) const {
    std::error_code ec;
    const fs::path target = fs::canonical(link, ec);
    const fs::path source = fs::canonical(m_scan.source, ec);
    if (ec || target.empty()) return {};
    const fs::path below = target.lexically_relative(source);
    if (below.empty() || *below.begin() == "..") return {};
    return below == "." ? std::string("the source folder") : "the source's '" + below.generic_string() + "/'";
  }

  // Every image candidate below the class folder `dir` (relative path `rel`).
  void walkClass(const fs::path& dir, const std::string& rel, int label, DataSplit split) {
    struct Pending {
      fs::path dir;
      std::string rel;      // below SOURCE
      std::string inClass;  // below the class folder
    };
    std::vector<Pending> stack{{dir, rel, ""}};
    std::vector<Entry> entries;
    while (!stack.empty()) {
      checkCancelled();
      const Pending p = std::move(stack.back());
      stack.pop_back();
      FolderId id{};
      if (folderId(p.dir, id) && !m_visited.insert(id).second) {
        skip(p.rel + "/", "this folder was already read through another path (a symbolic link loop or a second link)");
        continue;
      }
      std::string why;
      if (!listFolder(p.dir, entries, why)) {
        skip(p.rel + "/", why);
        continue;
      }
      for (const Entry& e : entries) {
        const std::string path = join(p.rel, e.name);
        const std::string inClass = join(p.inClass, e.name);
        if (isHidden(e.name)) {
          skip(e.kind == Entry::Folder ? path + "/" : path, e.kind == Entry::Folder ? "hidden folder, not read" : "hidden");
        } else if (const std::string target = e.kind == Entry::Folder && e.link ? sourceFolderLinkedTo(e.path) : "";
                   !target.empty()) {
          // A link to a folder of the source: that folder is read under its own name, so its images
          // keep their own class; following the link could label them by a path they are not under.
          skip(path + "/", "a symbolic link to " + target + ": not followed (the source's folders are read under their own "
                           "paths, so that each image is labelled by where it is)");
        } else if (e.kind == Entry::Folder) {
          stack.push_back({e.path, path, inClass});
        } else if (e.kind == Entry::Broken) {
          skip(path, "broken symbolic link");
        } else if (e.kind == Entry::Other) {
          skip(path, "not a regular file");
        } else if (const std::string problem = extensionProblem(e.name); !problem.empty()) {
          skip(path, problem);
        } else {
          m_scan.images.push_back({e.path, path, inClass, label, split});
        }
      }
    }
  }

 private:
  FolderScan& m_scan;
  const std::function<bool()>& m_cancelled;
  std::set<FolderId> m_visited;
};

}  // namespace

FolderScan scanImageFolder(const fs::path& source, const std::function<bool()>& cancelled) {
  FolderScan scan;
  std::error_code ec;
  NS_CHECK(!source.empty(), "no source folder given: name the folder that holds one subfolder of images per class");
  scan.source = fs::absolute(source, ec).lexically_normal();
  if (!scan.source.has_filename()) scan.source = scan.source.parent_path();  // "dir/" -> "dir"
  const fs::file_status st = fs::status(scan.source, ec);
  NS_CHECK(st.type() != fs::file_type::not_found, "source folder '{}' does not exist", source.string());
  NS_CHECK(st.type() == fs::file_type::directory,
           "source '{}' is not a folder: give the folder that holds one subfolder of images per class",
           source.string());
  Scanner scanner(scan, cancelled);
  scanner.checkCancelled();

  // The layout, from the folders directly in SOURCE.
  std::vector<Entry> top;
  std::string why;
  if (!listFolder(scan.source, top, why)) NS_THROW("{}: {}", scan.source.string(), why);
  auto hasFolder = [&](const char* name) {
    return std::any_of(top.begin(), top.end(), [&](const Entry& e) { return e.kind == Entry::Folder && e.name == name; });
  };
  struct Root {
    std::string rel;
    DataSplit split;
  };
  std::vector<Root> roots;
  if (hasFolder("train") && (hasFolder("val") || hasFolder("test"))) {
    scan.layout = FolderLayout::GivenSplit;
    scan.trainingFolder = "train";
    scan.validationFolder = hasFolder("val") ? "val" : "test";
    roots = {{"train", DataSplit::Training}, {scan.validationFolder, DataSplit::Validation}};
    for (const Entry& e : top) {
      if (e.name == "train" || e.name == scan.validationFolder) continue;
      if (isHidden(e.name)) scanner.skip(e.kind == Entry::Folder ? e.name + "/" : e.name, e.kind == Entry::Folder ? "hidden folder, not read" : "hidden");
      else if (e.kind == Entry::Folder && e.name == "test")
        scanner.skip("test/", "not read: the validation images are those of val/ (train/ and val/ are used as given)");
      else if (e.kind == Entry::Folder)
        scanner.skip(e.name + "/", format("not read: with train/ and {}/ in the source, only those two are read",
                                          scan.validationFolder));
      else scanner.skip(e.name, format("not in train/ or {}/", scan.validationFolder));
    }
  } else if (hasFolder("train") &&
             std::none_of(top.begin(), top.end(), [](const Entry& e) {
               return e.kind == Entry::Folder && !isHidden(e.name) && e.name != "train";
             })) {
    scan.trainingFolder = "train";
    roots = {{"train", DataSplit::Training}};
    for (const Entry& e : top) {
      if (e.name == "train") continue;
      if (isHidden(e.name)) scanner.skip(e.kind == Entry::Folder ? e.name + "/" : e.name, e.kind == Entry::Folder ? "hidden folder, not read" : "hidden");
      else scanner.skip(e.name, "not in train/");
    }
  } else {
    roots = {{"", DataSplit::Training}};
  }

  // Classes: the union of the roots' folders, sorted by name.
  // A folder name that is not UTF-8 (an old archive's Latin-1) names its class with its odd bytes
  // read as Latin-1: class names reach classes.txt, dataset.json and the console, all UTF-8.
  std::vector<std::vector<std::pair<std::string, fs::path>>> folders;
  std::set<std::string> names;
  for (const Root& r : roots) {
    folders.push_back(scanner.classFolders(r.rel));
    std::map<std::string, std::string> folderOfClass;
    for (const auto& [folder, path] : folders.back()) {
      const std::string name = utf8ReadingStrayBytesAsLatin1(folder);
      const auto [it, added] = folderOfClass.emplace(name, folder);
      NS_CHECK(added, "class folders '{}' and '{}' in {} would both be class '{}' (a name that is not UTF-8 is read as "
               "Latin-1): rename one of them",
               utf8ShowingStrayBytes(it->second), utf8ShowingStrayBytes(folder),
               utf8ShowingStrayBytes((scan.source / r.rel).string()), name);
      if (name != folder && !names.count(name))
        scan.warnings.push_back(format("class folder '{}' is not named in UTF-8: its class is '{}' (the name's bytes "
                                       "read as Latin-1)",
                                       utf8ShowingStrayBytes(join(r.rel, folder)), name));
      names.insert(name);
    }
  }
  scan.classNames.assign(names.begin(), names.end());
  if (scan.classNames.size() == 1)
    scan.warnings.push_back(format("there is only one class ('{}'): a classifier trained on it has nothing to tell "
                                   "apart; put each class's images in a folder of their own",
                                   scan.classNames.front()));
  NS_CHECK(!scan.classNames.empty(),
           "{} holds no class folder: put the images of each class in a subfolder named after the class "
           "(SOURCE/cat/1.jpg, SOURCE/dog/2.png), or use train/ and val/ folders that hold such subfolders",
           roots.front().rel.empty() ? scan.source.string() : (scan.source / roots.front().rel).string());
  for (size_t r = 0; r < roots.size(); ++r)
    for (const auto& [folder, path] : folders[r]) {
      const std::string name = utf8ReadingStrayBytesAsLatin1(folder);
      const int label = static_cast<int>(std::lower_bound(scan.classNames.begin(), scan.classNames.end(), name) -
                                         scan.classNames.begin());
      scanner.walkClass(path, join(roots[r].rel, folder), label, roots[r].split);
    }

  std::sort(scan.images.begin(), scan.images.end(), [](const ImageCandidate& a, const ImageCandidate& b) {
    if (a.split != b.split) return a.split < b.split;
    if (a.label != b.label) return a.label < b.label;
    return a.inClass < b.inClass;
  });
  std::sort(scan.skipped.begin(), scan.skipped.end(),
            [](const SkippedFile& a, const SkippedFile& b) { return a.path < b.path; });
  if (scan.images.empty()) {
    std::string listed;
    for (size_t k = 0; k < scan.skipped.size() && k < 5; ++k)
      listed += (k ? "; " : ": ") + scan.skipped[k].path + " (" + scan.skipped[k].reason + ")";
    if (scan.skipped.size() > 5) listed += format("; and {} more", scan.skipped.size() - 5);
    NS_THROW("{} holds no PNG or JPEG image in its class folders ({}){}", scan.source.string(),
             scan.classNames.size() == 1 ? "1 class folder" : format("{} class folders", scan.classNames.size()),
             scan.skipped.empty() ? std::string() : ", files left out" + listed);
  }
  return scan;
}

// --- the validation split ----------------------------------------------------------------------

std::vector<DataSplit> chooseValidationSplit(const std::vector<int>& labels, const std::vector<std::string>& keys,
                                             int numClasses, double percent, uint64_t seed) {
  NS_CHECK(labels.size() == keys.size(), "chooseValidationSplit: {} labels for {} keys", labels.size(), keys.size());
  NS_CHECK(std::isfinite(percent) && percent >= 0 && percent < 100,
           "the validation share must be at least 0 and below 100 percent, got {}", percent);
  std::vector<DataSplit> out(labels.size(), DataSplit::Training);
  std::vector<std::vector<std::pair<uint64_t, size_t>>> byClass(static_cast<size_t>(std::max(numClasses, 0)));
  for (size_t i = 0; i < labels.size(); ++i) {
    NS_CHECK(labels[i] >= 0 && labels[i] < numClasses, "chooseValidationSplit: label {} outside 0..{}", labels[i],
             numClasses - 1);
    uint64_t h = 0xCBF29CE484222325ull;  // FNV-1a 64
    for (const unsigned char c : keys[i]) h = (h ^ c) * 0x100000001B3ull;
    byClass[labels[i]].emplace_back(mix64(seed ^ mix64(h)), i);
  }
  for (auto& items : byClass) {
    const int64_t n = static_cast<int64_t>(items.size());
    if (n < 2) continue;
    const int64_t v = std::min<int64_t>(static_cast<int64_t>(std::floor(n * percent / 100.0 + 0.5)), n - 1);
    if (v <= 0) continue;
    std::partial_sort(items.begin(), items.begin() + v, items.end(), [&](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : keys[a.second] < keys[b.second];
    });
    for (int64_t k = 0; k < v; ++k) out[items[k].second] = DataSplit::Validation;
  }
  return out;
}

// --- image headers -----------------------------------------------------------------------------

namespace {

uint32_t be32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}
unsigned be16(const unsigned char* p) { return (unsigned{p[0]} << 8) | unsigned{p[1]}; }

bool readPngHeader(const unsigned char* b, size_t size, ImageHeader& h) {
  // signature (8) | length (4) = 13 | "IHDR" | width (4) | height (4) | depth | colour type
  if (size < 8 + 8 + 13) return false;
  if (be32(b + 8) != 13 || std::memcmp(b + 12, "IHDR", 4) != 0) return false;
  const uint32_t w = be32(b + 16), hgt = be32(b + 20);
  if (w == 0 || hgt == 0 || w > 0x7FFFFFFFu || hgt > 0x7FFFFFFFu) return false;
  const unsigned type = b[25];
  if (type != 0 && type != 2 && type != 3 && type != 4 && type != 6) return false;
  h.width = static_cast<int>(w);
  h.height = static_cast<int>(hgt);
  h.colour = type == 2 || type == 3 || type == 6;
  return true;
}

bool readJpegHeader(const unsigned char* b, size_t size, ImageHeader& h) {
  if (size < 4 || b[0] != 0xFF || b[1] != 0xD8) return false;
  size_t at = 2;
  int orientation = 1;
  bool exifSeen = false;
  while (at < size) {
    if (b[at] != 0xFF) return false;  // not at a marker: damaged
    while (at < size && b[at] == 0xFF) ++at;  // fill bytes
    if (at >= size) return false;
    const unsigned marker = b[at++];
    if (marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) continue;  // no length
    if (marker == 0xD9 || marker == 0xDA) return false;  // end of image, or scan data before any frame
    if (at + 2 > size) return false;
    const unsigned length = be16(b + at);
    if (length < 2 || at + length > size) return false;
    const unsigned char* payload = b + at + 2;
    const size_t payloadSize = length - 2;
    if (marker == 0xE1 && !exifSeen && payloadSize >= 6 && std::memcmp(payload, "Exif\0\0", 6) == 0) {
      exifSeen = true;  // decodeImage reads the first Exif segment
      std::string problem;
      const int o = parseExifOrientation(payload, payloadSize, problem);
      if (o >= 1 && o <= 8) orientation = o;
    }
    const bool sof = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
    if (sof) {
      // precision | height (2) | width (2) | components
      if (payloadSize < 6) return false;
      const unsigned hgt = be16(payload + 1), w = be16(payload + 3), components = payload[5];
      if (w == 0 || hgt == 0 || components == 0) return false;
      const bool turned = orientation >= 5;
      h.width = static_cast<int>(turned ? hgt : w);
      h.height = static_cast<int>(turned ? w : hgt);
      h.colour = components >= 3;
      return true;
    }
    at += length;
  }
  return false;
}

}  // namespace

bool readImageHeader(const unsigned char* bytes, size_t size, ImageHeader& header) {
  if (!bytes) return false;
  ImageHeader h;
  static constexpr unsigned char kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  const bool ok = size >= 8 && std::memcmp(bytes, kPng, 8) == 0 ? readPngHeader(bytes, size, h)
                                                                   : readJpegHeader(bytes, size, h);
  if (ok) header = h;
  return ok;
}

}  // namespace netsmith
