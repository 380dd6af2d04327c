// Datasets in memory: one source (IDX or Neural Network Console CSV with PNG images) decoded
// once, batches gathered from it, and the per-epoch sample order.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/core/shape.h"
#include "engine/core/tensor.h"
#include "engine/project/project.h"

namespace netsmith {

// Every sample of one source, decoded once. Inputs are float32 already multiplied by the
// dataset's `scale`; images are CHW ({1,H,W} grayscale, {3,H,W} RGB), vectors {n}.
// Immutable after loading, so any number of threads may read it at once.
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
  std::vector<float> features;  // (size, sampleShape...) row-major
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
  const float* sample(int64_t i) const { return features.data() + i * sampleNumel(); }
  const float* label(int64_t i) const { return labels.data() + i * labelWidth; }
};

// Reads one source (spec.format "idx" or "csv"). `scale` multiplies every input value.
// onError "error": the first bad row stops loading; "skip": bad rows (CSV rows, IDX labels that
// are not class indices) are left out and listed in one warning (whole-file problems, such as a missing or truncated file or an unclosed quote,
// always stop it). Labels are checked against a network's loss by checkLabels (label_check.h).
// Throws netsmith::Error naming the file and, for CSV, the row (1-based line number of the file,
// the header being row 1) and column.
Dataset loadDataSource(const DataSourceSpec& spec, double scale, const std::string& onError);

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
// (a Tensor only reallocates when it grows).
void gatherBatch(const Dataset& data, std::span<const int64_t> indices, Tensor& x, Tensor& y);

// The order of the samples in one epoch. shuffle: a permutation of [0, size) that depends only on
// (seed, epoch): Fisher-Yates driven by Rng(mix64(seed) ^ mix64(epoch)), so every worker and every
// resumed run computes the same order without communicating. Not shuffled: 0, 1, ..., size-1.
std::vector<int64_t> epochOrder(int64_t size, uint64_t seed, int64_t epoch, bool shuffle);

}  // namespace netsmith
