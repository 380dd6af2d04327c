// netsmith-cli evaluate RUN: accuracy, per-class precision/recall/F-measure, confusion matrix
// and worst-classified samples of a trained run on a labelled dataset, on the run's devices.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "engine/protocol/json_fields.h"
#include "engine/cli/eval_commands.h"
#include "engine/core/error.h"
#include "engine/core/text_files.h"
#include "engine/data/class_names.h"
#include "engine/data/csv_reader.h"
#include "engine/eval/evaluation.h"
#include "engine/eval/non_finite_inputs.h"
#include "engine/eval/output_head.h"
#include "engine/eval/run_model.h"
#include "engine/train/parallel_plan.h"
#include "engine/train/openmp_pools.h"

namespace fs = std::filesystem;

namespace netsmith::cli {

const CommandSpec kEvaluate{
    "evaluate",
    "RUN_FOLDER [--dataset validation|training|FILE.csv] [--parameters last|best] [--json]",
    "Evaluates a trained run: accuracy, per-class precision/recall/F-measure, confusion matrix, worst samples.",
    "Runs on the run's devices (or --devices), in fixed blocks combined in sample order, so any number of\n"
    "devices gives the same numbers. Writes RUN_FOLDER/evaluation/<dataset>-<parameters>/: evaluation.json\n"
    "(what --json prints), report.txt (the table) and predictions.csv (every sample's true and predicted\n"
    "class, their names and the likelihoods). Classes are named from the run's classes.txt (else the\n"
    "dataset's), or numbered. Exit status: 0 done, 1 failed, 2 bad command line.",
    {{"--dataset", "NAME", "validation (default), training, or a dataset CSV file (x:image,y:label)"},
     {"--parameters", "WHICH", "last (default: parameters.nsparams) or best (best.nsparams, config.save_best)"},
     {"--devices", "LIST", "evaluate on these devices (e.g. cpu:0,cpu:1) instead of the run's"},
     {"--worst", "N", "list the N worst-classified samples (default 20)"},
     {"--samples", "N", "evaluate the first N samples only (quick checks)"},
     {"--json", "", "print the result as one JSON object"}},
    1,
    1};

std::vector<std::string> devicesOption(const ParsedArgs& args) {
  if (!args.has("--devices")) return {};
  try {
    return parseDeviceList(args.value("--devices"));
  } catch (const Error& e) {
    throw UsageError{e.what()};
  }
}

std::string parametersOption(const ParsedArgs& args) {
  const std::string which = args.has("--parameters") ? args.value("--parameters") : "last";
  if (which != "last" && which != "best") throw UsageError{format("--parameters: expected last or best, got '{}'", which)};
  return which;
}

std::string nineDigits(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

namespace {

// Note [Run class names]: the run's names, else the evaluated dataset's. When both have names and
// they differ, the labels are still compared as numbers (the network knows no names) and a
// warning says which class is called what.
struct Naming {
  std::vector<std::string> names;
  std::string file;
  std::vector<std::string> warnings;
};

Naming classNamesFor(const RunModel& model, const Dataset& data, const DataSourceSpec& spec) {
  Naming n{model.classNames(), model.classNamesFile(), {}};
  if (data.classNames.empty()) return n;
  const std::string datasetFile = classNamesPathFor(spec.csv).string();
  if (n.names.empty()) return {data.classNames, datasetFile, {}};
  if (data.classNames == n.names || datasetFile == n.file) return n;
  size_t c = 0;
  while (c < n.names.size() && c < data.classNames.size() && n.names[c] == data.classNames[c]) ++c;
  const std::string ours = c < n.names.size() ? "'" + n.names[c] + "'" : "unnamed";
  const std::string theirs = c < data.classNames.size() ? "'" + data.classNames[c] + "'" : "unnamed";
  n.warnings.push_back(format("{} names the classes differently from the run's {}: class {} is {} there and {} in the run "
                              "(the labels are compared as numbers; the report uses the run's names)",
                              datasetFile, n.file, c, theirs, ours));
  return n;
}

}  // namespace

int runEvaluate(const ParsedArgs& args) {
  const bool json = args.has("--json");
  const std::string which = parametersOption(args);
  const std::vector<std::string> devices = devicesOption(args);
  const long long worst = args.has("--worst") ? *args.positiveInteger("--worst") : 20;
  const long long limit = args.has("--samples") ? *args.positiveInteger("--samples") : 0;
  const std::string datasetName = args.has("--dataset") ? args.value("--dataset") : "validation";
  try {
    const auto start = std::chrono::steady_clock::now();
    const RunModel model(args.positional[0], which);
    const Project& project = model.project();
    DataSourceSpec spec;
    std::string tag;
    if (datasetName == "validation" || datasetName == "training") {
      spec = datasetName == "validation" ? project.dataset.validation : project.dataset.training;
      NS_CHECK(spec.present(), "{}: the project has no dataset.{}; give --dataset training or a CSV file",
               model.runDir() + "/project.nsproj", datasetName);
      tag = datasetName;
    } else {
      NS_CHECK(fs::path(datasetName).extension() == ".csv",
               "--dataset: expected validation, training or a .csv file, got '{}'", datasetName);
      spec.format = "csv";
      spec.csv = fs::absolute(datasetName).string();
      tag = "csv-" + fs::path(datasetName).stem().string();
    }
    tag += "-" + which;
    // Note [OpenMP pools]: decoded off this thread, so the evaluation workers' teams spin at full speed.
    Dataset data = runOnShortLivedThread([&] { return loadDataSource(spec, project.dataset.scale, project.dataset.onError); });
    data.keepFirst(limit);
    NS_CHECK(data.labelWidth == 1, "{}: has {} label values per sample; evaluate needs one class label per sample", data.source,
             data.labelWidth);
    const ClassReading reading = classReadingOf(model.graph());
    NS_CHECK(reading.classification, "{}: evaluate needs a classifier: {}", model.runDir(), reading.why);

    // A NaN or infinite input would be counted right or wrong by chance: refused, naming the sample.
    if (const auto bad = samplesWithNonFiniteInputs(data); !bad.empty())
      NS_THROW("{}, {}: {}{}: evaluate needs finite inputs", data.source, data.rowName(bad.front().index),
               nonFiniteInputMessage(bad.front(), numel(data.sampleShape)),
               bad.size() > 1 ? format(" (and {} more samples like it)", bad.size() - 1) : std::string());
    const Predictions predictions = model.predict(data, devices);
    const OutputHead head = outputHeadOf(model.graph());
    std::vector<float> likelihoods(predictions.values.size());
    for (int64_t i = 0; i < predictions.samples; ++i)
      applyOutputHead(head, {predictions.row(i), static_cast<size_t>(predictions.width)},
                      {likelihoods.data() + i * predictions.width, static_cast<size_t>(predictions.width)});
    const Evaluation e = evaluateClassifier(reading, likelihoods, predictions.width, data.labels, worst);
    const Naming naming = classNamesFor(model, data, spec);
    for (const auto& w : naming.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    const fs::path folder = fs::path(model.runDir()) / "evaluation" / tag;
    fs::create_directories(folder);
    protocol::EvaluationReport report = evaluationReport(e, naming.names);
    report.classNamesFile = naming.file;
    report.warnings = naming.warnings;
    report.run = model.runDir();
    report.project = project.name;
    report.dataset = {datasetName == "validation" || datasetName == "training" ? datasetName : "csv",
                      spec.format,
                      spec.images,
                      spec.labels,
                      spec.csv,
                      project.dataset.scale,
                      data.sampleShape};
    report.parametersWhich = which;
    report.parametersPath = model.parameters().path;
    report.parametersMeta = model.parameters().data.meta;
    report.devices = predictions.devices;
    if (!predictions.deviceNote.empty()) {
      report.warnings.push_back(predictions.deviceNote);
      std::fprintf(stderr, "netsmith-cli evaluate: %s\n", predictions.deviceNote.c_str());
    }
    report.precision = project.config.precision;  // the run's, as in training (Note [CPU bfloat16])
    report.outputHead = outputHeadName(head);
    report.binary = reading.binary;
    report.seconds = seconds;
    report.jsonFile = (folder / "evaluation.json").string();
    report.reportFile = (folder / "report.txt").string();
    report.predictionsFile = (folder / "predictions.csv").string();
    const Json out = report.toJson();

    std::string csv = "index,true_class,predicted_class,true_class_name,predicted_class_name";
    for (int64_t c = 0; c < predictions.width; ++c) csv += ",likelihood_" + std::to_string(c);
    csv += "\n";
    for (int64_t i = 0; i < predictions.samples; ++i) {
      const std::span<const float> row(likelihoods.data() + i * predictions.width, static_cast<size_t>(predictions.width));
      const auto trueClass = static_cast<int64_t>(data.labels[static_cast<size_t>(i)]);
      const int64_t predicted = predictedClass(reading, row);
      csv += format("{},{},{},{},{}", i, trueClass, predicted, csvCell(classNameOf(naming.names, trueClass)),
                    csvCell(classNameOf(naming.names, predicted)));
      for (float v : row) csv += "," + nineDigits(v);
      csv += "\n";
    }
    const std::string text = format("Evaluation of {} ({} parameters) on {} ({} samples) with {}\n\n", model.runDir(), which,
                                    data.source, e.samples, [&] {
                                      std::string s;
                                      for (const auto& d : predictions.devices) s += (s.empty() ? "" : ", ") + d;
                                      return s;
                                    }()) +
                             evaluationToText(e, naming.names);
    writeTextAtomically(folder / "evaluation.json", out.dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
    writeTextAtomically(folder / "report.txt", text);
    writeTextAtomically(folder / "predictions.csv", csv);
    if (json) {
      std::printf("%s\n", out.dump(-1, ' ', false, Json::error_handler_t::replace).c_str());
    } else {
      std::printf("%s\nWritten to %s\n", text.c_str(), folder.string().c_str());
    }
    return 0;
  } catch (const Error& e) {
    if (json) std::printf("%s\n", protocol::jsonText(Json{{"error", e.what()}}).c_str());
    throw;
  }
}

}  // namespace netsmith::cli
