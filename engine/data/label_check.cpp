#include "engine/data/label_check.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/core/error.h"
#include "engine/project/graph.h"

namespace netsmith {

LabelRule labelRuleOf(const Graph& graph) {
  const GraphNode& loss = graph.loss();
  LabelRule rule;
  rule.loss = format("{} '{}'", loss.schema->name, loss.id);
  rule.prediction = format("'{}'", graph.prediction().id);
  rule.predictionSize = numel(graph.prediction().outputShape);
  rule.classIndex = loss.schema->lossTarget == LossTarget::ClassIndex;
  rule.regression = loss.schema->prediction == LossPrediction::Values;
  return rule;
}

std::string regressionLossOnClassLabels(const Dataset& data, const LabelRule& rule) {
  if (!rule.regression || data.labelWidth != 1 || rule.predictionSize < 2 || data.numClasses <= 0) return {};
  const int64_t classes = std::max<int64_t>(data.numClasses, static_cast<int64_t>(data.classNames.size()));
  std::string named;
  for (size_t k = 0; k < data.classNames.size() && k < 3; ++k) named += format("{}'{}'", k ? ", " : "", data.classNames[k]);
  if (data.classNames.size() > 3) named += ", ...";
  return format("{} is a regression loss, but the labels of {} are class indices ({} classes{}) and {} outputs {} values "
                "per sample: it would fit the one-hot encoded labels value by value instead of training a classifier. "
                "For class labels end the network in SoftmaxCrossEntropy (replace the loss block; an imported model: "
                "import it with --loss SoftmaxCrossEntropy)",
                rule.loss, data.labelSource.empty() ? data.source : data.labelSource, classes,
                named.empty() ? "" : ": " + named, rule.prediction, rule.predictionSize);
}

void checkLabels(Dataset& data, const LabelRule& rule, const std::string& onError) {
  const std::string& file = data.labelSource.empty() ? data.source : data.labelSource;
  const int64_t width = data.labelWidth;
  const int64_t outputs = rule.predictionSize;
  if (rule.classIndex)
    NS_CHECK(width == 1,
             "{}: the labels have {} values per sample, but {} needs one class index per sample: give the file one "
             "label column (y), or end the network with a loss that compares vectors (SquaredError)",
             file, width, rule.loss);
  else
    NS_CHECK(width == 1 || width == outputs,
             "{}: the labels have {} values per sample, but {} compares them with the {} values of {}: make {} "
             "output {} values, or give the file {} label values (or one class label) per sample",
             file, width, rule.loss, outputs, rule.prediction, rule.prediction, width, outputs);
  // One class label per sample (always for a class-index loss; one-hot encoded otherwise, when the
  // prediction has several values), or a target taken as is.
  const bool classes = rule.classIndex || (width == 1 && outputs > 1);
  const std::string range =
      classes ? format("{} {} {} classes (one per output of {}), so labels must be whole numbers from 0 to {}",
                       rule.loss, rule.classIndex ? "has" : "one-hot encodes labels over", outputs, rule.prediction,
                       outputs - 1)
              : std::string();

  std::vector<bool> drop;
  std::vector<SkippedRow> why;
  int64_t bad = 0;
  int64_t firstBad = -1;
  double largest = -1;
  for (int64_t i = 0; i < data.size; ++i) {
    const float* y = data.label(i);
    bool ok = true;
    if (classes) {
      const double v = y[0];
      ok = std::isfinite(v) && v >= 0 && v < static_cast<double>(outputs) && v == std::floor(v);
      if (!ok && std::isfinite(v)) largest = std::max(largest, v);
    } else {
      for (int64_t k = 0; k < width && ok; ++k) ok = std::isfinite(y[k]);
    }
    if (ok) continue;
    ++bad;
    if (firstBad < 0) firstBad = i;
    if (onError != "skip") continue;
    if (drop.empty()) drop.assign(static_cast<size_t>(data.size), false);
    drop[i] = true;
    const int64_t row = i < static_cast<int64_t>(data.rows.size()) ? data.rows[i] : i;
    why.push_back({row, classes ? format("{}: label {} is not a class of {} (0 to {})", data.rowName(i), y[0],
                                         rule.loss, outputs - 1)
                                : format("{}: a label value is not a finite number", data.rowName(i))});
  }
  if (bad == 0) return;
  if (onError == "skip") {
    skipSamples(data, drop, std::move(why));
    return;
  }
  const float* y = data.label(firstBad);
  if (!classes)
    NS_THROW("{}: {}: a label value is not a finite number ({} of the {} samples have one); {} needs finite targets",
             file, data.rowName(firstBad), bad, data.size, rule.loss);
  const std::string more =
      bad > 1 ? format(" ({} of the {} samples have such labels{})", bad, data.size,
                       largest >= outputs ? format(", the largest {}", largest) : std::string())
              : std::string();
  NS_THROW("{}: {}: label {} is out of range: {}{}; correct the labels, or give {} one output per class", file,
           data.rowName(firstBad), y[0], range, more, rule.prediction);
}

}  // namespace netsmith
