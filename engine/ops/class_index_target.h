// The target of a loss that takes one class index per sample (LossTarget::ClassIndex:
// SoftmaxCrossEntropy, CategoricalCrossEntropy): the checks their kernels make before computing,
// on every backend and in the same words, so a wrong dataset reads the same whichever loss or
// device meets it.
#pragma once

#include <cmath>
#include <cstdint>

#include "engine/core/error.h"
#include "engine/op_interface/op_schema.h"

namespace netsmith {

// A target is there and holds one value per sample of the batch.
inline void checkClassIndexTarget(const KernelCall& call, const char* op, int64_t batch) {
  NS_CHECK(call.target, "{} got no target: it needs the dataset's class labels", op);
  NS_CHECK(call.target->size() == batch,
           "{} got a target of shape ({}) for a batch of {}: it needs one class index per sample", op,
           shapeToString(call.target->shape()), batch);
}

// ... and (where the labels are in host memory: the CPU) each is a whole number below `classes`.
// `layerBefore` says what the layer before the loss must output ("one score per class").
// Checked before the parallel loops: an exception must not leave an OpenMP region.
inline void checkClassIndexLabels(const KernelCall& call, const char* op, int64_t batch, int64_t classes,
                                  const char* layerBefore) {
  checkClassIndexTarget(call, op, batch);
  const float* t = call.target->data();
  for (int64_t n = 0; n < batch; ++n) {
    const float label = t[n];
    NS_CHECK(label >= 0.0f && label < static_cast<float>(classes) && label == std::floor(label),
             "label {} (batch row {}) is not a class index: {} has {} classes, so labels must be whole numbers from 0 "
             "to {}; make the layer before the loss output {}, or check the dataset's labels",
             label, n, op, classes, classes - 1, layerBefore);
  }
}

}  // namespace netsmith
