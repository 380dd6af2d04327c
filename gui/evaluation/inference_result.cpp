#include "gui/evaluation/inference_result.h"

#include <QObject>
#include <algorithm>
#include <numeric>

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
QString text(const Json& o, const char* key) {
  const Json& v = member(o, key);
  return v.is_string() ? QString::fromStdString(v.get<std::string>()) : QString();
}
double number(const Json& o, const char* key) {
  const Json& v = member(o, key);
  return v.is_number() ? v.get<double>() : 0.0;
}
QVector<double> numbers(const Json& v) {
  QVector<double> out;
  if (v.is_array())
    for (const Json& x : v) out << (x.is_number() ? x.get<double>() : 0.0);
  return out;
}
QVector<long long> integers(const Json& v) {
  QVector<long long> out;
  if (v.is_array())
    for (const Json& x : v) out << (x.is_number() ? static_cast<long long>(x.get<double>()) : 0LL);
  return out;
}
QStringList strings(const Json& v) {
  QStringList out;
  if (v.is_array())
    for (const Json& x : v) out << (x.is_string() ? QString::fromStdString(x.get<std::string>()) : QString());
  return out;
}

}  // namespace

QVector<int> InferenceRow::topClasses(int k) const {
  QVector<int> order(likelihoods.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [this](int a, int b) { return likelihoods[a] > likelihoods[b]; });
  if (order.size() > k) order.resize(std::max(k, 0));
  return order;
}

QString InferenceResult::className(int c) const {
  return c >= 0 && c < classNames.size() && !classNames[c].isEmpty() ? classNames[c] : QString::number(c);
}

std::optional<InferenceResult> parseInference(const QByteArray& json, QString* error) {
  const Json doc = Json::parse(json.constBegin(), json.constEnd(), nullptr, false);
  auto fail = [error](const QString& why) -> std::optional<InferenceResult> {
    if (error) *error = why;
    return std::nullopt;
  };
  if (doc.is_discarded() || !doc.is_object()) return fail(QObject::tr("the engine's output is not JSON"));
  if (!text(doc, "error").isEmpty()) return fail(text(doc, "error"));
  const Json& results = member(doc, "results");
  if (!results.is_array()) return fail(QObject::tr("the engine's output has no \"results\""));

  InferenceResult r;
  r.run = text(doc, "run");
  r.parametersWhich = text(member(doc, "parameters"), "which");
  r.devices = strings(member(doc, "devices"));
  r.outputHead = text(doc, "output_head");
  r.classification = member(doc, "classification").is_boolean() && member(doc, "classification").get<bool>();
  r.binary = member(doc, "binary").is_boolean() && member(doc, "binary").get<bool>();
  r.classNames = strings(member(doc, "class_names"));
  r.inputShape = integers(member(doc, "input_shape"));
  r.predicted = static_cast<long long>(number(doc, "predicted"));
  r.seconds = number(doc, "seconds");
  for (const Json& o : results) {
    InferenceRow row;
    row.input = text(o, "input");
    row.error = text(o, "error");
    row.likelihoods = numbers(member(o, "likelihoods"));
    row.outputs = numbers(member(o, "outputs"));
    row.shape = integers(member(o, "shape"));
    row.prepared = text(o, "prepared");
    if (member(o, "class").is_number()) row.predictedClass = static_cast<int>(number(o, "class"));
    row.predictedName = text(o, "class_name");
    if (row.ok() && row.likelihoods.isEmpty() && row.outputs.isEmpty())
      row.error = QObject::tr("%1: the engine gave no prediction for this input").arg(row.input);
    r.rows << row;
  }
  return r;
}

}  // namespace netsmith::gui
