// Evaluation of a classifier on a labelled dataset: accuracy, per-class precision, recall and
// F-measure, their macro averages, the confusion matrix and the worst-classified samples.
// Everything here is a pure function of the likelihoods and labels, so the numbers do not depend
// on how many devices computed the outputs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/eval/output_head.h"
#include "engine/project/project.h"
#include "engine/protocol/evaluation_report.h"

namespace netsmith {

struct ClassMetrics {
  int64_t support = 0;     // samples whose true class is this one (row sum)
  int64_t predicted = 0;   // samples predicted as this class (column sum)
  int64_t truePositives = 0;
  // Precision tp / predicted, recall tp / support, F-measure 2PR / (P + R); 0 when the
  // denominator is 0 (scikit-learn's zero_division=0).
  double precision = 0, recall = 0, fMeasure = 0;
};

struct SampleOutcome {
  int64_t index = 0;              // position in the evaluated dataset
  int64_t trueClass = 0;
  int64_t predictedClass = 0;
  double trueLikelihood = 0;      // likelihood given to the true class
  double predictedLikelihood = 0; // likelihood of the predicted class
  std::vector<float> likelihoods; // the whole row (binary: one value, P(class 1))
};

struct Evaluation {
  int64_t samples = 0;
  int64_t classes = 0;
  int64_t correct = 0;
  double accuracy = 0;
  double macroPrecision = 0, macroRecall = 0, macroFMeasure = 0;
  std::vector<std::vector<int64_t>> confusion;  // [true][predicted]
  std::vector<ClassMetrics> perClass;
  // Misclassified samples, the lowest likelihood for the true class first (ties: lower index).
  std::vector<SampleOutcome> worst;
};

// likelihoods: (samples, width) after the output head; labels: one class index per sample.
// Error names the sample whose label is not a class of the network.
Evaluation evaluateClassifier(const ClassReading& reading, const std::vector<float>& likelihoods, int64_t width,
                              const std::vector<float>& labels, int64_t worstCount);

// The name of class c: classNames[c], or its number ("3") when it has none (Note [Run class names]).
std::string classNameOf(const std::vector<std::string>& classNames, int64_t c);

// One CSV cell: as it is, or in double quotes (inner quotes doubled) when it holds a comma, a
// quote or a line break (T-shirt, top → "T-shirt, top").
std::string csvCell(const std::string& text);

// The figures as the evaluation report describes them (engine/protocol/evaluation_report.h; the
// CLI's evaluate adds what was evaluated and how, and writes it for evaluate --json,
// RUN/evaluation/*.json and the GUI's Evaluation page). Every class carries its name
// (classNameOf): `class_names` (one per class: the labels of the confusion matrix's rows and
// columns), per_class `name`, and the worst samples' `true_class_name` and `predicted_class_name`.
protocol::EvaluationReport evaluationReport(const Evaluation& e, const std::vector<std::string>& classNames);
// Its JSON (evaluationReport(...).toJson()).
Json evaluationToJson(const Evaluation& e, const std::vector<std::string>& classNames);
// A table for people: accuracy, per-class table, macro averages, confusion matrix, worst samples,
// each class shown by its name.
std::string evaluationToText(const Evaluation& e, const std::vector<std::string>& classNames);

}  // namespace netsmith
