#include "gui/evaluation/evaluation_result.h"

#include <QFile>
#include <QLocale>
#include <algorithm>

#include "engine/protocol/evaluation_report.h"
#include "gui/document/qt_text.h"

namespace netsmith::gui {

namespace {

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
  const auto o = nlohmann::json::parse(json.constBegin(), json.constEnd(), nullptr, /*allow_exceptions=*/false);
  if (o.is_discarded() || !o.is_object()) return fail(QStringLiteral("the engine's answer is not a JSON object"));
  protocol::EvaluationReport report;
  try {
    report = protocol::EvaluationReport::fromJson(o);  // Note [Protocol reading rules]
  } catch (const protocol::ReadError& e) {
    return fail(QString::fromStdString(e.what()));
  }
  EvaluationResult r;
  r.run = qs(report.run);
  r.project = qs(report.project);
  r.datasetName = qs(report.dataset.name);
  r.datasetFormat = qs(report.dataset.format);
  r.images = qs(report.dataset.images);
  r.labels = qs(report.dataset.labels);
  r.csv = qs(report.dataset.csv);
  r.scale = report.dataset.scale;
  for (int64_t d : report.dataset.sampleShape) r.sampleShape << d;
  r.parametersWhich = qs(report.parametersWhich);
  r.parametersPath = qs(report.parametersPath);
  r.bestEpoch = report.parametersEpoch();
  for (const std::string& d : report.devices) r.devices << qs(d);
  r.outputHead = qs(report.outputHead);
  r.binary = report.binary;
  r.samples = report.samples;
  r.classes = report.classes;
  for (const std::string& n : report.classNames) r.classNames << qs(n);
  r.correct = report.correct;
  r.accuracy = report.accuracy;
  r.error = report.error;
  r.macroPrecision = report.macroPrecision;
  r.macroRecall = report.macroRecall;
  r.macroFMeasure = report.macroFMeasure;
  for (const protocol::ClassFigures& c : report.perClass)
    r.perClass << ClassFigures{static_cast<int>(c.classIndex), qs(c.name), c.support, c.predicted, c.truePositives,
                               c.precision, c.recall, c.fMeasure};
  for (const std::vector<int64_t>& row : report.confusion) {
    QVector<long long> counts;
    for (int64_t v : row) counts << v;
    r.confusion << counts;
  }
  if (r.classes == 0) r.classes = r.confusion.size();
  for (const protocol::WorstSample& w : report.worst) {
    SamplePrediction s;
    s.index = w.index;
    s.trueClass = static_cast<int>(w.trueClass);
    s.predictedClass = static_cast<int>(w.predictedClass);
    for (double v : w.likelihoods) s.likelihoods << v;
    r.worst << s;
  }
  r.seconds = report.seconds;
  r.jsonFile = qs(report.jsonFile);
  r.reportFile = qs(report.reportFile);
  r.predictionsFile = qs(report.predictionsFile);
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
