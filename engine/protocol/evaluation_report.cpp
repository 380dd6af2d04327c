#include "engine/protocol/evaluation_report.h"

namespace netsmith::protocol {

int64_t EvaluationReport::parametersEpoch() const {
  if (!parametersMeta.is_object()) return 0;
  const auto it = parametersMeta.find("epoch");
  return it != parametersMeta.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

Json EvaluationReport::toJson() const {
  Json per = Json::array();
  for (const ClassFigures& c : perClass)
    per.push_back({{"class", c.classIndex},
                   {"name", c.name},
                   {"support", c.support},
                   {"predicted", c.predicted},
                   {"true_positives", c.truePositives},
                   {"precision", c.precision},
                   {"recall", c.recall},
                   {"f_measure", c.fMeasure}});
  Json worstList = Json::array();
  for (const WorstSample& s : worst)
    worstList.push_back({{"index", s.index},
                         {"true_class", s.trueClass},
                         {"predicted_class", s.predictedClass},
                         {"true_class_name", s.trueClassName},
                         {"predicted_class_name", s.predictedClassName},
                         {"true_likelihood", s.trueLikelihood},
                         {"predicted_likelihood", s.predictedLikelihood},
                         {"likelihoods", s.likelihoods}});
  return {{"samples", samples},
          {"classes", classes},
          {"class_names", classNames},
          {"correct", correct},
          {"accuracy", accuracy},
          {"error", error},
          {"macro", {{"precision", macroPrecision}, {"recall", macroRecall}, {"f_measure", macroFMeasure}}},
          {"per_class", per},
          {"confusion_matrix", confusion},
          {"worst", worstList},
          {"run", run},
          {"project", project},
          {"dataset",
           {{"name", dataset.name},
            {"format", dataset.format},
            {"images", dataset.images},
            {"labels", dataset.labels},
            {"csv", dataset.csv},
            {"scale", dataset.scale},
            {"sample_shape", dataset.sampleShape}}},
          {"parameters", {{"which", parametersWhich}, {"path", parametersPath}, {"meta", parametersMeta}}},
          {"devices", devices},
          {"precision", precision},
          {"output_head", outputHead},
          {"binary", binary},
          {"class_names_file", classNamesFile.empty() ? Json(nullptr) : Json(classNamesFile)},
          {"warnings", warnings},
          {"seconds", seconds},
          {"files", {{"json", jsonFile}, {"report", reportFile}, {"predictions", predictionsFile}}}};
}

EvaluationReport EvaluationReport::fromJson(const Json& json) {
  const FieldReader o(json, "evaluation report");
  if (o.has("error") && !o.has("confusion_matrix")) throw ReadError(o.text("error"));
  if (!o.has("confusion_matrix")) throw ReadError("evaluation report: no confusion_matrix: not an evaluation");
  EvaluationReport r;
  r.samples = o.integer("samples");
  r.correct = o.integer("correct");
  r.accuracy = o.number("accuracy", 0.0);
  r.error = o.number("error", 1.0 - r.accuracy);
  r.classNames = o.texts("class_names");
  if (const auto m = o.object("macro")) {
    r.macroPrecision = m->number("precision", 0.0);
    r.macroRecall = m->number("recall", 0.0);
    r.macroFMeasure = m->number("f_measure", 0.0);
  }
  o.forEachObject("per_class", [&](const FieldReader& c) {
    ClassFigures f;
    f.classIndex = c.integer("class", static_cast<int64_t>(r.perClass.size()));
    f.name = c.text("name");
    f.support = c.integer("support");
    f.predicted = c.integer("predicted");
    f.truePositives = c.integer("true_positives");
    f.precision = c.number("precision", 0.0);
    f.recall = c.number("recall", 0.0);
    f.fMeasure = c.number("f_measure", 0.0);
    r.perClass.push_back(std::move(f));
  });
  o.forEach("confusion_matrix", [&](const Json& row, const Where& at) {
    if (!row.is_array()) failValue(at, "an array of counts", row);
    std::vector<int64_t> counts;
    for (size_t k = 0; k < row.size(); ++k) counts.push_back(integerValue(row[k], at.element(k)));
    r.confusion.push_back(std::move(counts));
  });
  r.classes = o.integer("classes", static_cast<int64_t>(r.confusion.size()));
  o.forEachObject("worst", [&](const FieldReader& w) {
    WorstSample s;
    s.index = w.integer("index");
    s.trueClass = w.integer("true_class");
    s.predictedClass = w.integer("predicted_class");
    s.trueClassName = w.text("true_class_name");
    s.predictedClassName = w.text("predicted_class_name");
    s.trueLikelihood = w.number("true_likelihood", 0.0);
    s.predictedLikelihood = w.number("predicted_likelihood", 0.0);
    s.likelihoods = w.numbers("likelihoods");
    r.worst.push_back(std::move(s));
  });
  r.run = o.text("run");
  r.project = o.text("project");
  if (const auto d = o.object("dataset")) {
    r.dataset.name = d->text("name");
    r.dataset.format = d->text("format");
    r.dataset.images = d->text("images");
    r.dataset.labels = d->text("labels");
    r.dataset.csv = d->text("csv");
    r.dataset.scale = d->number("scale", 1.0);
    r.dataset.sampleShape = d->integers("sample_shape");
  }
  if (const auto p = o.object("parameters")) {
    r.parametersWhich = p->text("which");
    r.parametersPath = p->text("path");
    if (p->has("meta")) {
      if (!p->raw("meta").is_object()) p->fail("meta", "an object", p->raw("meta"));
      r.parametersMeta = p->raw("meta");
    }
  }
  r.devices = o.texts("devices");
  r.precision = o.text("precision");
  r.outputHead = o.text("output_head");
  r.binary = o.flag("binary");
  r.classNamesFile = o.text("class_names_file");
  r.warnings = o.texts("warnings");
  r.seconds = o.number("seconds", 0.0);
  if (const auto f = o.object("files")) {
    r.jsonFile = f->text("json");
    r.reportFile = f->text("report");
    r.predictionsFile = f->text("predictions");
  }
  return r;
}

}  // namespace netsmith::protocol
