// What `netsmith-cli infer RUN --input IMAGE... --json` prints (docs/evaluation.md, "infer --json";
// Note [Infer JSON]) as value types for the Evaluation page's Inference tab: one row per input, with
// the class likelihoods or the reason that input could not be used. Parsing never throws: a key of
// the wrong type reads as absent, unknown keys are ignored.
// (Read here with nlohmann::json as evaluation_result.cpp reads evaluate's JSON; the shared
// engine/protocol types replace both readers when they exist.)
#pragma once

#include <QString>
#include <QStringList>
#include <QVector>
#include <optional>

namespace netsmith::gui {

struct InferenceRow {
  QString input;  // the file as it was given
  QString error;  // why this input has no prediction; empty when it has one
  int predictedClass = -1;
  QString predictedName;
  QVector<double> likelihoods;  // classifier: one per class (a binary classifier's two: 1 - p, p)
  QVector<double> outputs;      // not a classifier: the network's outputs after its output head
  QVector<long long> shape;     // the image as the network saw it (channels, height, width)
  QString prepared;             // what was done to fit it to the Input (Note [Inference resize]); empty: nothing

  bool ok() const { return error.isEmpty(); }
  // The `k` most likely classes, most likely first (equal likelihoods: the lower class first).
  QVector<int> topClasses(int k) const;
};

struct InferenceResult {
  QString run, parametersWhich;
  QStringList devices;
  QString outputHead;
  bool classification = false;
  bool binary = false;
  QStringList classNames;  // one per class: its name or its number (Note [Run class names])
  QVector<long long> inputShape;
  long long predicted = 0;  // inputs that have a prediction
  double seconds = 0;
  QVector<InferenceRow> rows;  // one per input, in the order given

  QString className(int c) const;  // the name, else the number
};

// Parses infer's JSON. Nothing (and `error` says why) when it is not an inference result: not
// JSON, the engine's {"error": "..."} (its message is given), or no "results" array.
std::optional<InferenceResult> parseInference(const QByteArray& json, QString* error = nullptr);

}  // namespace netsmith::gui
