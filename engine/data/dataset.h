// Datasets in memory: one source (IDX or Neural Network Console CSV with PNG images) decoded
// once, batches gathered from it, and the per-epoch sample order.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/core/shape.h"
#include "engine/core/tensor.h"
#include "engine/data/sample_file.h"
#include "engine/project/project.h"

namespace netsmith {

class SampleFeed;

// Every sample of one source. Inputs are CHW images ({1,H,W} grayscale, {3,H,W} RGB) or vectors
// {n}; a sample's values are what the network sees: the stored value times the dataset's
// `scale`. Immutable after loading, so any number of threads may read it at once.
//
// Note [Sample storage]
// Samples are kept as small as their source allows, and become float32 only when a batch is
// assembled (gatherBatch), so a run's memory is the model and a few batches, not the dataset:
//   - Bytes in memory (`pixels`): 8-bit images (PNG files of a CSV, gzip-compressed IDX files of
//     unsigned bytes), a quarter of float32.
//   - Bytes in a file (`file`): the packed sample store beside a CSV (Note [Sample store]) and raw
//     IDX files of unsigned bytes are not read into memory at all; each batch reads its samples
//     with pread, on a prefetch thread during training (SampleFeed), and the page cache, not the
//     process, holds what the machine has room for.
//   - float32 in memory (`features`): numeric CSV columns, IDX files of other element types,
//     16-bit PNG images whose values are not whole 8-bit levels. Already multiplied by `scale`.
// A byte b stands for byteValue[b] = float(b * scale), the value the float path gave before, so
// every storage gives the same float batch bit for bit.
// A row that on_error "skip" left out: where it was, and why ("row 7, column 2 (y): label 'cat' is
// not a number"; the reason starts with the row's name).
struct SkippedRow {
  int64_t row = 0;  // the CSV row (line), or the IDX sample index
  std::string reason;
};

struct Dataset {
  std::string source;           // the file the data came from (IDX images file or CSV), for messages
  std::string labelSource;      // the file the labels came from (the CSV, or the IDX labels file)
  // Where each sample came from, for messages: its CSV row (the 1-based line where it starts, the
  // header being row 1). Empty for IDX, where sample i is index i of both files.
  std::vector<int64_t> rows;
  Shape sampleShape;            // per sample, e.g. {1,28,28}
  int64_t size = 0;             // number of samples
  // Exactly one of the three holds the samples (Note [Sample storage]).
  std::vector<float> features;                 // (size, sampleShape...) row-major, scaled
  std::vector<uint8_t> pixels;                 // (size, sampleShape...) row-major, unscaled bytes
  std::shared_ptr<const SampleFile> file;      // unscaled bytes, read on demand
  std::vector<int64_t> fileSample;             // the file's sample behind sample i (empty: i)
  std::array<float, 256> byteValue{};          // what a stored byte stands for: float(b * scale)
  int64_t diskBytes = 0;                       // the source files' size on disk (images, CSV, store)
  int64_t labelWidth = 1;       // values per sample in `labels`
  std::vector<float> labels;    // (size, labelWidth)
  // Class labels (one integer >= 0 per sample): max label + 1, always > 0. Zero when the labels
  // are vectors (several y columns, or a 2-D IDX labels file) rather than class indices.
  int64_t numClasses = 0;
  // classNames[k]: the name of class label k ("cat"), from classes.txt beside a CSV (one name per
  // line, in label order; what `netsmith-cli dataset create` writes). Empty: the classes are
  // unnamed and messages use their numbers.
  std::vector<std::string> classNames;
  // Problems that did not stop loading. With on_error "skip", one of them is the line that counts
  // the skipped rows and names them with their reasons (file and row; the first
  // kSkippedRowsListed of them): skipSamples() keeps it up to date.
  std::vector<std::string> warnings;
  // on_error "skip": the rows left out so far (by the reader, then by checkLabels), in file
  // order, out of `sourceRows` data rows in the file.
  std::vector<SkippedRow> skipped;
  int64_t sourceRows = 0;
  int skipWarning = -1;  // index in `warnings` of the skipped-rows line; -1 while none

