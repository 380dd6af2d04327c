// Classification error of a batch, by the kind of loss (Note [Loss targets]).
#pragma once

#include <cstdint>

#include "engine/op_interface/op_schema.h"

namespace netsmith {

struct BatchCounts {
  double lossSum = 0.0;
  int64_t errors = 0;   // misclassified samples (or elements, for element-wise losses)
  int64_t counted = 0;  // samples (or elements) that have a right answer
  int64_t samples = 0;
  void add(const BatchCounts& o) {
    lossSum += o.lossSum;
    errors += o.errors;
    counted += o.counted;
    samples += o.samples;
  }
};

// Loss sum and errors of one batch. A class label and C > 1 outputs: arg-max against the label;
// a per-label loss (OpSchema::prediction LabelLogits: > 0, LabelProbabilities: > 0.5, e.g.
// SigmoidCrossEntropy, BinaryCrossEntropy): per element against target >= 0.5; regression losses
// count no errors (counted stays 0).
BatchCounts countBatch(const OpSchema& loss, const Tensor& perSampleLoss, const Tensor& prediction, const Tensor& labels);

}  // namespace netsmith
