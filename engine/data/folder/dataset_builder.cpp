// buildFolderDataset (Note [Folder dataset]).
#include "engine/data/folder/dataset_builder.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <utility>

#include <nlohmann/json.hpp>

#include "engine/core/atomic_file.h"
#include "engine/core/error.h"
#include "engine/core/sha256.h"
#include "engine/data/class_names.h"
#include "engine/data/image/png_writer.h"
#include "engine/data/sample_store.h"

namespace fs = std::filesystem;

namespace netsmith {

const char* buildStageName(BuildStage stage) {
  switch (stage) {
    case BuildStage::Scanning: return "scanning";
    case BuildStage::Reading: return "reading";
    case BuildStage::Converting: return "converting";
    case BuildStage::Writing: return "writing";
    case BuildStage::Finishing: return "finishing";
  }
  return "?";
}

std::string FolderDatasetResult::projectJson() const {
  nlohmann::ordered_json j;
  j["training"] = {{"format", "csv"}, {"csv", trainingCsv.string()}};
  if (!validationCsv.empty()) j["validation"] = {{"format", "csv"}, {"csv", validationCsv.string()}};
  return j.dump();
}

namespace {

constexpr const char* kManifestName = "dataset.json";
constexpr const char* kManifestFormat = "netsmith-folder-dataset";
constexpr int kMaxSide = 8192;
constexpr int kPngCompression = 6;

struct Cancelled {};

// --- the partial folder ------------------------------------------------------------------------

// The hidden sibling DIR is built in, locked (flock on the folder) while its builder lives, and
// removed unless committed.
class PartialFolder {
 public:
  PartialFolder(const fs::path& parent, const std::string& name) {
    std::string templ = (parent / ("." + name + ".partial-XXXXXX")).string();
    NS_CHECK(::mkdtemp(templ.data()) != nullptr, "cannot create a folder in {} to build the dataset in: {}",
             parent.string(), std::strerror(errno));
    m_path = templ;
    m_fd = ::open(m_path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (m_fd < 0 || ::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
      const int e = errno;
      cleanup();
      NS_THROW("cannot lock the folder {}: {}", m_path.string(), std::strerror(e));
    }
  }
  ~PartialFolder() { cleanup(); }
  PartialFolder(const PartialFolder&) = delete;
  PartialFolder& operator=(const PartialFolder&) = delete;

  const fs::path& path() const { return m_path; }
  int fd() const { return m_fd; }
  // After the rename: the folder is DIR now, nothing to remove; the lock goes with the fd.
  void committed() {
    m_committed = true;
    if (m_fd >= 0) ::close(m_fd);
    m_fd = -1;
  }

 private:
  void cleanup() {
    if (!m_committed && !m_path.empty()) {
      std::error_code ec;
      fs::remove_all(m_path, ec);
    }
    if (m_fd >= 0) ::close(m_fd);
    m_fd = -1;
  }
  fs::path m_path;
  int m_fd = -1;
  bool m_committed = false;
};

// Removes the partial folders of builds into `parent`/`name` that were killed: those no living
// builder holds the lock of.
std::vector<std::string> removeStalePartials(const fs::path& parent, const std::string& name) {
  std::vector<std::string> removed;
  const std::string prefix = "." + name + ".partial-";
  std::error_code ec;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string entry = it->path().filename().string();
    if (entry.compare(0, prefix.size(), prefix) != 0 || entry.size() != prefix.size() + 6) continue;
    std::error_code sec;
    if (!fs::is_directory(fs::symlink_status(it->path(), sec))) continue;
    const int fd = ::open(it->path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) continue;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {  // no builder holds it: stale
      std::error_code rec;
      fs::remove_all(it->path(), rec);
      if (!rec) removed.push_back(it->path().string());
    }
    ::close(fd);
  }
  return removed;
}

// The process's umask, without changing it (umask(2) cannot be read without setting it, which
// would race with other threads creating files).
mode_t currentUmask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
  return 022;
}

uint64_t folderBytes(const fs::path& dir) {
  uint64_t total = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code sec;
    if (it->is_regular_file(sec)) total += it->file_size(sec);
  }
  return total;
}

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

