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
struct Dataset {
  std::string source;           // the file the data came from (IDX images file or CSV), for messages
  Shape sampleShape;            // per sample, e.g. {1,28,28}
  int64_t size = 0;             // number of samples
  std::vector<float> features;  // (size, sampleShape...) row-major
  int64_t labelWidth = 1;       // values per sample in `labels`
  std::vector<float> labels;    // (size, labelWidth)
  // Class labels (one integer >= 0 per sample): max label + 1, always > 0. Zero when the labels
  // are vectors (several y columns, or a 2-D IDX labels file) rather than class indices.
  int64_t numClasses = 0;
  // Problems that did not stop loading; with on_error "skip", one line naming every skipped row
  // (file and row, with the reason).
  std::vector<std::string> warnings;

  int64_t sampleNumel() const { return numel(sampleShape); }
  const float* sample(int64_t i) const { return features.data() + i * sampleNumel(); }
  const float* label(int64_t i) const { return labels.data() + i * labelWidth; }
};

// Reads one source (spec.format "idx" or "csv"). `scale` multiplies every input value.
// onError "error": the first bad row stops loading; "skip": bad CSV rows are left out and listed
// in one warning (whole-file problems, such as a missing or truncated file, always stop it).
// Throws netsmith::Error naming the file and, for CSV, the row (1-based line number of the file,
// the header being row 1) and column.
Dataset loadDataSource(const DataSourceSpec& spec, double scale, const std::string& onError);

// Copies the samples `indices` into x (N, sampleShape...) and y (N, labelWidth), resizing both
// (a Tensor only reallocates when it grows).
void gatherBatch(const Dataset& data, std::span<const int64_t> indices, Tensor& x, Tensor& y);

// The order of the samples in one epoch. shuffle: a permutation of [0, size) that depends only on
// (seed, epoch): Fisher-Yates driven by Rng(mix64(seed) ^ mix64(epoch)), so every worker and every
// resumed run computes the same order without communicating. Not shuffled: 0, 1, ..., size-1.
std::vector<int64_t> epochOrder(int64_t size, uint64_t seed, int64_t epoch, bool shuffle);

}  // namespace netsmith
