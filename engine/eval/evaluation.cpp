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

// Characters (UTF-8 code points) of s, so a name such as "Sandale é" lines up in the table.
size_t width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// s cut to `w` characters (never inside a UTF-8 sequence) and padded with spaces to `w`.
std::string fit(const std::string& s, size_t w, bool right = false) {
  std::string out;
  size_t n = 0, i = 0;
  for (; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if ((c & 0xC0) != 0x80 && n++ == w) break;
    out += s[i];
  }
  const std::string pad(w - std::min(w, width(out)), ' ');
  return right ? pad + out : out + pad;
}

}  // namespace

std::string classNameOf(const std::vector<std::string>& classNames, int64_t c) {
  return c >= 0 && static_cast<size_t>(c) < classNames.size() && !classNames[static_cast<size_t>(c)].empty()
             ? classNames[static_cast<size_t>(c)]
             : std::to_string(c);
}

std::string csvCell(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string q = "\"";
  for (char ch : text) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

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

protocol::EvaluationReport evaluationReport(const Evaluation& e, const std::vector<std::string>& classNames) {
  protocol::EvaluationReport r;
  r.samples = e.samples;
  r.classes = e.classes;
  for (int64_t c = 0; c < e.classes; ++c) r.classNames.push_back(classNameOf(classNames, c));
  r.correct = e.correct;
  r.accuracy = e.accuracy;
  r.error = 1.0 - e.accuracy;
  r.macroPrecision = e.macroPrecision;
  r.macroRecall = e.macroRecall;
  r.macroFMeasure = e.macroFMeasure;
  for (size_t c = 0; c < e.perClass.size(); ++c) {
    const ClassMetrics& m = e.perClass[c];
    r.perClass.push_back({static_cast<int64_t>(c), classNameOf(classNames, static_cast<int64_t>(c)), m.support,
                          m.predicted, m.truePositives, m.precision, m.recall, m.fMeasure});
  }
  r.confusion = e.confusion;
  for (const auto& s : e.worst)
    r.worst.push_back({s.index, s.trueClass, s.predictedClass, classNameOf(classNames, s.trueClass),
                       classNameOf(classNames, s.predictedClass), s.trueLikelihood, s.predictedLikelihood,
                       std::vector<double>(s.likelihoods.begin(), s.likelihoods.end())});
  return r;
}

Json evaluationToJson(const Evaluation& e, const std::vector<std::string>& classNames) {
  return evaluationReport(e, classNames).toJson();
}

std::string evaluationToText(const Evaluation& e, const std::vector<std::string>& classNames) {
  auto name = [&](size_t c) { return classNameOf(classNames, static_cast<int64_t>(c)); };
  std::string s = format("Accuracy: {} ({} of {} samples), error {}\n\n", percent(e.accuracy), e.correct, e.samples,
                         percent(1.0 - e.accuracy));
  char line[256];
  std::snprintf(line, sizeof line, "  %-14s %9s %9s %9s %8s\n", "class", "precision", "recall", "F-measure", "support");
  s += line;
  for (size_t c = 0; c < e.perClass.size(); ++c) {
    const ClassMetrics& m = e.perClass[c];
    std::snprintf(line, sizeof line, " %9.4f %9.4f %9.4f %8lld\n", m.precision, m.recall, m.fMeasure,
                  static_cast<long long>(m.support));
    s += "  " + fit(name(c), 14) + line;
  }
  std::snprintf(line, sizeof line, "  %-14s %9.4f %9.4f %9.4f %8lld\n\n", "macro average", e.macroPrecision, e.macroRecall,
                e.macroFMeasure, static_cast<long long>(e.samples));
  s += line;
  // Unnamed classes keep the narrow table of numbers; names widen the row labels (up to 14
  // characters) and the columns (up to 10).
  size_t rowWidth = 4, columnWidth = 6;
  for (size_t c = 0; c < e.confusion.size(); ++c) {
    rowWidth = std::max(rowWidth, std::min<size_t>(width(name(c)), 14));
    columnWidth = std::max(columnWidth, std::min<size_t>(width(name(c)), 10));
  }
  s += "Confusion matrix (rows: true class, columns: predicted class)\n  " + std::string(rowWidth, ' ') + " ";
  for (size_t c = 0; c < e.confusion.size(); ++c) s += " " + fit(name(c), columnWidth, true);
  s += "\n";
  for (size_t t = 0; t < e.confusion.size(); ++t) {
    s += "  " + fit(name(t), rowWidth, classNames.empty()) + " ";
    for (int64_t v : e.confusion[t]) {
      std::snprintf(line, sizeof line, " %*lld", static_cast<int>(columnWidth), static_cast<long long>(v));
      s += line;
    }
    s += "\n";
  }
  if (!e.worst.empty()) {
    s += "\nWorst-classified samples (lowest likelihood for the true class)\n";
    std::snprintf(line, sizeof line, "  %8s  %-14s %-14s %10s %10s\n", "sample", "true", "predicted", "P(true)", "P(pred)");
    s += line;
    for (const auto& w : e.worst) {
      std::snprintf(line, sizeof line, "  %8lld  ", static_cast<long long>(w.index));
      s += line + fit(name(static_cast<size_t>(w.trueClass)), 14) + " " + fit(name(static_cast<size_t>(w.predictedClass)), 14);
      std::snprintf(line, sizeof line, " %10.4f %10.4f\n", w.trueLikelihood, w.predictedLikelihood);
      s += line;
    }
  }
  return s;
}

}  // namespace netsmith
