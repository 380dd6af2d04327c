#include "engine/data/dataset.h"

#include <cstring>
#include <numeric>
#include <utility>

#include "engine/core/error.h"
#include "engine/core/rng.h"
#include "engine/data/csv_reader.h"
#include "engine/data/idx_reader.h"

namespace netsmith {

Dataset loadDataSource(const DataSourceSpec& spec, double scale, const std::string& onError) {
  NS_CHECK(onError == "error" || onError == "skip", "dataset on_error must be \"error\" or \"skip\", got \"{}\"",
           onError);
  if (spec.format == "idx") {
    NS_CHECK(!spec.images.empty(), "IDX dataset source has no images file");
    NS_CHECK(!spec.labels.empty(), "IDX dataset source has no labels file (images: '{}')", spec.images);
    return readIdxDataset(spec.images, spec.labels, scale);
  }
  if (spec.format == "csv") {
    NS_CHECK(!spec.csv.empty(), "CSV dataset source has no csv file");
    return readCsvDataset(spec.csv, scale, onError == "skip");
  }
  NS_THROW("unknown dataset format \"{}\": expected \"idx\" or \"csv\"", spec.format);
}

void gatherBatch(const Dataset& data, std::span<const int64_t> indices, Tensor& x, Tensor& y) {
  const auto n = static_cast<int64_t>(indices.size());
  const int64_t sampleNumel = data.sampleNumel();
  x.resize(withBatch(n, data.sampleShape));
  y.resize({n, data.labelWidth});
  for (int64_t i = 0; i < n; ++i) {
    const int64_t s = indices[i];
    NS_CHECK(s >= 0 && s < data.size, "sample index {} is out of range: '{}' has {} samples", s, data.source,
             data.size);
    std::memcpy(x.data() + i * sampleNumel, data.sample(s), sizeof(float) * sampleNumel);
    std::memcpy(y.data() + i * data.labelWidth, data.label(s), sizeof(float) * data.labelWidth);
  }
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
