#include "engine/eval/evaluation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/core/error.h"

namespace netsmith {
namespace {

double ratio(int64_t a, int64_t b) { return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0; }

std::string percent(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f%%", 100.0 * v);
  return buf;
}

}  // namespace

Evaluation evaluateClassifier(const ClassReading& reading, const std::vector<float>& likelihoods, int64_t width,
                              const std::vector<float>& labels, int64_t worstCount) {
  NS_CHECK(reading.classification, "evaluate needs a classifier: {}", reading.why);
  Evaluation e;
  e.classes = reading.classes;
  e.samples = width > 0 ? static_cast<int64_t>(likelihoods.size()) / width : 0;
  NS_CHECK(static_cast<int64_t>(labels.size()) == e.samples,
           "the dataset gives {} labels for {} samples: evaluate needs one class label per sample", labels.size(), e.samples);
  e.confusion.assign(static_cast<size_t>(e.classes), std::vector<int64_t>(static_cast<size_t>(e.classes), 0));
  std::vector<SampleOutcome> wrong;
  for (int64_t i = 0; i < e.samples; ++i) {
    const std::span<const float> row(likelihoods.data() + i * width, static_cast<size_t>(width));
    const float label = labels[static_cast<size_t>(i)];
    const auto t = static_cast<int64_t>(label);
    NS_CHECK(label == std::floor(label) && t >= 0 && t < e.classes,
             "sample {}: label {} is not one of the network's {} classes (0 to {})", i, label, e.classes, e.classes - 1);
    const int64_t p = predictedClass(reading, row);
    ++e.confusion[static_cast<size_t>(t)][static_cast<size_t>(p)];
    if (p == t) {
      ++e.correct;
    } else {
      wrong.push_back({i, t, p, classLikelihood(reading, row, t), classLikelihood(reading, row, p),
                       std::vector<float>(row.begin(), row.end())});
    }
  }
  e.accuracy = ratio(e.correct, e.samples);
  e.perClass.resize(static_cast<size_t>(e.classes));
  for (int64_t c = 0; c < e.classes; ++c) {
    ClassMetrics& m = e.perClass[static_cast<size_t>(c)];
    for (int64_t o = 0; o < e.classes; ++o) {
      m.support += e.confusion[static_cast<size_t>(c)][static_cast<size_t>(o)];
      m.predicted += e.confusion[static_cast<size_t>(o)][static_cast<size_t>(c)];
    }
    m.truePositives = e.confusion[static_cast<size_t>(c)][static_cast<size_t>(c)];
    m.precision = ratio(m.truePositives, m.predicted);
    m.recall = ratio(m.truePositives, m.support);
    m.fMeasure = m.precision + m.recall > 0 ? 2 * m.precision * m.recall / (m.precision + m.recall) : 0.0;
    e.macroPrecision += m.precision;
    e.macroRecall += m.recall;
    e.macroFMeasure += m.fMeasure;
  }
  if (e.classes > 0) {
    e.macroPrecision /= static_cast<double>(e.classes);
    e.macroRecall /= static_cast<double>(e.classes);
    e.macroFMeasure /= static_cast<double>(e.classes);
  }
  std::stable_sort(wrong.begin(), wrong.end(),
                   [](const SampleOutcome& a, const SampleOutcome& b) { return a.trueLikelihood < b.trueLikelihood; });
  if (static_cast<int64_t>(wrong.size()) > worstCount) wrong.resize(static_cast<size_t>(std::max<int64_t>(worstCount, 0)));
  e.worst = std::move(wrong);
  return e;
}

Json evaluationToJson(const Evaluation& e, const std::vector<std::string>& classNames) {
  Json perClass = Json::array();
  for (size_t c = 0; c < e.perClass.size(); ++c) {
    const ClassMetrics& m = e.perClass[c];
    perClass.push_back({{"class", c},
                        {"name", c < classNames.size() ? classNames[c] : std::to_string(c)},
                        {"support", m.support},
                        {"predicted", m.predicted},
                        {"true_positives", m.truePositives},
                        {"precision", m.precision},
                        {"recall", m.recall},
                        {"f_measure", m.fMeasure}});
  }
  Json worst = Json::array();
  for (const auto& s : e.worst)
    worst.push_back({{"index", s.index},
                     {"true_class", s.trueClass},
                     {"predicted_class", s.predictedClass},
                     {"true_likelihood", s.trueLikelihood},
                     {"predicted_likelihood", s.predictedLikelihood},
                     {"likelihoods", s.likelihoods}});
  return {{"samples", e.samples},
          {"classes", e.classes},
          {"correct", e.correct},
          {"accuracy", e.accuracy},
          {"error", 1.0 - e.accuracy},
          {"macro", {{"precision", e.macroPrecision}, {"recall", e.macroRecall}, {"f_measure", e.macroFMeasure}}},
          {"per_class", perClass},
          {"confusion_matrix", e.confusion},
          {"worst", worst}};
}

std::string evaluationToText(const Evaluation& e, const std::vector<std::string>& classNames) {
  auto name = [&](size_t c) { return c < classNames.size() ? classNames[c] : std::to_string(c); };
  std::string s = format("Accuracy: {} ({} of {} samples), error {}\n\n", percent(e.accuracy), e.correct, e.samples,
                         percent(1.0 - e.accuracy));
  char line[256];
  std::snprintf(line, sizeof line, "  %-14s %9s %9s %9s %8s\n", "class", "precision", "recall", "F-measure", "support");
  s += line;
  for (size_t c = 0; c < e.perClass.size(); ++c) {
    const ClassMetrics& m = e.perClass[c];
    std::snprintf(line, sizeof line, "  %-14s %9.4f %9.4f %9.4f %8lld\n", name(c).substr(0, 14).c_str(), m.precision,
                  m.recall, m.fMeasure, static_cast<long long>(m.support));
    s += line;
  }
  std::snprintf(line, sizeof line, "  %-14s %9.4f %9.4f %9.4f %8lld\n\n", "macro average", e.macroPrecision, e.macroRecall,
                e.macroFMeasure, static_cast<long long>(e.samples));
  s += line;
  s += "Confusion matrix (rows: true class, columns: predicted class)\n       ";
  for (size_t c = 0; c < e.confusion.size(); ++c) {
    std::snprintf(line, sizeof line, " %6zu", c);
    s += line;
  }
  s += "\n";
  for (size_t t = 0; t < e.confusion.size(); ++t) {
    std::snprintf(line, sizeof line, "  %4zu ", t);
    s += line;
    for (int64_t v : e.confusion[t]) {
      std::snprintf(line, sizeof line, " %6lld", static_cast<long long>(v));
      s += line;
    }
    s += "\n";
  }
  if (!e.worst.empty()) {
    s += "\nWorst-classified samples (lowest likelihood for the true class)\n";
    std::snprintf(line, sizeof line, "  %8s  %-14s %-14s %10s %10s\n", "sample", "true", "predicted", "P(true)", "P(pred)");
    s += line;
    for (const auto& w : e.worst) {
      std::snprintf(line, sizeof line, "  %8lld  %-14s %-14s %10.4f %10.4f\n", static_cast<long long>(w.index),
                    name(static_cast<size_t>(w.trueClass)).substr(0, 14).c_str(),
                    name(static_cast<size_t>(w.predictedClass)).substr(0, 14).c_str(), w.trueLikelihood,
                    w.predictedLikelihood);
      s += line;
    }
  }
  return s;
}

}  // namespace netsmith