// --- per-image work ----------------------------------------------------------------------------

struct Item {
  const ImageCandidate* candidate = nullptr;
  // Reading
  std::array<uint8_t, 32> sha{};
  bool read = false;        // bytes read (sha valid)
  bool headerOk = false;
  ImageHeader header;
  std::string readError;    // the file could not be read at all
  int duplicateOf = -1;     // index of the kept item with the same bytes
  // Converting
  std::string output;       // "images/cat/a.png"
  bool usable = false;
  int64_t sample = -1;      // index in the raw samples file
  std::string decodeError;
  DataSplit split = DataSplit::Training;
};

std::string quoteCsvCell(const std::string& s) {
  const bool needs = s.find_first_of(",\"\r\n") != std::string::npos || (!s.empty() && (s.front() == ' ' || s.back() == ' ' ||
                                                                                         s.front() == '\t' || s.back() == '\t'));
  if (!needs) return s;
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// Reads a whole file (up to kMaxImageFileBytes) hashing it; false with the reason.
bool readAndHash(const fs::path& path, std::vector<unsigned char>& bytes, std::array<uint8_t, 32>& sha, std::string& why) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    why = "cannot open image file '" + path.string() + "': " + std::strerror(errno);
    return false;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    why = "cannot read image file '" + path.string() + "': not a regular file";
    ::close(fd);
    return false;
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxImageFileBytes) {
    why = "image file '" + path.string() + "' is " + std::to_string(st.st_size >> 20) + " MiB, too large for a dataset image";
    ::close(fd);
    return false;
  }
  bytes.resize(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      why = "cannot read image file '" + path.string() + "': " + std::strerror(errno);
      ::close(fd);
      return false;
    }
    if (n == 0) break;  // shorter than stat said: it changed; hash what is there
    got += static_cast<size_t>(n);
  }
  bytes.resize(got);
  ::close(fd);
  Sha256 h;
  h.update(bytes.data(), bytes.size());
  sha = h.digest();
  return true;
}

void hwcToChw(const Image& image, uint8_t* chw) {
  const size_t plane = static_cast<size_t>(image.width) * image.height;
  const int c = image.channels;
  if (c == 1) {
    std::memcpy(chw, image.pixels.data(), plane);
    return;
  }
  for (size_t i = 0; i < plane; ++i)
    for (int k = 0; k < c; ++k) chw[k * plane + i] = image.pixels[i * c + k];
}

