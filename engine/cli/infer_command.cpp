// netsmith-cli infer RUN --input CSV|IMAGE...: predictions of a trained run as CSV, or with --json
// one result per input (its likelihoods, or why that input could not be used).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

#include "engine/cli/eval_commands.h"
#include "engine/core/error.h"
#include "engine/data/npy.h"
#include "engine/eval/evaluation.h"
#include "engine/eval/inference_input.h"
#include "engine/eval/non_finite_inputs.h"
#include "engine/eval/output_head.h"
#include "engine/eval/run_model.h"

namespace fs = std::filesystem;

namespace netsmith::cli {

const CommandSpec kInfer{
    "infer",
    "RUN_FOLDER|PROJECT.nsproj --input FILE.csv|FILE.npy|IMAGE [IMAGE ...] [--output FILE.csv|FILE.npy] [--json]",
    "Runs a trained run's network on PNG or JPEG images, a dataset CSV or a NumPy array and writes the predictions.",
    "A project file instead of a run folder runs with the parameters its config.initial_parameters names\n"
    "(an imported model: netsmith-cli import), or a run folder's parameters.nsparams (else best.nsparams)\n"
    "when it names a run folder, as training reads it. Inputs are scaled by the project's dataset.scale, as in training; images are not resized. A NumPy\n"
    ".npy array of shape (N, C, H, W) (or (N, D)) is a batch of inputs: float arrays go to the network\n"
    "as they are, integer arrays (uint8 images) are scaled like images. --output FILE.npy writes a\n"
    "float32 array (N, outputs) of what the CSV's likelihood_ (or y_) columns hold. A CSV\n"
    "follows the dataset format (header x:image, image paths relative to the CSV); its y column is\n"
    "optional. Output columns: input,class,class_name,likelihood_0,... for a classifier (class_name from\n"
    "the run's classes.txt, or the class number when the classes are unnamed; likelihoods after the\n"
    "softmax or sigmoid the loss implies), input,y_0,... otherwise. With --json, one JSON object with a\n"
    "result per input: an image that cannot be read or does not fit the network's Input gets its own\n"
    "error and the others are still predicted. Exit status: 0 done (with --json: at least one input\n"
    "predicted), 1 failed, 2 bad command line.",
    {{"--input", "FILE", "a dataset CSV, a NumPy .npy array, or a PNG or JPEG file (more images may follow)"},
     {"--output", "FILE", "write the CSV (or, for FILE.npy, a float32 NumPy array) here instead of standard output"},
     {"--parameters", "WHICH", "last (default) or best"},
     {"--devices", "LIST", "run on these devices instead of the run's"},
     {"--json", "", "print one JSON object with a result (or an error) per input"}},
    1,
    1 << 20};

namespace {
// Note [Infer JSON]: one result per input, in the order given, so a viewer (the GUI's Inference tab)
// shows every image it was handed: {"input", "class", "class_name", "likelihoods"} for a classifier
// (likelihoods of every class: a one-output binary classifier gives [1 - p, p]), {"input",
// "outputs"} otherwise, {"input", "error"} for an image that cannot be read or whose shape does not
// fit the Input layer. The images that can be used are predicted together in one dataset.
int inferJson(const ParsedArgs& args, const std::vector<std::string>& inputs, bool csvInput, bool npyInput) {
  const auto start = std::chrono::steady_clock::now();
  const RunModel model(args.positional[0], parametersOption(args));
  const double scale = model.project().dataset.scale;
  const GraphNode& input = model.graph().input();
  const Shape& inputShape = input.outputShape;
  Json results = Json::array();
  std::vector<size_t> predicted;  // index in `results` of each sample of `data`
  Dataset data;
  if (csvInput || npyInput) {
    std::vector<std::string> names;
    data = npyInput ? loadInferenceNpy(inputs[0], scale, inputShape, names) : loadInferenceCsv(inputs[0], scale, names);
    model.checkFits(data);
    for (const auto& n : names) {
      predicted.push_back(results.size());
      results.push_back({{"input", n}});
    }
  } else {
    data.source = inputs.front();
    data.sampleShape = inputShape;
    // Note [Inference resize]: an image Input takes any image, fitted as the training data was.
    const std::optional<ImageFit> fit = inferenceImageFit(model.project(), inputShape);
    for (const auto& path : inputs) {
      InferenceImage image = fit ? loadFittedInferenceImage(path, scale, *fit) : loadInferenceImage(path, scale);
      if (image.error.empty() && numel(image.shape) != numel(inputShape))
        image.error = format("{}: the image is {} ({}, {} x {} pixels) but the run's Input '{}' expects {}", path,
                             shapeToString(image.shape), image.colour, image.shape[2], image.shape[1], input.id,
                             shapeToString(inputShape));
      if (!image.error.empty()) {
        results.push_back({{"input", path}, {"error", image.error}});
        continue;
      }
      predicted.push_back(results.size());
      results.push_back({{"input", path}, {"shape", image.shape}});
      if (!image.prepared.empty()) results.back()["prepared"] = image.prepared;
      data.features.insert(data.features.end(), image.pixels.begin(), image.pixels.end());
    }
    data.size = static_cast<int64_t>(predicted.size());
    data.labels.assign(predicted.size(), 0.0f);
  }
  const OutputHead head = outputHeadOf(model.graph());
  const ClassReading reading = classReadingOf(model.graph());
  std::vector<std::string> devices;
  // A sample with NaN or infinite inputs gets an error instead of a prediction.
  std::set<int64_t> nonFinite;
  for (const NonFiniteSample& bad : samplesWithNonFiniteInputs(data)) {
    results[predicted[static_cast<size_t>(bad.index)]]["error"] = nonFiniteInputMessage(bad, numel(data.sampleShape));
    nonFinite.insert(bad.index);
  }
  if (data.size > 0) {
    const Predictions p = model.predict(data, devicesOption(args));
    devices = p.devices;
    if (!p.deviceNote.empty()) std::fprintf(stderr, "netsmith-cli infer: %s\n", p.deviceNote.c_str());
    std::vector<float> row(static_cast<size_t>(p.width));
    for (int64_t i = 0; i < p.samples; ++i) {
      if (nonFinite.count(i)) continue;
      applyOutputHead(head, {p.row(i), row.size()}, row);
      Json& r = results[predicted[static_cast<size_t>(i)]];
      if (reading.classification) {
        const int64_t c = predictedClass(reading, row);
        Json likelihoods = Json::array();
        for (int64_t k = 0; k < reading.classes; ++k) likelihoods.push_back(classLikelihood(reading, row, k));
        r["class"] = c;
        r["class_name"] = classNameOf(model.classNames(), c);
        r["likelihoods"] = std::move(likelihoods);
      } else {
        r["outputs"] = row;
      }
    }
  }
  Json classNames = Json::array();
  if (reading.classification)
    for (int64_t k = 0; k < reading.classes; ++k) classNames.push_back(classNameOf(model.classNames(), k));
  const Json out = {
      {"run", model.runDir()},
      {"project", model.project().name},
      {"parameters", {{"which", parametersOption(args)}, {"path", model.parameters().path}, {"meta", model.parameters().data.meta}}},
      {"devices", devices},
      {"input_shape", inputShape},
      {"scale", scale},
      {"output_head", outputHeadName(head)},
      {"classification", reading.classification},
      {"binary", reading.binary},
      {"classes", reading.classes},
      {"class_names", classNames},
      {"class_names_file", model.classNamesFile().empty() ? Json(nullptr) : Json(model.classNamesFile())},
      {"predicted", data.size - static_cast<int64_t>(nonFinite.size())},
      {"results", results},
      {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()}};
  std::printf("%s\n", out.dump(-1, ' ', false, Json::error_handler_t::replace).c_str());
  return data.size > static_cast<int64_t>(nonFinite.size()) ? 0 : 1;
}
}  // namespace

int runInfer(const ParsedArgs& args) {
  if (!args.has("--input")) throw UsageError{"'infer' needs --input FILE.csv or --input IMAGE.png [IMAGE.png ...]"};
  std::vector<std::string> inputs{args.value("--input")};
  inputs.insert(inputs.end(), args.positional.begin() + 1, args.positional.end());
  const bool csvInput = fs::path(inputs[0]).extension() == ".csv";
  const bool npyInput = fs::path(inputs[0]).extension() == ".npy";
  if ((csvInput || npyInput) && inputs.size() > 1)
    throw UsageError{"--input: give one CSV or .npy file, or image files only"};
  const bool npyOutput = args.has("--output") && fs::path(args.value("--output")).extension() == ".npy";
  if (args.has("--json")) {
    if (args.has("--output")) throw UsageError{"--json prints to standard output: leave out --output"};
    try {
      return inferJson(args, inputs, csvInput, npyInput);
    } catch (const Error& e) {
      std::printf("%s\n", Json{{"error", e.what()}}.dump(-1, ' ', false, Json::error_handler_t::replace).c_str());
      throw;
    }
  }
  const RunModel model(args.positional[0], parametersOption(args));
  const double scale = model.project().dataset.scale;
  std::vector<std::string> names;
  Dataset data;
  if (npyInput) {
    data = loadInferenceNpy(inputs[0], scale, model.graph().input().outputShape, names);
  } else if (csvInput) {
    data = loadInferenceCsv(inputs[0], scale, names);
  } else {
    std::vector<std::string> prepared;
    data = loadImageFiles(inputs, scale, inferenceImageFit(model.project(), model.graph().input().outputShape), prepared);
    names = inputs;
    for (const std::string& line : prepared) std::fprintf(stderr, "netsmith-cli infer: %s\n", line.c_str());
  }
  const Predictions p = model.predict(data, devicesOption(args));
  if (!p.deviceNote.empty()) std::fprintf(stderr, "netsmith-cli infer: %s\n", p.deviceNote.c_str());
  const OutputHead head = outputHeadOf(model.graph());
  const ClassReading reading = classReadingOf(model.graph());
  // A sample with NaN or infinite inputs gets no prediction: NaN rows in .npy, empty cells in CSV.
  std::set<int64_t> nonFinite;
  for (const NonFiniteSample& bad : samplesWithNonFiniteInputs(data)) {
    nonFinite.insert(bad.index);
    const std::string name = bad.index < static_cast<int64_t>(names.size()) ? names[static_cast<size_t>(bad.index)]
                                                                             : std::to_string(bad.index);
    std::fprintf(stderr, "netsmith-cli infer: %s: %s\n", name.c_str(),
                 nonFiniteInputMessage(bad, numel(data.sampleShape)).c_str());
  }
  if (npyOutput) {
    std::vector<float> values(static_cast<size_t>(p.samples * p.width));
    for (int64_t i = 0; i < p.samples; ++i) {
      const auto out = std::span<float>(values).subspan(static_cast<size_t>(i * p.width), static_cast<size_t>(p.width));
      if (nonFinite.count(i)) std::fill(out.begin(), out.end(), std::numeric_limits<float>::quiet_NaN());
      else applyOutputHead(head, {p.row(i), static_cast<size_t>(p.width)}, out);
    }
    const std::string path = args.value("--output");
    writeNpy(path, std::vector<int64_t>{p.samples, p.width}, values);
    std::fprintf(stderr, "%lld predictions written to %s (float32, %lld x %lld)\n", static_cast<long long>(p.samples),
                 path.c_str(), static_cast<long long>(p.samples), static_cast<long long>(p.width));
    return 0;
  }
  // class_name is always there for a classifier (the number when unnamed), so the columns do not
  // depend on whether the run's classes have names (Note [Run class names]).
  std::string csv = reading.classification ? "input,class,class_name" : "input";
  for (int64_t c = 0; c < p.width; ++c) csv += (reading.classification ? ",likelihood_" : ",y_") + std::to_string(c);
  csv += "\n";
  std::vector<float> row(static_cast<size_t>(p.width));
  for (int64_t i = 0; i < p.samples; ++i) {
    csv += csvCell(i < static_cast<int64_t>(names.size()) ? names[static_cast<size_t>(i)] : std::to_string(i));
    if (nonFinite.count(i)) {
      csv += std::string(static_cast<size_t>(p.width + (reading.classification ? 2 : 0)), ',') + "\n";
      continue;
    }
    applyOutputHead(head, {p.row(i), row.size()}, row);
    if (reading.classification) {
      const int64_t c = predictedClass(reading, row);
      csv += "," + std::to_string(c) + "," + csvCell(classNameOf(model.classNames(), c));
    }
    for (float v : row) csv += "," + nineDigits(v);
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
