// buildFolderDataset (Note [Folder dataset]): the build's stages in order, each a method of
// FolderDatasetBuild, which carries what one stage leaves for the next. The work of each stage
// lives in the files beside this one: the per-image work (source_image), the threads
// (ordered_pipeline), the names (output_names), size and channels (image_target_choice), the
// split (class_split), the report and manifest, DIR's checks (output_folder) and the folder it is
// built in (partial_folder).
#include "engine/protocol/json_fields.h"
#include "engine/data/folder/dataset_builder.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "engine/core/atomic_file.h"
#include "engine/core/error.h"
#include "engine/core/sha256.h"
#include "engine/data/class_names.h"
#include "engine/data/folder/class_split.h"
#include "engine/data/folder/dataset_manifest.h"
#include "engine/data/folder/dataset_report.h"
#include "engine/data/folder/decode_budget.h"
#include "engine/data/folder/image_target_choice.h"
#include "engine/data/folder/left_out_files.h"
#include "engine/data/folder/ordered_pipeline.h"
#include "engine/data/folder/output_folder.h"
#include "engine/data/folder/output_names.h"
#include "engine/data/folder/partial_folder.h"
#include "engine/data/folder/raw_samples.h"
#include "engine/data/folder/source_image.h"
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
  return protocol::jsonText(j);
}

namespace {

// Thrown by checkCancelled, caught by run(): the partial folder goes, the result says cancelled.
struct Cancelled {};

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

class FolderDatasetBuild {
 public:
  FolderDatasetBuild(const FolderDatasetOptions& options, const FolderDatasetCallbacks& callbacks)
      : m_options(options), m_callbacks(callbacks) {}
  FolderDatasetResult run();

 private:
  void progress(BuildStage stage, int64_t done, int64_t total) const {
    if (m_callbacks.progress) m_callbacks.progress(BuildProgress{stage, done, total});
  }
  void checkCancelled() const {
    if (m_callbacks.cancelled && m_callbacks.cancelled()) throw Cancelled{};
  }
  void checkOptions() const;
  bool scanSource();  // false: cancelled while scanning
  void buildIn(PartialFolder& partial);
  void readImages();
  void chooseTarget();
  void createImageFolders(const PartialFolder& partial) const;
  void convertImages(const PartialFolder& partial, RawSamples& raw);
  void writeSplitFiles(const PartialFolder& partial, RawSamples& raw);
  void writeDescription(const PartialFolder& partial) const;
  void publish(PartialFolder& partial, std::optional<RawSamples>& raw);

  const FolderDatasetOptions& m_options;
  const FolderDatasetCallbacks& m_callbacks;
  FolderDatasetResult m_result;
  OutputFolder m_output;
  FolderScan m_scan;
  int m_threads = 1;
  int64_t m_window = 64;                // results the ordered pipeline holds at once
  std::vector<SourceImage> m_images;    // one per candidate, candidate order
  ImageTarget m_target;
  size_t m_sampleBytes = 0;             // one CHW sample at the target size
  std::vector<int64_t> m_usable;        // indices of the images converted, candidate order
};

FolderDatasetResult FolderDatasetBuild::run() {
  const auto startTime = std::chrono::steady_clock::now();
  checkOptions();
  m_output = checkOutputFolder(m_options);
  m_result.output = m_output.path;
  if (!scanSource()) {
    m_result.cancelled = true;
    return std::move(m_result);
  }
  std::error_code ec;
  fs::create_directories(m_output.parent, ec);
  NS_CHECK(fs::is_directory(m_output.parent), "cannot create the folder {}: {}", m_output.parent.string(), ec.message());
  m_result.removedStale = removeStalePartials(m_output.parent, m_output.name);

  m_threads = m_options.threads > 0 ? m_options.threads : defaultThreadCount();
  m_window = std::max<int64_t>(64, int64_t{m_threads} * 16);
  m_images.resize(m_scan.images.size());
  for (size_t i = 0; i < m_images.size(); ++i) m_images[i].candidate = &m_scan.images[i];
  try {
    PartialFolder partial(m_output.parent, m_output.name);
    buildIn(partial);
  } catch (const Cancelled&) {
    m_result.cancelled = true;
  }
  m_result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - startTime).count();
  return std::move(m_result);
}

