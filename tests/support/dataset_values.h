// Every sample's values of a dataset, as the network sees them (float32, scaled), whatever its
// storage (Note [Sample storage]): for tests that compare what a reader loaded.
#pragma once

#include <vector>

#include "engine/data/dataset.h"

namespace netsmith::testing {

inline std::vector<float> datasetValues(const Dataset& d) {
  std::vector<float> all(static_cast<size_t>(d.size * d.sampleNumel()));
  for (int64_t i = 0; i < d.size; ++i) d.readSample(i, all.data() + i * d.sampleNumel());
  return all;
}

}  // namespace netsmith::testing
