#include "engine/data/dataset.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <numeric>
#include <utility>

#include "engine/core/error.h"
#include "engine/core/rng.h"
#include "engine/data/class_names.h"
#include "engine/data/csv_reader.h"
#include "engine/data/idx_reader.h"
#include "engine/data/sample_feed.h"

namespace netsmith {

namespace {

// classes.txt beside a CSV of class labels names them, and so counts them (Note [Class names in a CSV]).
void readClassNamesFile(Dataset& data, const std::string& csv) {
  const std::filesystem::path names = classNamesPathFor(csv);
  std::error_code ec;
  if (data.numClasses <= 0 || !std::filesystem::is_regular_file(names, ec)) return;
  data.classNames = readClassNames(names);
  NS_CHECK(static_cast<int64_t>(data.classNames.size()) >= data.numClasses,
           "{} names {} class{}, but the labels of '{}' go up to {}: give every label 0..{} a name, one per line",
           names.string(), data.classNames.size(), data.classNames.size() == 1 ? "" : "es", csv, data.numClasses - 1,
           data.numClasses - 1);
  data.numClasses = static_cast<int64_t>(data.classNames.size());
}

// Note [Class names in a project]: dataset.class_names names the labels of a source that names
// none itself (IDX files have no place for names; Fashion-MNIST's are only in its paper).
// classes.txt beside a CSV wins: it was written with the data.
void useProjectClassNames(Dataset& data, const DataSourceSpec& spec, const std::string& file) {
  if (spec.classNames.empty() || !data.classNames.empty() || data.numClasses <= 0) return;
  NS_CHECK(static_cast<int64_t>(spec.classNames.size()) >= data.numClasses,
           "dataset.class_names names {} class{}, but the labels of '{}' go up to {}: give every label 0..{} a name",
           spec.classNames.size(), spec.classNames.size() == 1 ? "" : "es", file, data.numClasses - 1, data.numClasses - 1);
  data.classNames = spec.classNames;
  data.numClasses = static_cast<int64_t>(data.classNames.size());
}

}  // namespace

Shape peekSampleShape(const DataSourceSpec& spec) {
  if (spec.format == "idx") {
    NS_CHECK(!spec.images.empty(), "IDX dataset source has no images file");
    return readIdxSampleShape(spec.images);
  }
  NS_CHECK(spec.format == "csv", "dataset source format must be \"idx\" or \"csv\", got \"{}\"", spec.format);
  NS_CHECK(!spec.csv.empty(), "CSV dataset source has no csv file");
  return readCsvDataset(spec.csv, 1.0, /*skipBadRows=*/true, /*maxRows=*/16).sampleShape;
}

Dataset loadDataSource(const DataSourceSpec& spec, double scale, const std::string& onError) {
  NS_CHECK(onError == "error" || onError == "skip", "dataset on_error must be \"error\" or \"skip\", got \"{}\"",
           onError);
  if (spec.format == "idx") {
    NS_CHECK(!spec.images.empty(), "IDX dataset source has no images file");
    NS_CHECK(!spec.labels.empty(), "IDX dataset source has no labels file (images: '{}')", spec.images);
    Dataset data = readIdxDataset(spec.images, spec.labels, scale, onError == "skip");
    useProjectClassNames(data, spec, spec.labels);
    return data;
  }
  if (spec.format == "csv") {
    NS_CHECK(!spec.csv.empty(), "CSV dataset source has no csv file");
    Dataset data = readCsvDataset(spec.csv, scale, onError == "skip");
    readClassNamesFile(data, spec.csv);
    useProjectClassNames(data, spec, spec.csv);
    return data;
  }
  NS_THROW("unknown dataset format \"{}\": expected \"idx\" or \"csv\"", spec.format);
}

int64_t peekClassCount(const DataSourceSpec& spec) {
  if (spec.format == "idx") {
    NS_CHECK(!spec.labels.empty(), "IDX dataset source has no labels file (images: '{}')", spec.images);
    return std::max<int64_t>(readIdxClassCount(spec.labels), static_cast<int64_t>(spec.classNames.size()));
  }
  NS_CHECK(spec.format == "csv", "dataset source format must be \"idx\" or \"csv\", got \"{}\"", spec.format);
  NS_CHECK(!spec.csv.empty(), "CSV dataset source has no csv file");
  Dataset labels = readCsvLabels(spec.csv, /*skipBadRows=*/true);
  readClassNamesFile(labels, spec.csv);
  useProjectClassNames(labels, spec, spec.csv);
  return std::max<int64_t>(labels.numClasses, static_cast<int64_t>(labels.classNames.size()));
}

std::string Dataset::rowName(int64_t i) const {
  if (i >= 0 && i < static_cast<int64_t>(rows.size())) return format("row {}", rows[i]);
  return format("index {} (0-based)", i);
}

namespace {

// Writes (or rewrites) the skipped-rows warning; throws when nothing is left. byRow: the file
// names samples by row (CSV) rather than by index (IDX).
void writeSkipWarning(Dataset& data, bool byRow) {
  std::stable_sort(data.skipped.begin(), data.skipped.end(),
                   [](const SkippedRow& a, const SkippedRow& b) { return a.row < b.row; });
  std::string listed;
  for (size_t k = 0; k < data.skipped.size() && k < kSkippedRowsListed; ++k)
    listed += (k ? "; " : "") + data.skipped[k].reason;
  if (data.skipped.size() > kSkippedRowsListed)
    listed += format("; and {} more", data.skipped.size() - kSkippedRowsListed);
  const std::string& file = data.labelSource.empty() ? data.source : data.labelSource;
  const char* noun = byRow ? "rows" : "samples";
  NS_CHECK(data.size > 0, "{}: every one of the {} data {} is bad, nothing is left to load: {}", file, data.sourceRows,
           noun, listed);
  const std::string warning =
      format("{}: skipped {} of {} {} (on_error \"skip\"): {}", file, data.skipped.size(), data.sourceRows, noun, listed);
  if (data.skipWarning < 0) {
    data.skipWarning = static_cast<int>(data.warnings.size());
    data.warnings.push_back(warning);
  } else {
    data.warnings[data.skipWarning] = warning;
  }
}

}  // namespace

void noteSkippedRows(Dataset& data) {
  if (!data.skipped.empty()) writeSkipWarning(data, !data.rows.empty());
}

void Dataset::setByteScale(double scale) {
  for (int v = 0; v < 256; ++v) byteValue[static_cast<size_t>(v)] = static_cast<float>(v * scale);
}

void Dataset::readSampleBytes(int64_t i, uint8_t* out) const {
  NS_CHECK(i >= 0 && i < size, "sample index {} is out of range: '{}' has {} samples", i, source, size);
  if (file) {
    file->read(fileSample.empty() ? i : fileSample[static_cast<size_t>(i)], out);
    return;
  }
  NS_CHECK(!pixels.empty(), "'{}' does not hold its samples as bytes", source);
  std::memcpy(out, pixels.data() + i * sampleNumel(), static_cast<size_t>(sampleNumel()));
}

void Dataset::readSample(int64_t i, float* out) const {
  NS_CHECK(i >= 0 && i < size, "sample index {} is out of range: '{}' has {} samples", i, source, size);
  const int64_t n = sampleNumel();
  if (!holdsBytes()) {
    std::memcpy(out, features.data() + i * n, sizeof(float) * static_cast<size_t>(n));
    return;
  }
  const uint8_t* bytes = nullptr;
  std::vector<uint8_t> read;
  if (file) {
    read.resize(static_cast<size_t>(n));
    readSampleBytes(i, read.data());
    bytes = read.data();
  } else {
    bytes = pixels.data() + i * n;
  }
  for (int64_t k = 0; k < n; ++k) out[k] = byteValue[bytes[k]];
}

std::vector<float> Dataset::sampleValues(int64_t i) const {
  std::vector<float> v(static_cast<size_t>(sampleNumel()));
  readSample(i, v.data());
  return v;
}

int64_t Dataset::memoryBytes() const {
  return static_cast<int64_t>(features.capacity() * sizeof(float) + pixels.capacity() + labels.capacity() * sizeof(float) +
                              fileSample.capacity() * sizeof(int64_t) + rows.capacity() * sizeof(int64_t));
}

void Dataset::keepFirst(int64_t n) {
  if (n <= 0 || n >= size) return;
  size = n;
  if (!features.empty()) features.resize(static_cast<size_t>(n * sampleNumel()));
  if (!pixels.empty()) pixels.resize(static_cast<size_t>(n * sampleNumel()));
  if (!fileSample.empty()) fileSample.resize(static_cast<size_t>(n));
  if (static_cast<int64_t>(rows.size()) > n) rows.resize(static_cast<size_t>(n));
  labels.resize(static_cast<size_t>(n * labelWidth));
}

void skipSamples(Dataset& data, const std::vector<bool>& drop, std::vector<SkippedRow> why) {
  NS_CHECK(static_cast<int64_t>(drop.size()) == data.size, "skipSamples: {} flags for {} samples", drop.size(),
           data.size);
  const bool byRow = !data.rows.empty();
  if (data.sourceRows == 0) data.sourceRows = data.size + static_cast<int64_t>(data.skipped.size());
  const int64_t sampleNumel = data.sampleNumel();
  if (data.file && data.fileSample.empty()) {
    data.fileSample.resize(static_cast<size_t>(data.size));
    std::iota(data.fileSample.begin(), data.fileSample.end(), int64_t{0});
  }
  int64_t kept = 0;
  float maxLabel = 0;
  for (int64_t i = 0; i < data.size; ++i) {
    if (drop[i]) continue;
    if (kept != i) {
      if (!data.features.empty())
        std::copy_n(data.features.begin() + i * sampleNumel, sampleNumel, data.features.begin() + kept * sampleNumel);
      if (!data.pixels.empty())
        std::copy_n(data.pixels.begin() + i * sampleNumel, sampleNumel, data.pixels.begin() + kept * sampleNumel);
      if (!data.fileSample.empty()) data.fileSample[kept] = data.fileSample[i];
      std::copy_n(data.label(i), data.labelWidth, data.labels.begin() + kept * data.labelWidth);
      if (i < static_cast<int64_t>(data.rows.size())) data.rows[kept] = data.rows[i];
    }
    maxLabel = std::max(maxLabel, *data.label(kept));
    ++kept;
  }
  if (static_cast<int64_t>(data.rows.size()) > kept) data.rows.resize(static_cast<size_t>(kept));
  if (!data.features.empty()) data.features.resize(static_cast<size_t>(kept * sampleNumel));
  if (!data.pixels.empty()) data.pixels.resize(static_cast<size_t>(kept * sampleNumel));
  if (!data.fileSample.empty()) data.fileSample.resize(static_cast<size_t>(kept));
  data.labels.resize(static_cast<size_t>(kept * data.labelWidth));
  data.size = kept;
  if (data.numClasses > 0) data.numClasses = static_cast<int64_t>(maxLabel) + 1;
  data.skipped.insert(data.skipped.end(), std::make_move_iterator(why.begin()), std::make_move_iterator(why.end()));
  writeSkipWarning(data, byRow);
}

double gatherBatch(const Dataset& data, std::span<const int64_t> indices, Tensor& x, Tensor& y, SampleFeed* feed) {
  const auto n = static_cast<int64_t>(indices.size());
  const int64_t sampleNumel = data.sampleNumel();
  // Resized only when the batch's shape changes: a new Shape is an allocation, and a steady-state
  // step makes none of its own (Note [No allocation per step]).
  const Shape& xs = x.shape();
  const bool sameX = static_cast<int64_t>(xs.size()) == 1 + static_cast<int64_t>(data.sampleShape.size()) &&
                     xs[0] == n && std::equal(data.sampleShape.begin(), data.sampleShape.end(), xs.begin() + 1);
  if (!sameX) x.resize(withBatch(n, data.sampleShape));
  const Shape& ys = y.shape();
  if (!(ys.size() == 2 && ys[0] == n && ys[1] == data.labelWidth)) y.resize({n, data.labelWidth});
  for (int64_t i = 0; i < n; ++i) {
    const int64_t s = indices[i];
    NS_CHECK(s >= 0 && s < data.size, "sample index {} is out of range: '{}' has {} samples", s, data.source,
             data.size);
    std::memcpy(y.data() + i * data.labelWidth, data.label(s), sizeof(float) * data.labelWidth);
  }
  double waited = 0;
  float* out = x.data();
  if (!data.holdsBytes()) {
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(out + i * sampleNumel, data.features.data() + indices[i] * sampleNumel, sizeof(float) * sampleNumel);
  } else if (!data.file) {
    for (int64_t i = 0; i < n; ++i) {
      const uint8_t* b = data.pixels.data() + indices[i] * sampleNumel;
      float* o = out + i * sampleNumel;
      for (int64_t k = 0; k < sampleNumel; ++k) o[k] = data.byteValue[b[k]];
    }
  } else {
    // The bytes of the whole batch first (one wait for the feed), then their values in place.
    thread_local std::vector<uint8_t> bytes;
    bytes.resize(static_cast<size_t>(n * sampleNumel));
    if (feed) {
      NS_CHECK(&feed->dataset() == &data, "gatherBatch: the feed reads another dataset than '{}'", data.source);
      waited = feed->take(indices, bytes.data());
    } else {
      for (int64_t i = 0; i < n; ++i) data.readSampleBytes(indices[i], bytes.data() + i * sampleNumel);
    }
    for (int64_t k = 0; k < n * sampleNumel; ++k) out[k] = data.byteValue[bytes[static_cast<size_t>(k)]];
  }
  return waited;
}

std::vector<int64_t> epochOrder(int64_t size, uint64_t seed, int64_t epoch, bool shuffle) {
  NS_CHECK(size >= 0, "dataset size must be >= 0, got {}", size);
  std::vector<int64_t> order(static_cast<size_t>(size));
  std::iota(order.begin(), order.end(), int64_t{0});
  if (!shuffle) return order;
  // Both halves are mixed so that neighbouring epochs (or seeds) give unrelated generator states.
  Rng rng(mix64(seed) ^ mix64(static_cast<uint64_t>(epoch)));
  for (int64_t i = size - 1; i > 0; --i) {
    const auto j = static_cast<int64_t>(rng.below(static_cast<uint64_t>(i) + 1));
    std::swap(order[i], order[j]);
  }
  return order;
}

}  // namespace netsmith