  int64_t sampleNumel() const { return numel(sampleShape); }
  // "row 12" (CSV) or "index 12 (0-based)" (IDX): sample i as a person finds it in the file.
  std::string rowName(int64_t i) const;
  bool holdsBytes() const { return file || !pixels.empty(); }
  // Sample i's values (sampleNumel floats, scaled) into out. Reads the file when streamed.
  void readSample(int64_t i, float* out) const;
  std::vector<float> sampleValues(int64_t i) const;
  // Sample i's stored bytes into out (sampleNumel bytes); only when holdsBytes().
  void readSampleBytes(int64_t i, uint8_t* out) const;
  // Bytes the samples and labels take in this process's memory (not the page cache's).
  int64_t memoryBytes() const;
  // Keeps the first n samples (quick checks: --train-samples, evaluate --limit).
  void keepFirst(int64_t n);
  // Sets byteValue from the dataset's scale.
  void setByteScale(double scale);
  const float* label(int64_t i) const { return labels.data() + i * labelWidth; }
};

// Reads one source (spec.format "idx" or "csv"). `scale` multiplies every input value.
// onError "error": the first bad row stops loading; "skip": bad rows (CSV rows, IDX labels that
// are not class indices) are left out and listed in one warning (whole-file problems, such as a missing or truncated file or an unclosed quote,
// always stop it). Labels are checked against a network's loss by checkLabels (label_check.h).
// Throws netsmith::Error naming the file and, for CSV, the row (1-based line number of the file,
// the header being row 1) and column.
Dataset loadDataSource(const DataSourceSpec& spec, double scale, const std::string& onError);

// The shape of one sample of `spec` without reading its data: an IDX file's header, a CSV's first
// rows (bad rows skipped). Throws Error as loadDataSource does when the source cannot be read.
Shape peekSampleShape(const DataSourceSpec& spec);

// The number of classes training counts in `spec` (the largest class label + 1, or the names of
// classes.txt beside a CSV; what Note [Classifier head] compares with the head) without decoding
// its samples: an IDX labels file, a CSV's label column (its images are not opened). Bad rows are
// passed over as on_error "skip" would. 0 when the labels are vectors, not class indices. Throws
// Error as loadDataSource does when the source cannot be read.
int64_t peekClassCount(const DataSourceSpec& spec);

// How many skipped rows the warning lists with their reasons; it counts all of them. A file whose
// every row is bad would otherwise give a warning as large as the file.
constexpr size_t kSkippedRowsListed = 100;

// Writes the skipped-rows warning from data.skipped (a reader's own skipped rows; nothing when
// there are none).
void noteSkippedRows(Dataset& data);

// Leaves out the samples with drop[i] (sample indices of `data`), adds `why` (one per dropped
// sample, same order) to data.skipped, and rewrites the skipped-rows warning. Throws when no
// sample is left, naming the file and the first reasons.
void skipSamples(Dataset& data, const std::vector<bool>& drop, std::vector<SkippedRow> why);

// Copies the samples `indices` into x (N, sampleShape...) and y (N, labelWidth), resizing both
// (a Tensor only reallocates when it grows), as float32 values. A streamed dataset's bytes come
// from `feed` when one is given (its prefetch thread; it must be a feed of `data`), else they
// are read here. Returns the seconds spent waiting for the feed.
double gatherBatch(const Dataset& data, std::span<const int64_t> indices, Tensor& x, Tensor& y,
                   SampleFeed* feed = nullptr);

// The order of the samples in one epoch. shuffle: a permutation of [0, size) that depends only on
// (seed, epoch): Fisher-Yates driven by Rng(mix64(seed) ^ mix64(epoch)), so every worker and every
// resumed run computes the same order without communicating. Not shuffled: 0, 1, ..., size-1.
std::vector<int64_t> epochOrder(int64_t size, uint64_t seed, int64_t epoch, bool shuffle);

}  // namespace netsmith
