#include "engine/train/metrics.h"

#include <algorithm>

namespace netsmith {

BatchCounts countBatch(const OpSchema& loss, const Tensor& perSampleLoss, const Tensor& prediction, const Tensor& labels) {
  BatchCounts c;
  const int64_t batch = prediction.dim(0);
  c.samples = batch;
  for (int64_t i = 0; i < perSampleLoss.size(); ++i) c.lossSum += perSampleLoss[i];
  const int64_t predSize = prediction.size() / batch;
  const int64_t labelWidth = labels.size() / batch;
  const bool classLabel = labelWidth == 1 && (loss.lossTarget == LossTarget::ClassIndex || predSize > 1);
  if (classLabel && predSize > 1) {
    for (int64_t r = 0; r < batch; ++r) {
      const float* p = prediction.data() + r * predSize;
      const int64_t best = std::max_element(p, p + predSize) - p;
      c.errors += best != static_cast<int64_t>(labels[r]);
    }
    c.counted = batch;
    return c;
  }
  const bool logits = loss.prediction == LossPrediction::LabelLogits;
  const bool probabilities = loss.prediction == LossPrediction::LabelProbabilities;
  if ((logits || probabilities) && labelWidth == predSize) {
    const float threshold = logits ? 0.0f : 0.5f;
    for (int64_t k = 0; k < prediction.size(); ++k)
      c.errors += (prediction[k] > threshold) != (labels[k] >= 0.5f);
    c.counted = prediction.size();
  }
  return c;
}

}  // namespace netsmith
