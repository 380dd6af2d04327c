#include "gui/evaluation/evaluation_result.h"

#include <QFile>
#include <QLocale>
#include <algorithm>

#include <nlohmann/json.hpp>

namespace netsmith::gui {

namespace {

using Json = nlohmann::json;

const Json& member(const Json& o, const char* key) {
  static const Json null;
  if (!o.is_object()) return null;
  const auto it = o.find(key);
  return it == o.end() ? null : *it;
}
double number(const Json& o, const char* key, double fallback = 0) {
  const Json& v = member(o, key);
  return v.is_number() ? v.get<double>() : fallback;
}
long long integer(const Json& o, const char* key) {
  const Json& v = member(o, key);
  return v.is_number() ? static_cast<long long>(v.get<double>()) : 0;
}
QString text(const Json& o, const char* key) {
  const Json& v = member(o, key);
  return v.is_string() ? QString::fromStdString(v.get<std::string>()) : QString();
}
QVector<double> numbers(const Json& v) {
  QVector<double> out;
  if (v.is_array())
    for (const Json& x : v) out << (x.is_number() ? x.get<double>() : 0.0);
  return out;
}

SamplePrediction readSample(const Json& o) {
  SamplePrediction s;
  s.index = integer(o, "index");
  s.trueClass = static_cast<int>(integer(o, "true_class"));
  s.predictedClass = static_cast<int>(integer(o, "predicted_class"));
  s.likelihoods = numbers(member(o, "likelihoods"));
  return s;
}

// One CSV line's cells; a quoted cell may hold commas and doubled quotes (a class name).
QList<QByteArray> splitCsv(const QByteArray& line) {
  QList<QByteArray> cells{QByteArray()};
  bool quoted = false;
  for (qsizetype i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c != '"') cells.last() += c;
      else if (i + 1 < line.size() && line[i + 1] == '"') cells.last() += line[++i];
      else quoted = false;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells << QByteArray();
    } else {
      cells.last() += c;
    }
  }
  return cells;
}

QString csvField(const QString& s) {
  if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) && !s.contains(QLatin1Char('\n'))) return s;
  QString q = s;
  q.replace(QLatin1Char('"'), QStringLiteral("\"\""));
  return QLatin1Char('"') + q + QLatin1Char('"');
}

}  // namespace

// A binary classifier's likelihoods hold P(class 1) only.
double SamplePrediction::trueLikelihood() const {
  if (likelihoods.size() == 1) return trueClass == 1 ? likelihoods[0] : 1 - likelihoods[0];
  return trueClass >= 0 && trueClass < likelihoods.size() ? likelihoods[trueClass] : 0;
}
double SamplePrediction::predictedLikelihood() const {
  if (likelihoods.size() == 1) return predictedClass == 1 ? likelihoods[0] : 1 - likelihoods[0];
  return predictedClass >= 0 && predictedClass < likelihoods.size() ? likelihoods[predictedClass] : 0;
}

QString EvaluationResult::className(int c) const {
  for (const ClassFigures& f : perClass)
    if (f.classIndex == c && !f.name.isEmpty()) return f.name;
  if (c >= 0 && c < classNames.size() && !classNames[c].isEmpty()) return classNames[c];
  return QString::number(c);
}

