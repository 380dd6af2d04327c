// What `netsmith-cli evaluate RUN --json` prints (docs/evaluation.md, "evaluate --json"), as value
// types for the Evaluation page, and the run folder's predictions.csv. The report is read by
// engine/protocol's EvaluationReport reader (Note [Protocol reading rules]: unknown keys ignored,
// missing keys take defaults, a key of the wrong type is an error naming it); this is its Qt
// adaptor. Parsing never throws.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>
#include <QVector>
#include <optional>

namespace netsmith::gui {

struct ClassFigures {
  int classIndex = 0;
  QString name;  // the class's name, or its number
  long long support = 0;    // samples of this class (row sum)
  long long predicted = 0;  // samples predicted as this class (column sum)
  long long truePositives = 0;
  double precision = 0, recall = 0, fMeasure = 0;
};

// One sample with its likelihoods (a worst-classified sample, or a row of predictions.csv).
struct SamplePrediction {
  long long index = 0;  // the sample's index in the dataset
  int trueClass = 0;
  int predictedClass = 0;
  QVector<double> likelihoods;  // one per class (P(class 1) only for a binary classifier)
  double trueLikelihood() const;
  double predictedLikelihood() const;
  bool misclassified() const { return trueClass != predictedClass; }
};

struct EvaluationResult {
  QString run, project;
  // The dataset, enough to read sample `index` with the engine's dataset reader.
  QString datasetName, datasetFormat, images, labels, csv;
  double scale = 1;
  QVector<long long> sampleShape;
  QString parametersWhich, parametersPath;
  long long bestEpoch = 0;  // from best.nsparams' metadata; 0 when not given
  QStringList devices;
  QString outputHead;
  bool binary = false;
  long long samples = 0, classes = 0, correct = 0;
  double accuracy = 0, error = 0;
  double macroPrecision = 0, macroRecall = 0, macroFMeasure = 0;
  QList<ClassFigures> perClass;
  // class_names: one per class, the name or the number (Note [Run class names]); empty in an
  // evaluation written before it was given.
  QStringList classNames;
  QVector<QVector<long long>> confusion;  // [true][predicted]
  QList<SamplePrediction> worst;          // misclassified, worst first
  double seconds = 0;
  QString jsonFile, reportFile, predictionsFile;

  QString className(int c) const;  // the per-class name, else class_names', else the number
};

// Parses evaluate's JSON. Nothing (and `error` says why) when it is not an evaluation: not JSON,
// the engine's {"error": "..."} (its message is given), no confusion matrix, or a key of the wrong
// type ("evaluation report: per_class[0].precision: expected a number, got \"high\"").
std::optional<EvaluationResult> parseEvaluation(const QByteArray& json, QString* error = nullptr);

// Reads predictions.csv (index,true_class,predicted_class,true_class_name,predicted_class_name,
// likelihood_0,...; columns found by their header names, so a file without the names reads too):
// at most `limit` rows (0: all), only the misclassified ones when `misclassifiedOnly`.
QList<SamplePrediction> readPredictions(const QString& file, int limit = 0, bool misclassifiedOnly = false);

// The per-class table as CSV: class,name,precision,recall,f_measure,support, then a "macro" row.
QString perClassCsv(const EvaluationResult& result);

}  // namespace netsmith::gui