// The raw samples of the converting pass, in its order, read back by index for the stores.
class RawSamples {
 public:
  RawSamples(fs::path path, size_t sampleBytes) : m_path(std::move(path)), m_bytes(sampleBytes) {
    m_fd = ::open(m_path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    NS_CHECK(m_fd >= 0, "{}: cannot create: {}", m_path.string(), std::strerror(errno));
  }
  ~RawSamples() {
    if (m_fd >= 0) ::close(m_fd);
    std::error_code ec;
    fs::remove(m_path, ec);
  }
  RawSamples(const RawSamples&) = delete;
  RawSamples& operator=(const RawSamples&) = delete;
  int64_t append(const uint8_t* data) {
    io(const_cast<uint8_t*>(data), m_count, true);
    return m_count++;
  }
  void read(int64_t index, uint8_t* data) { io(data, index, false); }

 private:
  void io(uint8_t* data, int64_t index, bool write) {
    size_t done = 0;
    const off_t at = static_cast<off_t>(index) * static_cast<off_t>(m_bytes);
    while (done < m_bytes) {
      const ssize_t n = write ? ::pwrite(m_fd, data + done, m_bytes - done, at + static_cast<off_t>(done))
                              : ::pread(m_fd, data + done, m_bytes - done, at + static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      NS_CHECK(n > 0, "{}: cannot {}: {}", m_path.string(), write ? "write" : "read",
               n < 0 ? std::strerror(errno) : "unexpected end of file");
      done += static_cast<size_t>(n);
    }
  }
  fs::path m_path;
  size_t m_bytes;
  int m_fd = -1;
  int64_t m_count = 0;
};

// Output names: images/[split folder/]<class>/<path below the class folder>.png. A name taken by
// another file of the same folder (a.jpg next to a.png) gets the source's extension: a_jpg.png.
void assignOutputNames(std::vector<Item>& items, const FolderScan& scan) {
  std::set<std::string> used;
  auto base = [&](const Item& it) {
    const ImageCandidate& c = *it.candidate;
    std::string prefix = "images/";
    if (scan.layout == FolderLayout::GivenSplit)
      prefix += (c.split == DataSplit::Training ? scan.trainingFolder : scan.validationFolder) + "/";
    prefix += scan.classNames[c.label] + "/";
    const auto slash = c.inClass.rfind('/');
    const auto dot = c.inClass.rfind('.');
    const std::string stem = dot == std::string::npos || (slash != std::string::npos && dot < slash) ? c.inClass
                                                                                                       : c.inClass.substr(0, dot);
    const std::string ext = dot == std::string::npos ? "" : c.inClass.substr(dot + 1);
    return std::make_pair(prefix + stem, ext);
  };
  auto lowerExt = [](std::string e) {
    for (char& ch : e) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return e;
  };
  // .png sources first keep their own names, then the others.
  for (int round = 0; round < 2; ++round)
    for (Item& it : items) {
      if (it.duplicateOf >= 0 || !it.readError.empty()) continue;
      const auto [stem, ext] = base(it);
      const bool png = lowerExt(ext) == "png";
      if ((round == 0) != png) continue;
      std::string name = stem + ".png";
      if (used.count(name)) name = stem + "_" + lowerExt(ext) + ".png";
      for (int k = 2; used.count(name); ++k) name = stem + "_" + lowerExt(ext) + "_" + std::to_string(k) + ".png";
      used.insert(name);
      it.output = name;
    }
}

std::string reportText(const FolderDatasetResult& r, const FolderScan& scan, const std::string& sourceText) {
  std::string s = "Netsmith dataset report (netsmith-cli dataset create " NETSMITH_VERSION ")\n\n";
  s += "source:     " + sourceText + "\n";
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

// Note [Ordered pipeline]
// Decoding runs on `threads` worker threads of our own (not OpenMP: between short parallel
// regions its idle threads spin, and on a busy 2-core machine that spinning took 5x the time),
// while the calling thread consumes the results strictly in index order: it appends samples to
// the raw file, reports progress and polls for cancellation. A worker may start item i only when
// i < consumed + window, so at most `window` results wait at once (bounded memory) and result
// slot i % window is free when item i starts. The output depends on the index order alone.
// work(i, slot) runs on a worker and must not throw (it records its own failures); done(i, slot)
// runs on the calling thread in order and may throw, as may poll(): then the workers finish
// the item they hold and stop, and the exception goes on.
template <typename Work, typename Done>
void runOrdered(int64_t n, int threads, int64_t window, Work work, Done done, const std::function<void()>& poll) {
  if (n <= 0) return;
  std::mutex mutex;
  std::condition_variable toWorkers, toMain;
  int64_t next = 0, consumed = 0;
  bool stop = false;
  std::vector<char> finished(static_cast<size_t>(n), 0);
  auto worker = [&] {
    for (;;) {
      int64_t i;
      {
        std::unique_lock lock(mutex);
        toWorkers.wait(lock, [&] { return stop || next >= n || next < consumed + window; });
        if (stop || next >= n) return;
        i = next++;
      }
      work(i, static_cast<size_t>(i % window));
      {
        std::lock_guard lock(mutex);
        finished[static_cast<size_t>(i)] = 1;
      }
      toMain.notify_one();
    }
  };
  std::vector<std::thread> pool;
  auto finish = [&] {
    {
      std::lock_guard lock(mutex);
      stop = true;
    }
    toWorkers.notify_all();
    for (auto& t : pool) t.join();
    pool.clear();
  };
  try {
    for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
    while (consumed < n) {
      {
        std::unique_lock lock(mutex);
        toMain.wait_for(lock, std::chrono::milliseconds(50), [&] { return finished[static_cast<size_t>(consumed)] != 0; });
      }
      poll();
      for (;;) {
        {
          std::lock_guard lock(mutex);
          if (consumed >= n || !finished[static_cast<size_t>(consumed)]) break;
        }
        done(consumed, static_cast<size_t>(consumed % window));
        {
          std::lock_guard lock(mutex);
          ++consumed;
        }
        toWorkers.notify_all();
      }
    }
  } catch (...) {
    finish();
    throw;
  }
  finish();
}

int defaultThreads() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace

bool isFolderDataset(const fs::path& dir) {
  std::ifstream in(dir / kManifestName);
  if (!in) return false;
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  return j.is_object() && j.value("format", "") == kManifestFormat;
}

FolderDatasetResult buildFolderDataset(const FolderDatasetOptions& options, const FolderDatasetCallbacks& callbacks) {
  const auto startTime = std::chrono::steady_clock::now();
  FolderDatasetResult result;
  auto progress = [&](BuildStage stage, int64_t done, int64_t total) {
    if (callbacks.progress) callbacks.progress(BuildProgress{stage, done, total});
  };
  auto checkCancelled = [&] {
    if (callbacks.cancelled && callbacks.cancelled()) throw Cancelled{};
  };

  // --- options ---
  NS_CHECK(!options.output.empty(), "no output folder given: name the folder to write the dataset to");
  NS_CHECK((options.width == 0) == (options.height == 0),
           "the image size needs both a width and a height, got {}x{}", options.width, options.height);
  NS_CHECK(options.width == 0 || (options.width >= 1 && options.width <= kMaxSide && options.height >= 1 &&
                                  options.height <= kMaxSide),
           "the image size must be 1 to {} pixels on each side, got {}x{}", kMaxSide, options.width, options.height);
  NS_CHECK(options.channels == 0 || options.channels == 1 || options.channels == 3,
           "channels must be 1 (gray) or 3 (RGB), got {}", options.channels);
  NS_CHECK(!options.validationPercent ||
               (std::isfinite(*options.validationPercent) && *options.validationPercent >= 0 &&
                *options.validationPercent < 100),
           "the validation share must be a percentage from 0 up to (not including) 100, got {}",
           options.validationPercent.value_or(0));
  NS_CHECK(options.threads >= 0, "threads must be 0 (all) or more, got {}", options.threads);
  std::error_code ec;
  fs::path output = fs::absolute(options.output, ec).lexically_normal();
  if (!output.has_filename()) output = output.parent_path();
  NS_CHECK(output.has_filename() && output.filename() != "..", "output folder '{}' cannot be a dataset folder: name a folder",
           options.output.string());
  const fs::path parent = output.parent_path();
  const std::string name = output.filename().string();
  result.output = output;

  // DIR: new, empty, or a dataset of ours with overwrite.
  const fs::file_status outStatus = fs::symlink_status(output, ec);
  bool replacing = false;
  if (outStatus.type() != fs::file_type::not_found) {
    NS_CHECK(outStatus.type() == fs::file_type::directory,
             "output '{}' exists and is not a folder: choose a new folder name", output.string());
    if (!folderIsEmpty(output)) {
      NS_CHECK(isFolderDataset(output),
               "output folder '{}' exists and is not empty: choose a new folder (it is not a dataset made by "
               "'dataset create', so it is never replaced)",
               output.string());
      NS_CHECK(options.overwrite, "output folder '{}' holds a dataset already: give --overwrite to replace it",
               output.string());
      replacing = true;
    }
  }

  // --- scan ---
  progress(BuildStage::Scanning, 0, 0);
  FolderScan scan;
  try {
    scan = scanImageFolder(options.source, callbacks.cancelled);
  } catch (const ScanCancelled&) {
    result.cancelled = true;
    return result;
  }
  {
    const fs::path src = fs::weakly_canonical(scan.source, ec);
    const fs::path out = fs::weakly_canonical(output, ec);
    NS_CHECK(!within(out, src), "output folder '{}' is inside the source folder '{}': the source is only read; "
             "write the dataset outside it", output.string(), scan.source.string());
    NS_CHECK(!within(src, out), "the source folder '{}' is inside the output folder '{}': choose another output folder",
             scan.source.string(), output.string());
  }
  NS_CHECK(scan.layout == FolderLayout::ClassFolders || !options.validationPercent,
           "{} has train/ and {}/ folders, so the validation images are those of {}/: leave out the validation "
           "percentage (--validation), or move the images into class folders to draw a split",
           scan.source.string(), scan.validationFolder, scan.validationFolder);
  result.layout = scan.layout;
  result.seed = options.seed;
  result.validationFolder = scan.validationFolder;
  result.validationPercent =
      scan.layout == FolderLayout::ClassFolders ? options.validationPercent.value_or(kDefaultValidationPercent) : 0;
  result.warnings = scan.warnings;
  result.skipped = scan.skipped;
  result.candidates = static_cast<int64_t>(scan.images.size());
  progress(BuildStage::Scanning, result.candidates, result.candidates);

  fs::create_directories(parent, ec);
  NS_CHECK(fs::is_directory(parent), "cannot create the folder {}: {}", parent.string(), ec.message());
  result.removedStale = removeStalePartials(parent, name);

  const int threads = options.threads > 0 ? options.threads : defaultThreads();
  const int64_t n = static_cast<int64_t>(scan.images.size());
  std::vector<Item> items(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) items[i].candidate = &scan.images[i];

  try {
    PartialFolder partial(parent, name);

    // --- reading: bytes, SHA-256, header ---
    const int64_t window = std::max<int64_t>(64, int64_t{threads} * 16);
    const int64_t step = std::max<int64_t>(1, n / 200);  // progress about every 0.5%
    progress(BuildStage::Reading, 0, n);
    runOrdered(
        n, threads, window,
        [&](int64_t i, size_t) {
          Item& it = items[i];
          std::vector<unsigned char> bytes;
          try {
            it.read = readAndHash(it.candidate->path, bytes, it.sha, it.readError);
            if (it.read) it.headerOk = readImageHeader(bytes.data(), bytes.size(), it.header);
          } catch (const std::exception& e) {
            it.read = false;
            it.readError = "cannot read image file '" + it.candidate->path.string() + "': " + e.what();
          }
        },
        [&](int64_t i, size_t) {
          if ((i + 1) % step == 0) progress(BuildStage::Reading, i + 1, n);
        },
        checkCancelled);
    progress(BuildStage::Reading, n, n);
    // Exact duplicates among the files with an image header (an empty or junk file is skipped
    // for what it is, not as the copy of another).
    {
      std::map<std::array<uint8_t, 32>, int64_t> firstBySha;
      for (int64_t i = 0; i < n; ++i) {
        if (!items[i].read || !items[i].headerOk) continue;
        const auto [pos, inserted] = firstBySha.emplace(items[i].sha, i);
        if (!inserted) items[i].duplicateOf = static_cast<int>(pos->second);
      }
    }

    // --- size and channels ---
    ImageTarget target;
    target.mode = options.resize;
    result.resize = options.resize;
    int64_t withHeader = 0;
    if (options.width > 0) {
      target.width = options.width;
      target.height = options.height;
      result.sizeChoice = "given (--size)";
    } else {
      std::map<std::pair<int, int>, int64_t> sizes;
      for (const Item& it : items)
        if (it.headerOk && it.duplicateOf < 0) {
          ++sizes[{it.header.width, it.header.height}];
          ++withHeader;
        }
      if (sizes.empty()) {
        std::string listed;
        for (int64_t i = 0; i < n && i < 5; ++i)
          listed += (i ? "; " : "") + (items[i].readError.empty() ? items[i].candidate->relative : items[i].readError);
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
      target.width = std::min(best->first.first, kMaxSide);
      target.height = std::min(best->first.second, kMaxSide);
      result.sizeChoice = format("the most common in the source: {} of {} image headers read{}", best->second, withHeader,
                                 sizes.size() == 1 ? "" : format(" ({} sizes found; --size sets another)", sizes.size()));
    }
    if (options.channels > 0) {
      target.channels = options.channels;
      result.channelsChoice = "given (--channels)";
    } else {
      const bool colour = std::any_of(items.begin(), items.end(),
                                      [](const Item& it) { return it.headerOk && it.duplicateOf < 0 && it.header.colour; });
      target.channels = colour ? 3 : 1;
      result.channelsChoice = colour ? "colour images found" : "all images gray";
    }
    NS_CHECK(static_cast<uint64_t>(target.width) * target.height <= kMaxImagePixels,
             "the image size {}x{} is larger than {} pixels: choose a smaller --size", target.width, target.height,
             kMaxImagePixels);
    result.width = target.width;
    result.height = target.height;
    result.channels = target.channels;

    // --- converting: decode, resize, write the PNG, keep the CHW sample ---
    assignOutputNames(items, scan);
    {
      std::set<fs::path> folders;
      for (const Item& it : items)
        if (!it.output.empty()) folders.insert((partial.path() / it.output).parent_path());
      for (const fs::path& f : folders) {
        fs::create_directories(f, ec);
        NS_CHECK(!ec, "{}: cannot create the folder: {}", f.string(), ec.message());
      }
    }
    const size_t sampleBytes = static_cast<size_t>(target.channels) * target.width * target.height;
    std::optional<RawSamples> raw;
    raw.emplace(partial.path() / ".samples.tmp", sampleBytes);
    std::vector<int64_t> work;
    for (int64_t i = 0; i < n; ++i)
      if (!items[i].output.empty()) work.push_back(i);
    const int64_t total = static_cast<int64_t>(work.size());
    std::vector<uint8_t> buffer(static_cast<size_t>(window) * sampleBytes);
    std::vector<std::string> writeErrors(static_cast<size_t>(window));
    const int64_t convertStep = std::max<int64_t>(1, total / 200);
    progress(BuildStage::Converting, 0, total);
    runOrdered(
        total, threads, window,
        [&](int64_t k, size_t slot) {
          Item& it = items[work[k]];
          std::string& writeError = writeErrors[slot];
          writeError.clear();
          try {
            Image decoded;
            ImageDecodeOptions decodeOptions;
            decodeOptions.minWidth = target.width;
            decodeOptions.minHeight = target.height;
            if (!decodeImage(it.candidate->path.string(), decoded, it.decodeError, nullptr, decodeOptions)) return;
            const Image prepared = prepareImage(decoded, target);
            if (!writePngImage(partial.path() / it.output, prepared, writeError, kPngCompression)) return;
            hwcToChw(prepared, buffer.data() + slot * sampleBytes);
            it.usable = true;
          } catch (const std::exception& e) {
            it.decodeError = "cannot convert image file '" + it.candidate->path.string() + "': " + e.what();
          }
        },
        [&](int64_t k, size_t slot) {
          if (!writeErrors[slot].empty()) NS_THROW("{}", writeErrors[slot]);
          Item& it = items[work[k]];
          if (it.usable) it.sample = raw->append(buffer.data() + slot * sampleBytes);
          if ((k + 1) % convertStep == 0) progress(BuildStage::Converting, k + 1, total);
        },
        checkCancelled);
    progress(BuildStage::Converting, total, total);
    checkCancelled();

    // What was left out, and the duplicates.
    for (const Item& it : items) {
      const std::string& rel = it.candidate->relative;
      if (!it.readError.empty()) {
        result.skipped.push_back({rel, it.readError});
      } else if (it.duplicateOf >= 0) {
        const Item& kept = items[it.duplicateOf];
        if (kept.usable) result.duplicates.push_back({rel, kept.candidate->relative});
        else result.skipped.push_back({rel, "same bytes as " + kept.candidate->relative + ", which is skipped: " + kept.decodeError});
      } else if (!it.usable) {
        result.skipped.push_back({rel, it.decodeError});
      }
    }
    std::sort(result.skipped.begin(), result.skipped.end(),
              [](const SkippedFile& a, const SkippedFile& b) { return a.path < b.path; });

    // --- the split ---
    std::vector<int64_t> usable;
    for (int64_t i = 0; i < n; ++i)
      if (items[i].usable) usable.push_back(i);
    if (usable.empty()) {
      std::string listed;
      for (size_t k = 0; k < result.skipped.size() && k < 5; ++k)
        listed += (k ? "; " : "") + result.skipped[k].path + ": " + result.skipped[k].reason;
      NS_THROW("no image in {} could be used ({} image file{} read, every one skipped): {}{}", scan.source.string(), n,
               n == 1 ? "" : "s", listed,
               result.skipped.size() > 5 ? format("; and {} more (all listed in the report)", result.skipped.size() - 5)
                                         : std::string());
    }
    if (scan.layout == FolderLayout::ClassFolders) {
      std::vector<int> labels;
      std::vector<std::string> keys;
      for (const int64_t i : usable) {
        labels.push_back(items[i].candidate->label);
        keys.push_back(items[i].candidate->relative);
      }
      const auto splits = chooseValidationSplit(labels, keys, static_cast<int>(scan.classNames.size()),
                                                result.validationPercent, options.seed);
      for (size_t k = 0; k < usable.size(); ++k) items[usable[k]].split = splits[k];
    } else {
      for (const int64_t i : usable) items[i].split = items[i].candidate->split;
    }
    result.classes.resize(scan.classNames.size());
    for (size_t c = 0; c < scan.classNames.size(); ++c) result.classes[c].name = scan.classNames[c];
    for (const int64_t i : usable) {
      auto& counts = result.classes[items[i].candidate->label];
      (items[i].split == DataSplit::Training ? counts.training : counts.validation) += 1;
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

    // --- writing: CSVs and stores ---
    std::vector<int64_t> rows[2];
    for (const int64_t i : usable) rows[static_cast<int>(items[i].split)].push_back(i);
    result.trainingCount = static_cast<int64_t>(rows[0].size());
    result.validationCount = static_cast<int64_t>(rows[1].size());
    const int64_t allRows = result.trainingCount + result.validationCount;
    int64_t written = 0;
    progress(BuildStage::Writing, 0, allRows);
    std::vector<uint8_t> sample(sampleBytes);
    for (int s = 0; s < 2; ++s) {
      if (rows[s].empty()) continue;
      const fs::path csv = partial.path() / (s == 0 ? "training.csv" : "validation.csv");
      std::string text = "x:image,y:label\n";
      for (const int64_t i : rows[s])
        text += quoteCsvCell(items[i].output) + "," + std::to_string(items[i].candidate->label) + "\n";
      writeFileAtomically(csv, text);
      SampleStoreWriter store(sampleStorePathFor(csv), target.channels, target.height, target.width);
      for (size_t r = 0; r < rows[s].size(); ++r) {
        if (r % 1024 == 0) {
          checkCancelled();
          progress(BuildStage::Writing, written, allRows);
        }
        raw->read(items[rows[s][r]].sample, sample.data());
        store.append(sample.data());
        ++written;
      }
      store.commit(sha256Hex(text.data(), text.size()));
      (s == 0 ? result.trainingCsv : result.validationCsv) = output / csv.filename();
    }
    progress(BuildStage::Writing, allRows, allRows);
    checkCancelled();

    // --- classes, report, manifest ---
    writeClassNames(partial.path() / "classes.txt", scan.classNames);
    nlohmann::ordered_json manifest;
    manifest["format"] = kManifestFormat;
    manifest["version"] = 1;
    manifest["made_by"] = "netsmith-cli dataset create " NETSMITH_VERSION;
    manifest["source"] = scan.source.string();
    manifest["layout"] = scan.layout == FolderLayout::GivenSplit ? "train/" + scan.validationFolder : "class folders";
    manifest["width"] = target.width;
    manifest["height"] = target.height;
    manifest["channels"] = target.channels;
    manifest["resize"] = resizeModeName(target.mode);
    if (scan.layout == FolderLayout::ClassFolders) {
      manifest["validation_percent"] = result.validationPercent;
      manifest["seed"] = options.seed;
    }
    manifest["classes"] = scan.classNames;
    manifest["training"] = result.trainingCount;
    manifest["validation"] = result.validationCount;
    manifest["skipped"] = result.skipped.size();
    manifest["duplicates"] = result.duplicates.size();
    writeFileAtomically(partial.path() / "report.txt", reportText(result, scan, scan.source.string()));
    writeFileAtomically(partial.path() / kManifestName, manifest.dump(2) + "\n");

    // --- finishing: sync, then rename into place ---
    progress(BuildStage::Finishing, 0, 1);
    checkCancelled();
    raw.reset();  // removes the scratch file before the folder is measured and published
    ::fchmod(partial.fd(), 0777 & ~currentUmask());
    result.bytesOnDisk = folderBytes(partial.path());
    NS_CHECK(::syncfs(partial.fd()) == 0, "{}: cannot sync the new dataset to disk: {}", partial.path().string(),
             std::strerror(errno));
    checkCancelled();
    if (replacing) {
      // Exchange the two folders in one step; the old dataset then sits at the partial path.
      if (::renameat2(AT_FDCWD, partial.path().c_str(), AT_FDCWD, output.c_str(), RENAME_EXCHANGE) == 0) {
        fs::remove_all(partial.path(), ec);  // the old dataset
        partial.committed();
      } else {
        NS_CHECK(errno == EINVAL || errno == ENOSYS, "cannot replace {} by the new dataset: {}", output.string(),
                 std::strerror(errno));
        // No exchange on this file system: the old dataset moves into the new folder (so a kill
        // here leaves it in the locked partial folder, removed by the next build), the new folder
        // takes DIR's name, and the old one is removed.
        const fs::path old = partial.path() / ".replaced";
        NS_CHECK(::rename(output.c_str(), old.c_str()) == 0, "cannot move the old dataset {} away: {}", output.string(),
                 std::strerror(errno));
        NS_CHECK(::rename(partial.path().c_str(), output.c_str()) == 0, "cannot rename {} to {}: {}",
                 partial.path().string(), output.string(), std::strerror(errno));
        partial.committed();
        fs::remove_all(output / ".replaced", ec);
      }
    } else {
      if (::rename(partial.path().c_str(), output.c_str()) != 0) {
        const int e = errno;
        NS_CHECK(e != ENOTEMPTY && e != EEXIST, "output folder '{}' was filled by something else during the build; "
                 "the new dataset is not put there: choose another folder", output.string());
        NS_THROW("cannot rename {} to {}: {}", partial.path().string(), output.string(), std::strerror(e));
      }
      partial.committed();
    }
    const int parentFd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (parentFd >= 0) {
      ::fsync(parentFd);
      ::close(parentFd);
    }
    progress(BuildStage::Finishing, 1, 1);
  } catch (const Cancelled&) {
    result.cancelled = true;
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - startTime).count();
  return result;
}

}  // namespace netsmith
