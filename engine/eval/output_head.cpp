#include "engine/eval/output_head.h"

#include <algorithm>
#include <cmath>

#include "engine/core/error.h"

namespace netsmith {

OutputHead outputHeadOf(const Graph& graph) { return graph.loss().schema->outputHead; }

void applyOutputHead(OutputHead head, std::span<const float> in, std::span<float> out) {
  switch (head) {
    case OutputHead::Softmax: {
      // In double, shifted by the maximum: the likelihoods of one sample do not depend on anything
      // but its own scores.
      const float m = *std::max_element(in.begin(), in.end());
      double sum = 0;
      for (size_t i = 0; i < in.size(); ++i) sum += std::exp(static_cast<double>(in[i]) - m);
      for (size_t i = 0; i < in.size(); ++i) out[i] = static_cast<float>(std::exp(static_cast<double>(in[i]) - m) / sum);
      return;
    }
    case OutputHead::Sigmoid:
      for (size_t i = 0; i < in.size(); ++i) out[i] = static_cast<float>(1.0 / (1.0 + std::exp(-static_cast<double>(in[i]))));
      return;
    case OutputHead::Identity: std::copy(in.begin(), in.end(), out.begin()); return;
  }
}

ClassReading classReadingOf(const Graph& graph) {
  ClassReading r;
  const int64_t width = numel(graph.prediction().outputShape);
  const OpSchema& loss = *graph.loss().schema;
  switch (loss.prediction) {
    case LossPrediction::Values:
    case LossPrediction::None:
      r.why = loss.name + " is a regression loss: there are no classes to count";
      return r;
    case LossPrediction::ClassScores:
    case LossPrediction::ClassProbabilities:
      r.classification = true;
      r.binary = width == 1;
      r.classes = width == 1 ? 2 : width;
      return r;
    case LossPrediction::LabelLogits:
    case LossPrediction::LabelProbabilities:
      if (width == 1) {
        r.classification = true;
        r.binary = true;
        r.classes = 2;
        return r;
      }
      r.why = format("{} over {} outputs is multi-label: each output is its own yes/no, not one class per sample",
                     loss.name, width);
      return r;
  }
  return r;
}

int64_t predictedClass(const ClassReading& reading, std::span<const float> likelihoods) {
  if (reading.binary) return likelihoods[0] > 0.5f ? 1 : 0;
  return std::max_element(likelihoods.begin(), likelihoods.end()) - likelihoods.begin();
}

double classLikelihood(const ClassReading& reading, std::span<const float> likelihoods, int64_t c) {
  if (reading.binary) return c == 1 ? likelihoods[0] : 1.0 - likelihoods[0];
  return likelihoods[static_cast<size_t>(c)];
}

const char* outputHeadName(OutputHead head) {
  switch (head) {
    case OutputHead::Softmax: return "softmax";
    case OutputHead::Sigmoid: return "sigmoid";
    case OutputHead::Identity: return "identity";
  }
  return "identity";
}

}  // namespace netsmith