void FolderDatasetBuild::checkOptions() const {
  const FolderDatasetOptions& options = m_options;
  NS_CHECK(!options.output.empty(), "no output folder given: name the folder to write the dataset to");
  NS_CHECK((options.width == 0) == (options.height == 0),
           "the image size needs both a width and a height, got {}x{}", options.width, options.height);
  NS_CHECK(options.width == 0 || (options.width >= 1 && options.width <= kMaxDatasetImageSide && options.height >= 1 &&
                                  options.height <= kMaxDatasetImageSide),
           "the image size must be 1 to {} pixels on each side, got {}x{}", kMaxDatasetImageSide, options.width,
           options.height);
  NS_CHECK(options.channels == 0 || options.channels == 1 || options.channels == 3,
           "channels must be 1 (gray) or 3 (RGB), got {}", options.channels);
  NS_CHECK(!options.validationPercent ||
               (std::isfinite(*options.validationPercent) && *options.validationPercent >= 0 &&
                *options.validationPercent < 100),
           "the validation share must be a percentage from 0 up to (not including) 100, got {}",
           options.validationPercent.value_or(0));
  NS_CHECK(options.threads >= 0, "threads must be 0 (all) or more, got {}", options.threads);
}

bool FolderDatasetBuild::scanSource() {
  progress(BuildStage::Scanning, 0, 0);
  try {
    m_scan = scanImageFolder(m_options.source, m_callbacks.cancelled);
  } catch (const ScanCancelled&) {
    return false;
  }
  checkOutputOutsideSource(m_output.path, m_scan.source);
  NS_CHECK(m_scan.layout == FolderLayout::ClassFolders || !m_options.validationPercent,
           "{} has train/ and {}/ folders, so the validation images are those of {}/: leave out the validation "
           "percentage (--validation), or move the images into class folders to draw a split",
           m_scan.source.string(), m_scan.validationFolder, m_scan.validationFolder);
  m_result.layout = m_scan.layout;
  m_result.seed = m_options.seed;
  m_result.validationFolder = m_scan.validationFolder;
  m_result.validationPercent =
      m_scan.layout == FolderLayout::ClassFolders ? m_options.validationPercent.value_or(kDefaultValidationPercent) : 0;
  m_result.warnings = m_scan.warnings;
  m_result.skipped = m_scan.skipped;
  m_result.candidates = static_cast<int64_t>(m_scan.images.size());
  progress(BuildStage::Scanning, m_result.candidates, m_result.candidates);
  return true;
}

void FolderDatasetBuild::buildIn(PartialFolder& partial) {
  readImages();
  chooseTarget();
  assignOutputNames(m_images, m_scan);
  createImageFolders(partial);
  m_sampleBytes = static_cast<size_t>(m_target.channels) * m_target.width * m_target.height;
  // A local of this stage: on the way out (a cancel, an error) it removes its file before the
  // caller's `partial` removes the folder.
  std::optional<RawSamples> raw;
  raw.emplace(partial.path() / ".samples.tmp", m_sampleBytes);
  convertImages(partial, *raw);
  listLeftOutFiles(m_images, m_result);
  m_usable = usableImages(m_images, m_result.skipped, m_scan);
  assignSplits(m_images, m_usable, m_scan, m_result.validationPercent, m_options.seed);
  countClassImages(m_images, m_usable, m_scan, m_result);
  writeSplitFiles(partial, *raw);
  writeDescription(partial);
  publish(partial, raw);
}

// Reading: bytes, SHA-256 and header of every candidate; then the exact duplicates.
void FolderDatasetBuild::readImages() {
  const int64_t n = static_cast<int64_t>(m_images.size());
  const int64_t step = std::max<int64_t>(1, n / 200);  // progress about every 0.5%
  progress(BuildStage::Reading, 0, n);
  runOrdered(
      n, m_threads, m_window, [&](int64_t i, size_t) { readSourceImage(m_images[i]); },
      [&](int64_t i, size_t) {
        if ((i + 1) % step == 0) progress(BuildStage::Reading, i + 1, n);
      },
      [this] { checkCancelled(); });
  progress(BuildStage::Reading, n, n);
  // Exact duplicates among the files with an image header (an empty or junk file is skipped
  // for what it is, not as the copy of another).
  std::map<std::array<uint8_t, 32>, int64_t> firstBySha;
  for (int64_t i = 0; i < n; ++i) {
    if (!m_images[i].read || !m_images[i].headerOk) continue;
    const auto [pos, inserted] = firstBySha.emplace(m_images[i].sha, i);
    if (!inserted) m_images[i].duplicateOf = static_cast<int>(pos->second);
  }
}

void FolderDatasetBuild::chooseTarget() {
  m_result.resize = m_options.resize;
  const ImageTargetChoice choice = chooseImageTarget(m_images, m_options, m_scan);
  m_target = choice.target;
  m_result.sizeChoice = choice.sizeChoice;
  m_result.channelsChoice = choice.channelsChoice;
  m_result.width = m_target.width;
  m_result.height = m_target.height;
  m_result.channels = m_target.channels;
}

void FolderDatasetBuild::createImageFolders(const PartialFolder& partial) const {
  std::set<fs::path> folders;
  for (const SourceImage& it : m_images)
    if (!it.output.empty()) folders.insert((partial.path() / it.output).parent_path());
  for (const fs::path& f : folders) {
    std::error_code ec;
    fs::create_directories(f, ec);
    NS_CHECK(!ec, "{}: cannot create the folder: {}", f.string(), ec.message());
  }
}

