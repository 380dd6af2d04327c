// samplesWithNonFiniteInputs and nonFiniteInputMessage.
#include "engine/eval/non_finite_inputs.h"

#include <cmath>

#include "engine/core/error.h"

namespace netsmith {

std::vector<NonFiniteSample> samplesWithNonFiniteInputs(const Dataset& data) {
  std::vector<NonFiniteSample> out;
  if (data.holdsBytes()) return out;
  const int64_t n = numel(data.sampleShape);
  std::vector<float> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < data.size; ++i) {
    data.readSample(i, values.data());
    int64_t bad = 0;
    for (const float v : values) bad += !std::isfinite(v);
    if (bad) out.push_back({i, bad});
  }
  return out;
}

std::string nonFiniteInputMessage(const NonFiniteSample& sample, int64_t sampleValues) {
  return format("the input holds {} of its {} values as NaN or infinity: no prediction is made for it", sample.values,
                sampleValues);
}

}  // namespace netsmith
