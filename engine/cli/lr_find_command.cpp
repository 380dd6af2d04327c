#include "engine/cli/lr_find_command.h"

#include <cmath>
#include <cstdio>

#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/protocol/json_fields.h"
#include "engine/study/lr_range_test.h"
#include "engine/train/parallel_plan.h"

namespace netsmith::cli {

const CommandSpec kLrFind{
    "lr-find",
    "PROJECT.nsproj [--min-lr R] [--max-lr R] [--iterations N] [--devices LIST] [--run-dir DIR] [--json]",
    "Suggests a learning rate: trains briefly while the rate grows from --min-lr to --max-lr.",
    "The learning-rate range test (Leslie Smith; fastai's lr_find): N iterations whose rate grows\n"
    "exponentially, each iteration's training loss recorded, until the loss explodes. The suggested\n"
    "rate is where the smoothed loss falls fastest; the rate of the smallest loss is given beside it.\n"
    "Rates are the project's own (its optimizer's learning rate, before lr_policy scales it for\n"
    "several devices). The test trains into <project>.runs/<stamp>-lr-find/ (lr_find.json: the curve).\n"
    "Exit status: 0 a rate suggested, 1 the training failed or too few points for a suggestion, 2 bad\n"
    "command line, 3 stopped.",
    {{"--min-lr", "R", "the first rate (default 1e-7)"},
     {"--max-lr", "R", "the last rate (default 10)"},
     {"--iterations", "N", "iterations from the first rate to the last (default 100)"},
     {"--devices", "LIST", "the devices to train on (default: parallel.devices)"},
     {"--run-dir", "DIR", "the test's run folder (default <project>.runs/<stamp>-lr-find)"},
     {"--json", "", "print the curve and the suggestion as JSON"}},
    1,
    1};

namespace {

double positiveRate(const ParsedArgs& args, const char* option, double fallback) {
  if (!args.has(option)) return fallback;
  const std::string text = args.value(option);
  const LeadingNumber n = leadingNumber(text);
  if (!n.whole(text) || !(n.value > 0))
    throw UsageError{format("{}: expected a positive number such as 1e-6, got '{}'", option, text)};
  return n.value;
}

}  // namespace

int runLrFind(const ParsedArgs& args) {
  study::RangeTestOptions options;
  options.projectPath = args.positional[0];
  options.low = positiveRate(args, "--min-lr", options.low);
  options.high = positiveRate(args, "--max-lr", options.high);
  if (options.low >= options.high)
    throw UsageError{format("--min-lr {} must be below --max-lr {}", options.low, options.high)};
  if (auto n = args.positiveInteger("--iterations")) {
    if (*n < 10) throw UsageError{"--iterations: expected at least 10"};
    options.iterations = *n;
  }
  if (args.has("--devices")) {
    try {
      options.devices = parseDeviceList(args.value("--devices"));
    } catch (const Error& e) {
      throw UsageError{e.what()};
    }
  }
  options.runDir = args.value("--run-dir");
  const bool json = args.has("--json");
  if (!json) {
    std::printf("Learning-rate range test of %s: %g to %g over %lld iterations\n", options.projectPath.c_str(), options.low,
                options.high, static_cast<long long>(options.iterations));
    std::fflush(stdout);
  }
  study::RangeTestResult result;
  try {
    result = study::runRangeTest(options);
  } catch (const Error& e) {
    std::fprintf(stderr, "netsmith-cli lr-find: %s\n", e.what());
    return 1;
  }
  if (json) {
    std::printf("%s\n", protocol::jsonText(result.toJson(), 2).c_str());
  } else {
    std::printf("%-10s %-12s %-12s %s\n", "iteration", "rate", "loss", "smoothed loss");
    const size_t every = std::max<size_t>(1, result.points.size() / 20);
    for (size_t i = 0; i < result.points.size(); ++i)
      if (i % every == 0 || i + 1 == result.points.size()) {
        const auto& p = result.points[i];
        std::printf("%-10lld %-12.3g %-12.4g %.4g\n", static_cast<long long>(p.iteration), p.lr, p.loss, p.smoothed);
      }
    std::printf("Ended: %s\n", result.stoppedBecause.c_str());
    if (result.minimumLossLr) std::printf("Smallest loss at rate %.3g\n", *result.minimumLossLr);
    if (result.suggestedLr) std::printf("Suggested learning rate: %.3g (the loss falls fastest there)\n", *result.suggestedLr);
    else std::printf("No suggestion: too few iterations before the loss rose (try a lower --min-lr)\n");
    std::printf("Curve: %s/lr_find.json\n", result.runDir.c_str());
  }
  if (result.stoppedBecause == "stopped") return 3;
  return result.suggestedLr ? 0 : 1;
}

}  // namespace netsmith::cli