std::optional<EvaluationResult> parseEvaluation(const QByteArray& json, QString* error) {
  auto fail = [error](const QString& why) {
    if (error) *error = why;
    return std::nullopt;
  };
  const Json o = Json::parse(json.toStdString(), nullptr, false);
  if (o.is_discarded() || !o.is_object()) return fail(QStringLiteral("the engine's answer is not a JSON object"));
  if (!text(o, "error").isEmpty()) return fail(text(o, "error"));
  const Json& matrix = member(o, "confusion_matrix");
  if (!matrix.is_array()) return fail(QStringLiteral("the engine's answer has no confusion_matrix"));

  EvaluationResult r;
  r.run = text(o, "run");
  r.project = text(o, "project");
  const Json& data = member(o, "dataset");
  r.datasetName = text(data, "name");
  r.datasetFormat = text(data, "format");
  r.images = text(data, "images");
  r.labels = text(data, "labels");
  r.csv = text(data, "csv");
  r.scale = number(data, "scale", 1);
  for (double d : numbers(member(data, "sample_shape"))) r.sampleShape << static_cast<long long>(d);
  const Json& params = member(o, "parameters");
  r.parametersWhich = text(params, "which");
  r.parametersPath = text(params, "path");
  r.bestEpoch = integer(member(params, "meta"), "epoch");
  if (const Json& devices = member(o, "devices"); devices.is_array())
    for (const Json& d : devices)
      if (d.is_string()) r.devices << QString::fromStdString(d.get<std::string>());
  r.outputHead = text(o, "output_head");
  r.binary = member(o, "binary").is_boolean() && member(o, "binary").get<bool>();
  r.samples = integer(o, "samples");
  r.classes = integer(o, "classes");
  if (const Json& names = member(o, "class_names"); names.is_array())
    for (const Json& n : names) r.classNames << (n.is_string() ? QString::fromStdString(n.get<std::string>()) : QString());
  r.correct = integer(o, "correct");
  r.accuracy = number(o, "accuracy");
  r.error = number(o, "error");
  const Json& macro = member(o, "macro");
  r.macroPrecision = number(macro, "precision");
  r.macroRecall = number(macro, "recall");
  r.macroFMeasure = number(macro, "f_measure");
  if (const Json& classes = member(o, "per_class"); classes.is_array())
    for (const Json& c : classes) {
      ClassFigures f;
      f.classIndex = static_cast<int>(integer(c, "class"));
      f.name = text(c, "name");
      f.support = integer(c, "support");
      f.predicted = integer(c, "predicted");
      f.truePositives = integer(c, "true_positives");
      f.precision = number(c, "precision");
      f.recall = number(c, "recall");
      f.fMeasure = number(c, "f_measure");
      r.perClass << f;
    }
  for (const Json& row : matrix) {
    QVector<long long> counts;
    for (double v : numbers(row)) counts << static_cast<long long>(v);
    r.confusion << counts;
  }
  if (r.classes == 0) r.classes = r.confusion.size();
  if (const Json& worst = member(o, "worst"); worst.is_array())
    for (const Json& w : worst) r.worst << readSample(w);
  r.seconds = number(o, "seconds");
  const Json& files = member(o, "files");
  r.jsonFile = text(files, "json");
  r.reportFile = text(files, "report");
  r.predictionsFile = text(files, "predictions");
  return r;
}

QList<SamplePrediction> readPredictions(const QString& file, int limit, bool misclassifiedOnly) {
  QList<SamplePrediction> out;
  QFile f(file);
  if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) return out;
  // Columns by name; an older file (no header names known) has index,true,predicted,likelihoods.
  const QList<QByteArray> header = splitCsv(f.readLine().trimmed());
  qsizetype index = header.indexOf("index"), trueClass = header.indexOf("true_class"),
            predicted = header.indexOf("predicted_class"), firstLikelihood = -1;
  for (qsizetype i = 0; i < header.size() && firstLikelihood < 0; ++i)
    if (header[i].startsWith("likelihood_")) firstLikelihood = i;
  if (index < 0 || trueClass < 0 || predicted < 0 || firstLikelihood < 0) {
    index = 0;
    trueClass = 1;
    predicted = 2;
    firstLikelihood = 3;
  }
  while (!f.atEnd() && (limit <= 0 || out.size() < limit)) {
    const QList<QByteArray> cells = splitCsv(f.readLine().trimmed());
    if (cells.size() <= std::max({index, trueClass, predicted, firstLikelihood})) continue;
    SamplePrediction s;
    s.index = cells[index].toLongLong();
    s.trueClass = cells[trueClass].toInt();
    s.predictedClass = cells[predicted].toInt();
    if (misclassifiedOnly && !s.misclassified()) continue;
    for (qsizetype i = firstLikelihood; i < cells.size(); ++i) s.likelihoods << cells[i].toDouble();
    out << s;
  }
  return out;
}

QString perClassCsv(const EvaluationResult& r) {
  const QLocale c = QLocale::c();
  QString out = QStringLiteral("class,name,precision,recall,f_measure,support\n");
  for (const ClassFigures& f : r.perClass)
    out += QStringLiteral("%1,%2,%3,%4,%5,%6\n")
               .arg(f.classIndex)
               .arg(csvField(f.name), c.toString(f.precision, 'g', 9), c.toString(f.recall, 'g', 9),
                    c.toString(f.fMeasure, 'g', 9))
               .arg(f.support);
  long long total = 0;
  for (const ClassFigures& f : r.perClass) total += f.support;
  out += QStringLiteral("macro,,%1,%2,%3,%4\n")
             .arg(c.toString(r.macroPrecision, 'g', 9), c.toString(r.macroRecall, 'g', 9), c.toString(r.macroFMeasure, 'g', 9))
             .arg(total);
  return out;
}

}  // namespace netsmith::gui
