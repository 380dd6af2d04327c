// The evaluation report (docs/evaluation.md, "evaluate --json"): what `netsmith-cli evaluate RUN
// --json` prints and RUN/evaluation/<dataset>-<parameters>/evaluation.json holds, read back by
// the GUI's Evaluation page. Everything a class is shown by carries its name (Note [Run class
// names]).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/shape.h"
#include "engine/protocol/json_fields.h"

namespace netsmith::protocol {

struct ClassFigures {
  int64_t classIndex = 0;
  std::string name;         // the class's name, or its number
  int64_t support = 0;      // samples of this class (the confusion matrix's row sum)
  int64_t predicted = 0;    // samples predicted as this class (column sum)
  int64_t truePositives = 0;
  double precision = 0, recall = 0, fMeasure = 0;  // 0 where the denominator is 0
};

// A misclassified sample.
struct WorstSample {
  int64_t index = 0;  // in the evaluated dataset
  int64_t trueClass = 0;
  int64_t predictedClass = 0;
  std::string trueClassName, predictedClassName;
  double trueLikelihood = 0;
  double predictedLikelihood = 0;
  std::vector<double> likelihoods;  // the whole row (a binary classifier: P(class 1) only)
};

// The dataset evaluated: enough for a viewer to read sample `index` with the engine's reader.
struct EvaluatedDataset {
  std::string name;    // validation | training | csv
  std::string format;  // idx | csv
  std::string images, labels, csv;  // absolute; empty when not used
  double scale = 1;
  Shape sampleShape;
};

struct EvaluationReport {
  // The figures (engine/eval/evaluation.h computes them).
  int64_t samples = 0;
  int64_t classes = 0;
  int64_t correct = 0;
  double accuracy = 0;
  double error = 0;
  std::vector<std::string> classNames;  // one per class, in class order (the number when unnamed)
  double macroPrecision = 0, macroRecall = 0, macroFMeasure = 0;
  std::vector<ClassFigures> perClass;
  std::vector<std::vector<int64_t>> confusion;  // [true][predicted]
  std::vector<WorstSample> worst;               // lowest likelihood for the true class first

  // What was evaluated, and how (the CLI's evaluate command fills these in).
  std::string run, project;
  EvaluatedDataset dataset;
  std::string parametersWhich;  // last | best
  std::string parametersPath;
  Json parametersMeta = Json::object();  // the parameter file's metadata (best: epoch, validation_error)
  std::vector<std::string> devices;
  std::string precision;
  std::string outputHead;  // softmax | sigmoid | identity
  bool binary = false;     // one-output classifier: likelihoods hold P(class 1)
  std::string classNamesFile;  // the classes.txt the names came from; empty (null) when unnamed
  std::vector<std::string> warnings;
  double seconds = 0;
  std::string jsonFile, reportFile, predictionsFile;  // the files written

  // The best.nsparams' epoch in parametersMeta; 0 when not given.
  int64_t parametersEpoch() const;

  Json toJson() const;
  // Throws ReadError (Note [Protocol reading rules]); a report without a confusion matrix is not
  // an evaluation. The engine's failure answer {"error": "..."} is a ReadError with its message.
  static EvaluationReport fromJson(const Json& json);
};

}  // namespace netsmith::protocol