// Converting: decode, resize, write the PNG, keep the CHW sample (in candidate order).
void FolderDatasetBuild::convertImages(const PartialFolder& partial, RawSamples& raw) {
  std::vector<int64_t> work;
  for (size_t i = 0; i < m_images.size(); ++i)
    if (!m_images[i].output.empty()) work.push_back(static_cast<int64_t>(i));
  const int64_t total = static_cast<int64_t>(work.size());
  std::vector<uint8_t> buffer(static_cast<size_t>(m_window) * m_sampleBytes);
  std::vector<std::string> writeErrors(static_cast<size_t>(m_window));
  const int64_t convertStep = std::max<int64_t>(1, total / 200);
  progress(BuildStage::Converting, 0, total);
  DecodeBudget decodeBudget;
  runOrdered(
      total, m_threads, m_window,
      [&](int64_t k, size_t slot) {
        SourceImage& it = m_images[work[k]];
        const DecodeBudgetShare share(decodeBudget, it.header.width, it.header.height);  // Note [Decode budget]
        convertSourceImage(it, m_target, partial.path() / it.output, buffer.data() + slot * m_sampleBytes, writeErrors[slot]);
      },
      [&](int64_t k, size_t slot) {
        if (!writeErrors[slot].empty()) NS_THROW("{}", writeErrors[slot]);
        SourceImage& it = m_images[work[k]];
        if (it.usable) it.sample = raw.append(buffer.data() + slot * m_sampleBytes);
        if ((k + 1) % convertStep == 0) progress(BuildStage::Converting, k + 1, total);
      },
      [this] { checkCancelled(); });
  progress(BuildStage::Converting, total, total);
  checkCancelled();
}

// Writing: each split's CSV, then its store, packed from the raw samples in CSV row order.
void FolderDatasetBuild::writeSplitFiles(const PartialFolder& partial, RawSamples& raw) {
  std::vector<int64_t> rows[2];
  for (const int64_t i : m_usable) rows[static_cast<int>(m_images[i].split)].push_back(i);
  m_result.trainingCount = static_cast<int64_t>(rows[0].size());
  m_result.validationCount = static_cast<int64_t>(rows[1].size());
  const int64_t allRows = m_result.trainingCount + m_result.validationCount;
  int64_t written = 0;
  progress(BuildStage::Writing, 0, allRows);
  std::vector<uint8_t> sample(m_sampleBytes);
  for (int s = 0; s < 2; ++s) {
    if (rows[s].empty()) continue;
    const fs::path csv = partial.path() / (s == 0 ? "training.csv" : "validation.csv");
    std::string text = "x:image,y:label\n";
    for (const int64_t i : rows[s])
      text += quoteCsvCell(m_images[i].output) + "," + std::to_string(m_images[i].candidate->label) + "\n";
    writeFileAtomically(csv, text);
    SampleStoreWriter store(sampleStorePathFor(csv), m_target.channels, m_target.height, m_target.width);
    for (size_t r = 0; r < rows[s].size(); ++r) {
      if (r % 1024 == 0) {
        checkCancelled();
        progress(BuildStage::Writing, written, allRows);
      }
      raw.read(m_images[rows[s][r]].sample, sample.data());
      store.append(sample.data());
      ++written;
    }
    store.commit(sha256Hex(text.data(), text.size()));
    (s == 0 ? m_result.trainingCsv : m_result.validationCsv) = m_output.path / csv.filename();
  }
  progress(BuildStage::Writing, allRows, allRows);
  checkCancelled();
}

// classes.txt, report.txt and dataset.json.
void FolderDatasetBuild::writeDescription(const PartialFolder& partial) const {
  writeClassNames(partial.path() / "classes.txt", m_scan.classNames);
  writeFileAtomically(partial.path() / "report.txt", folderDatasetReport(m_result, m_scan));
  writeFileAtomically(partial.path() / kFolderDatasetManifestName, folderDatasetManifest(m_result, m_scan));
}

// Finishing: sync, then rename into place.
void FolderDatasetBuild::publish(PartialFolder& partial, std::optional<RawSamples>& raw) {
  progress(BuildStage::Finishing, 0, 1);
  checkCancelled();
  raw.reset();  // removes the scratch file before the folder is measured and published
  partial.applyUmask();
  m_result.bytesOnDisk = partial.bytesOnDisk();
  partial.syncToDisk();
  checkCancelled();
  partial.publishAs(m_output.path, m_output.replacing);
  progress(BuildStage::Finishing, 1, 1);
}

}  // namespace

FolderDatasetResult buildFolderDataset(const FolderDatasetOptions& options, const FolderDatasetCallbacks& callbacks) {
  return FolderDatasetBuild(options, callbacks).run();
}

}  // namespace netsmith
