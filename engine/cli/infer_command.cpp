// netsmith-cli infer RUN --input CSV|PNG...: predictions of a trained run as CSV.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "engine/cli/eval_commands.h"
#include "engine/core/error.h"
#include "engine/eval/evaluation.h"
#include "engine/eval/inference_input.h"
#include "engine/eval/output_head.h"
#include "engine/eval/run_model.h"

namespace fs = std::filesystem;

namespace netsmith::cli {

const CommandSpec kInfer{
    "infer",
    "RUN_FOLDER --input FILE.csv|IMAGE.png [IMAGE.png ...] [--output FILE.csv]",
    "Runs a trained run's network on PNG images or a dataset CSV and writes the predictions as CSV.",
    "Inputs are scaled by the project's dataset.scale, as in training. A CSV follows the dataset format\n"
    "(header x:image, image paths relative to the CSV); its y column is optional. Output columns:\n"
    "input,class,class_name,likelihood_0,... for a classifier (class_name from the run's classes.txt, or\n"
    "the class number when the classes are unnamed; likelihoods after the softmax or sigmoid the loss\n"
    "implies), input,y_0,... otherwise. Exit status: 0 done, 1 failed, 2 bad command line.",
    {{"--input", "FILE", "a dataset CSV, or a PNG file (more PNG files may follow as arguments)"},
     {"--output", "FILE.csv", "write the CSV here instead of standard output"},
     {"--parameters", "WHICH", "last (default) or best"},
     {"--devices", "LIST", "run on these devices instead of the run's"}},
    1,
    1 << 20};

namespace {
std::string fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}
}  // namespace

int runInfer(const ParsedArgs& args) {
  if (!args.has("--input")) throw UsageError{"'infer' needs --input FILE.csv or --input IMAGE.png [IMAGE.png ...]"};
  std::vector<std::string> inputs{args.value("--input")};
  inputs.insert(inputs.end(), args.positional.begin() + 1, args.positional.end());
  const bool csvInput = fs::path(inputs[0]).extension() == ".csv";
  if (csvInput && inputs.size() > 1) throw UsageError{"--input: give one CSV file, or PNG files only"};
  const RunModel model(args.positional[0], parametersOption(args));
  const double scale = model.project().dataset.scale;
  std::vector<std::string> names;
  Dataset data;
  if (csvInput) {
    data = loadInferenceCsv(inputs[0], scale, names);
  } else {
    data = loadPngFiles(inputs, scale);
    names = inputs;
  }
  const Predictions p = model.predict(data, devicesOption(args));
  const OutputHead head = outputHeadOf(model.graph());
  const ClassReading reading = classReadingOf(model.graph());
  // class_name is always there for a classifier (the number when unnamed), so the columns do not
  // depend on whether the run's classes have names (Note [Run class names]).
  std::string csv = reading.classification ? "input,class,class_name" : "input";
  for (int64_t c = 0; c < p.width; ++c) csv += (reading.classification ? ",likelihood_" : ",y_") + std::to_string(c);
  csv += "\n";
  std::vector<float> row(static_cast<size_t>(p.width));
  for (int64_t i = 0; i < p.samples; ++i) {
    applyOutputHead(head, {p.row(i), row.size()}, row);
    csv += csvCell(i < static_cast<int64_t>(names.size()) ? names[static_cast<size_t>(i)] : std::to_string(i));
    if (reading.classification) {
      const int64_t c = predictedClass(reading, row);
      csv += "," + std::to_string(c) + "," + csvCell(classNameOf(model.classNames(), c));
    }
    for (float v : row) csv += "," + fixed(v);
    csv += "\n";
  }
  if (args.has("--output")) {
    const std::string path = args.value("--output");
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    NS_CHECK(out.good(), "{}: cannot write", path);
    out << csv;
    NS_CHECK(out.good(), "{}: write failed", path);
    std::fprintf(stderr, "%lld predictions written to %s\n", static_cast<long long>(p.samples), path.c_str());
  } else {
    std::fwrite(csv.data(), 1, csv.size(), stdout);
  }
  return 0;
}

}  // namespace netsmith::cli
