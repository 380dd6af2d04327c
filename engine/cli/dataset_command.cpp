// netsmith-cli dataset create: a training dataset from a folder of images (engine/data/folder/,
// Note [Folder dataset]), with a progress bar and a summary.
#include "engine/cli/dataset_command.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <string>

#include "engine/cli/progress_bar.h"
#include "engine/core/atomic_file.h"
#include "engine/core/error.h"
#include "engine/data/folder/dataset_builder.h"

namespace netsmith::cli {

const CommandSpec kDataset{
    "dataset",
    "create SOURCE --output DIR [options]",
    "Makes a training dataset from a folder of images, one subfolder per class (dataset create SOURCE).",
    "SOURCE holds one subfolder per class, named after the class (SOURCE/cat/1.jpg, SOURCE/dog/2.png; classes\n"
    "sorted by name get labels 0, 1, ...), or train/ and val/ (or test/) folders that each hold such class\n"
    "folders; then that split is used as given. Subfolders inside a class folder are read too. PNG (any\n"
    "kind) and JPEG (baseline, progressive, EXIF-rotated) are read; hidden files, other extensions and files\n"
    "that do not decode are skipped and listed in DIR/report.txt, as are exact duplicates (same bytes: the\n"
    "first in path order is kept). A class with no usable training image stops the command.\n\n"
    "DIR receives training.csv and validation.csv (x:image,y:label), images/ (the resized PNGs), classes.txt,\n"
    "report.txt, dataset.json, and training.nsstore / validation.nsstore (the same samples packed; training\n"
    "reads them instead of the PNGs while the CSV is unchanged). DIR is built in a hidden folder beside it and\n"
    "renamed at the end: Ctrl-C or a failure leaves no DIR. The source folder is only read.\n"
    "Use it in a project: \"training\": {\"format\": \"csv\", \"csv\": \"DIR/training.csv\"}, and the same with\n"
    "validation.csv (docs/datasets.md).\n"
    "Exit status: 0 written, 1 failed, 2 bad command line, 3 stopped (Ctrl-C).",
    {{"--output", "DIR", "the folder to write (new or empty; an older dataset of this command with --overwrite)"},
     {"--size", "WxH", "image size in pixels, such as 28x28 or 224x224 (default: the most common size in SOURCE)"},
     {"--channels", "1|3", "1 (gray) or 3 (RGB) (default: 3 if any image is colour, else 1)"},
     {"--resize", "MODE", "how other aspect ratios reach the size: squash (stretch, the default), crop (fill,\n"
                          "                            then cut the centre) or pad (fit, then pad with black)"},
     {"--validation", "PERCENT", "share of each class drawn for validation, 0 to below 100 (default 20; not with\n"
                                 "                            train/ and val/ folders, whose split is used as given)"},
     {"--seed", "N", "the seed of the validation draw (default 0); the same seed draws the same split"},
     {"--overwrite", "", "replace DIR when it holds a dataset made by this command"},
     {"--threads", "N", "decoding threads (default: all cores)"}},
    1,
    2};

namespace {

std::atomic<bool> g_stopRequested{false};

extern "C" void onDatasetStop(int) {
  g_stopRequested.store(true);
  // A second Ctrl-C ends the process at once.
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

bool parseWhole(const std::string& text, unsigned long long& value) {
  if (text.empty() || text.size() > 20) return false;
  for (const char c : text)
    if (c < '0' || c > '9') return false;
  errno = 0;
  value = std::strtoull(text.c_str(), nullptr, 10);
  return errno == 0;
}

void parseSize(const std::string& text, FolderDatasetOptions& o) {
  const std::string expected =
      format("--size: expected WIDTHxHEIGHT in pixels, such as 28x28 or 224x224 (each 1 to 8192), got '{}'", text);
  const auto x = text.find_first_of("xX");
  unsigned long long w = 0, h = 0;
  const bool ok = x == std::string::npos ? parseWhole(text, w) && (h = w, true)
                                         : parseWhole(text.substr(0, x), w) && parseWhole(text.substr(x + 1), h);
  if (!ok || w < 1 || h < 1 || w > 8192 || h > 8192) throw UsageError{expected};
  o.width = static_cast<int>(w);
  o.height = static_cast<int>(h);
}

// The progress view: a redrawn bar on a terminal, a line per stage and per 10% otherwise.
class DatasetProgress {
 public:
  explicit DatasetProgress(bool interactive) : m_interactive(interactive) {}

  void operator()(const BuildProgress& p) {
    const auto now = std::chrono::steady_clock::now();
    if (m_started && p.stage == m_stage && p.done == m_lastDone && p.total == m_lastTotal) return;  // said already
    m_lastDone = p.done;
    m_lastTotal = p.total;
    if (p.stage != m_stage || !m_started) {
      endLine();
      m_stage = p.stage;
      m_started = true;
      m_stageStart = now;
      m_lastDecile = -1;
      m_lastDraw = {};
    }
    const double elapsed = std::chrono::duration<double>(now - m_stageStart).count();
    const double rate = elapsed > 0 ? static_cast<double>(p.done) / elapsed : 0;
    std::string line;
    if (p.total > 0) {
      const double frac = std::min(1.0, static_cast<double>(p.done) / static_cast<double>(p.total));
      constexpr int kWidth = 24;
      const int filled = static_cast<int>(frac * kWidth);
      const bool counted = p.stage != BuildStage::Finishing;
      line = std::string(buildStageName(p.stage)) + std::string(11 - std::string(buildStageName(p.stage)).size(), ' ') +
             "[" + std::string(filled, '#') + std::string(kWidth - filled, '-') + "]";
      if (counted) {
        line += format(" {}/{}", p.done, p.total);
        if (elapsed > 0.5 && p.done > 0) {
          line += format(" {} images/s", std::lround(rate));
          if (p.done < p.total) line += " ETA " + formatDuration((p.total - p.done) / rate);
        }
      }
      if (m_interactive) {
        // Redraw at most 10 times a second, and always at the end.
        if (p.done < p.total && now - m_lastDraw < std::chrono::milliseconds(100)) return;
        m_lastDraw = now;
        std::fprintf(stdout, "\r%-80s", line.c_str());
        m_open = true;
      } else {
        // A log: each stage's end, and the long converting stage every 10%.
        const int decile = static_cast<int>(frac * 10);
        const bool show = p.done >= p.total || (p.stage == BuildStage::Converting && decile > 0 && decile != m_lastDecile);
        if (!show) return;
        m_lastDecile = decile;
        std::fprintf(stdout, "%s\n", line.c_str());
      }
    } else {
      line = std::string(buildStageName(p.stage)) + " ...";
      if (m_interactive) {
        std::fprintf(stdout, "\r%-80s", line.c_str());
        m_open = true;
      } else {
        std::fprintf(stdout, "%s\n", line.c_str());
      }
    }
    std::fflush(stdout);
  }

  void endLine() {
    if (m_open) std::fputc('\n', stdout);
    m_open = false;
    std::fflush(stdout);
  }

 private:
  bool m_interactive;
  bool m_open = false;
  bool m_started = false;
  BuildStage m_stage = BuildStage::Scanning;
  std::chrono::steady_clock::time_point m_stageStart, m_lastDraw;
  int m_lastDecile = -1;
  int64_t m_lastDone = -1, m_lastTotal = -1;
};

void printSummary(const FolderDatasetResult& r, const ParsedArgs& args) {
  std::printf("Dataset written to %s (%s on disk) in %s, %.0f images/s\n", r.output.string().c_str(),
              humanBytes(r.bytesOnDisk).c_str(), formatDuration(r.seconds).c_str(),
              r.seconds > 0 ? static_cast<double>(r.candidates) / r.seconds : 0.0);
  std::printf("  classes:     %zu (classes.txt)\n", r.classes.size());
  std::printf("  training:    %lld images (training.csv, training.nsstore)\n", static_cast<long long>(r.trainingCount));
  if (r.layout == FolderLayout::GivenSplit)
    std::printf("  validation:  %lld images, from %s/%s\n", static_cast<long long>(r.validationCount),
                r.validationFolder.c_str(), r.validationCount ? " (validation.csv, validation.nsstore)" : "");
  else if (r.validationCount > 0)
    std::printf("  validation:  %lld images, %g%% of each class (validation.csv, validation.nsstore)\n",
                static_cast<long long>(r.validationCount), r.validationPercent);
  else
    std::printf("  validation:  none (--validation %g); no validation files\n", r.validationPercent);
  std::printf("  images:      %dx%d, %s, resize %s\n", r.width, r.height, r.channels == 1 ? "1 channel (gray)" : "3 channels (RGB)",
              resizeModeName(r.resize));
  std::printf("               size: %s%s; channels: %s%s\n", r.sizeChoice.c_str(), args.has("--size") ? " (--size)" : "",
              r.channelsChoice.c_str(), args.has("--channels") ? " (--channels)" : "");
  std::printf("  skipped:     %zu file%s%s\n", r.skipped.size(), r.skipped.size() == 1 ? "" : "s",
              r.skipped.empty() ? "" : " (all listed with the reason in report.txt)");
  for (size_t k = 0; k < r.skipped.size() && k < 5; ++k)
    std::printf("               %s: %s\n", r.skipped[k].path.c_str(), r.skipped[k].reason.c_str());
  if (r.skipped.size() > 5) std::printf("               and %zu more\n", r.skipped.size() - 5);
  std::printf("  duplicates:  %zu file%s%s\n", r.duplicates.size(), r.duplicates.size() == 1 ? "" : "s",
              r.duplicates.empty() ? "" : " with the same bytes as a file kept, left out (report.txt)");
  for (const auto& w : r.warnings) std::printf("  warning:     %s\n", w.c_str());
  if (!r.removedStale.empty())
    std::printf("  removed %zu unfinished folder%s of an interrupted run\n", r.removedStale.size(),
                r.removedStale.size() == 1 ? "" : "s");
  std::printf("\nIn a project's \"dataset\" (relative paths resolve against the project's folder):\n");
  std::printf("  \"training\": {\"format\": \"csv\", \"csv\": \"%s\"}", r.trainingCsv.string().c_str());
  if (!r.validationCsv.empty())
    std::printf(",\n  \"validation\": {\"format\": \"csv\", \"csv\": \"%s\"}\n", r.validationCsv.string().c_str());
  else
    std::printf("\n");
  std::printf("with \"scale\": 0.00392156862745098 (1/255) to give the network inputs from 0 to 1.\n");
}

}  // namespace

int runDataset(const ParsedArgs& args) {
  if (args.positional[0] != "create")
    throw UsageError{format("unknown dataset command '{}' (dataset commands: create; usage: netsmith-cli dataset {})",
                            args.positional[0], kDataset.usage)};
  if (args.positional.size() < 2)
    throw UsageError{format("'dataset create' needs the SOURCE folder of images (usage: netsmith-cli dataset {})",
                            kDataset.usage)};
  FolderDatasetOptions o;
  o.source = args.positional[1];
  if (!args.has("--output") || args.value("--output").empty())
    throw UsageError{"--output: name the folder to write the dataset to (--output DIR)"};
  o.output = args.value("--output");
  if (args.has("--size")) parseSize(args.value("--size"), o);
  if (args.has("--channels")) {
    const std::string c = args.value("--channels");
    if (c != "1" && c != "3") throw UsageError{format("--channels: expected 1 (gray) or 3 (RGB), got '{}'", c)};
    o.channels = c == "1" ? 1 : 3;
  }
  if (args.has("--resize")) {
    const auto mode = parseResizeMode(args.value("--resize"));
    if (!mode) throw UsageError{format("--resize: expected squash, crop or pad, got '{}'", args.value("--resize"))};
    o.resize = *mode;
  }
  if (args.has("--validation")) {
    std::string v = args.value("--validation");
    if (!v.empty() && v.back() == '%') v.pop_back();
    size_t used = 0;
    double p = -1;
    try {
      p = std::stod(v, &used);
    } catch (...) {
      used = 0;
    }
    if (v.empty() || used != v.size() || !std::isfinite(p) || p < 0 || p >= 100)
      throw UsageError{format("--validation: expected a percentage from 0 up to (not including) 100, such as 20, got '{}'",
                              args.value("--validation"))};
    o.validationPercent = p;
  }
  if (args.has("--seed")) {
    unsigned long long seed = 0;
    if (!parseWhole(args.value("--seed"), seed))
      throw UsageError{format("--seed: expected a whole number, 0 or more, got '{}'", args.value("--seed"))};
    o.seed = seed;
  }
  if (auto t = args.positiveInteger("--threads")) o.threads = static_cast<int>(std::min<long long>(*t, 1024));
  o.overwrite = args.has("--overwrite");

  DatasetProgress view(isatty(STDOUT_FILENO));
  FolderDatasetCallbacks callbacks;
  callbacks.progress = [&view](const BuildProgress& p) { view(p); };
  callbacks.cancelled = [] { return g_stopRequested.load(); };
  std::signal(SIGINT, onDatasetStop);
  std::signal(SIGTERM, onDatasetStop);
  FolderDatasetResult result;
  try {
    result = buildFolderDataset(o, callbacks);
  } catch (...) {
    view.endLine();
    throw;
  }
  view.endLine();
  if (result.cancelled) {
    std::fprintf(stderr, "netsmith-cli dataset: stopped; nothing was written (%s is as it was)\n",
                 result.output.string().c_str());
    return 3;
  }
  printSummary(result, args);
  return 0;
}

}  // namespace netsmith::cli
