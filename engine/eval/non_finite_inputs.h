// Inputs that are not numbers: a NaN or an infinity in a sample's values gives a prediction that
// looks like any other (a class, likelihoods) and means nothing. infer flags each such sample
// instead of predicting it, and evaluate refuses a dataset that holds one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/data/dataset.h"

namespace netsmith {

struct NonFiniteSample {
  int64_t index = 0;  // the sample's index in the dataset
  int64_t values = 0;  // how many of its values are NaN or infinite
};

// The samples of `data` with a value that is not finite, in index order (bytes are always finite).
std::vector<NonFiniteSample> samplesWithNonFiniteInputs(const Dataset& data);

// "the input holds 3 of its 784 values as NaN or infinity: no prediction is made for it"
std::string nonFiniteInputMessage(const NonFiniteSample& sample, int64_t sampleValues);

}  // namespace netsmith
