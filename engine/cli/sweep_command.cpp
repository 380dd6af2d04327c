#include "engine/protocol/json_fields.h"
#include "engine/cli/sweep_command.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/core/error.h"
#include "engine/core/text_files.h"
#include "engine/project/project_io.h"
#include "engine/train/parallel_plan.h"
#include "engine/train/trainer.h"

namespace fs = std::filesystem;

namespace netsmith::cli {

const CommandSpec kSweep{
    "sweep",
    "PROJECT.nsproj --set KEY=V1,V2,... [--set ...] [--queue OTHER.nsproj ...] [options]",
    "Trains one project several times with other settings, one training per device at a time.",
    "Each --set gives a project key as a JSON path (optimizer.alpha, config.batch_size, ...) and its\n"
    "values; several --set make every combination. --queue adds other projects, each trained once with\n"
    "its own settings after the combinations. The trainings wait in a queue; each device takes\n"
    "the next one when it is free, and each gets its own run folder in <project>.runs/, which the\n"
    "console's run history overlays. A summary table (or --json) ends the sweep.\n"
    "Exit status: 0 all completed, 1 some failed, 2 bad command line, 3 stopped.",
    {{"--set", "KEY=V1,V2,...", "a project key and the values to try (repeatable)", true},
     {"--queue", "PROJECT.nsproj", "another project to train once, with its own settings (repeatable)", true},
     {"--devices", "LIST", "the devices to spread the trainings over (default: parallel.devices)"},
     {"--max-epoch", "N", "override config.max_epoch"},
     {"--early-stopping", "N", "override config.early_stopping (patience in validations; 0: off)"},
     {"--train-samples", "N", "train on the first N training samples only"},
     {"--validation-samples", "N", "validate on the first N validation samples only"},
     {"--json", "", "print the summary as JSON"}},
    1,
    1};

namespace {

struct Setting {
  std::string path;  // "optimizer.alpha"
  Json value;
  std::string text;  // as the user wrote it
};

struct Job {
  std::vector<Setting> settings;
  std::string label;  // "alpha=0.003", or a queued project's file name without .nsproj
  const Project* source = nullptr;  // the project it trains: PROJECT, or one given with --queue
  fs::path runs;                    // its <project>.runs folder
  std::string projectFile;
  std::string runDir;
  TrainResult result;
  std::string device;
  std::optional<double> finalError;
  std::optional<double> bestError;
  int64_t bestEpoch = 0;
  double seconds = 0;
};

// "optimizer.alpha=0.001,0.003" -> the key and its values (JSON when they parse, else strings).
std::vector<Setting> parseSet(const std::string& spec) {
  const auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    throw UsageError{format("--set: expected KEY=V1,V2,... such as optimizer.alpha=0.001,0.003, got '{}'", spec)};
  const std::string key = spec.substr(0, eq);
  std::vector<Setting> out;
  size_t start = eq + 1;
  while (start <= spec.size()) {
    const size_t comma = std::min(spec.find(',', start), spec.size());
    const std::string text = spec.substr(start, comma - start);
    if (text.empty()) throw UsageError{format("--set {}: an empty value in '{}'", key, spec)};
    Json value = Json::parse(text, nullptr, false);
    if (value.is_discarded()) value = text;
    out.push_back({key, value, text});
    start = comma + 1;
  }
  return out;
}

void setAtPath(Json& j, const std::string& path, const Json& value) {
  Json* node = &j;
  size_t start = 0;
  for (;;) {
    const size_t dot = path.find('.', start);
    const std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (dot == std::string::npos) {
      (*node)[part] = value;
      return;
    }
    Json& next = (*node)[part];
    if (!next.is_object()) throw UsageError{format("--set {}: '{}' is not a section of the project", path, part)};
    node = &next;
    start = dot + 1;
  }
}

std::string lastPart(const std::string& path) { return path.substr(path.rfind('.') + 1); }

// Run folder names: letters, digits and . - = only.
std::string folderSafe(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '=') c = '_';
  return s;
}

// Collects what the summary needs from one training's events.
class SweepSink final : public EventSink {
 public:
  explicit SweepSink(Job& job) : m_job(job) {}
  // Epoch events, read with engine/protocol's reader (as the GUI's sweep table reads events.jsonl).
  void publish(const Json& json) override {
    const auto name = json.find("event");
    if (name == json.end() || *name != protocol::EpochEvent::kName) return;
    const protocol::EpochEvent e = protocol::EpochEvent::fromJson(json);
    if (!e.validationError || !std::isfinite(*e.validationError)) return;
    const double err = *e.validationError;
    m_job.finalError = err;
    if (!m_job.bestError || err < *m_job.bestError) {
      m_job.bestError = err;
      m_job.bestEpoch = e.epoch;
    }
  }

 private:
  Job& m_job;
};

std::string percentOrDash(const std::optional<double>& v) { return v ? format("{}%", std::round(*v * 10000) / 100) : "-"; }

}  // namespace

int runSweep(const ParsedArgs& args) {
  const std::string projectPath = args.positional[0];
  if (!args.has("--set") && !args.has("--queue"))
    throw UsageError{"give at least one --set KEY=V1,V2,... (or --queue other projects)"};
  std::vector<std::vector<Setting>> axes;
  if (args.has("--set")) {
    const std::string all = args.value("--set");
    size_t start = 0;
    while (start <= all.size()) {
      const size_t nl = std::min(all.find('\n', start), all.size());
      axes.push_back(parseSet(all.substr(start, nl - start)));
      start = nl + 1;
    }
  }
  const Project base = loadProject(projectPath);
  // Loaded before anything is made, so a wrong --queue path is refused like a wrong --set.
  std::vector<Project> queued;
  if (args.has("--queue")) {
    const std::string all = args.value("--queue");
    size_t start = 0;
    while (start <= all.size()) {
      const size_t nl = std::min(all.find('\n', start), all.size());
      try {
        queued.push_back(loadProject(all.substr(start, nl - start)));
      } catch (const Error& e) {
        throw UsageError{format("--queue {}", e.what())};
      }
      start = nl + 1;
    }
  }
  std::vector<std::string> devices = base.parallel.devices;
  if (args.has("--devices")) {
    try {
      devices = parseDeviceList(args.value("--devices"));
    } catch (const Error& e) {
      throw UsageError{e.what()};
    }
  }

  // Every combination, first axis slowest; each variant is checked before anything trains.
  const fs::path project(base.path);
  const fs::path runs = project.parent_path() / (project.stem().string() + ".runs");
  fs::create_directories(runs);
  // The sweep's folder is claimed with one mkdir: two sweeps of a project started in the same
  // second would otherwise share <stamp>-sweep/ (and overwrite each other's summary and variant
  // projects). The loser waits for the next second: the run history reads the stamp's format.
  std::string stamp = timestampFolderName();
  for (int tries = 0; !fs::create_directory(runs / (stamp + "-sweep")); ++tries) {
    NS_CHECK(tries < 50, "{}: cannot claim a sweep folder: every second's name is taken", runs.string());
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stamp = timestampFolderName();
  }
  const fs::path variants = runs / (stamp + "-sweep");
  const auto runsOf = [](const Project& p) {
    const fs::path file(p.path);
    return file.parent_path() / (file.stem().string() + ".runs");
  };
  std::vector<Job> jobs(1);
  jobs[0].source = &base;
  jobs[0].runs = runs;
  if (axes.empty()) jobs[0].label = project.stem().string();
  for (const auto& axis : axes) {
    std::vector<Job> next;
    for (const Job& j : jobs)
      for (const Setting& s : axis) {
        Job k = j;
        k.settings.push_back(s);
        k.label += (k.label.empty() ? "" : ",") + lastPart(s.path) + "=" + s.text;
        next.push_back(k);
      }
    jobs = next;
  }
  for (const Project& p : queued) {
    Job job;
    job.source = &p;
    job.runs = runsOf(p);
    job.label = fs::path(p.path).stem().string();
    jobs.push_back(job);
  }
  const int cores = availableCores();
  const int slots = static_cast<int>(std::min(devices.size(), jobs.size()));
  for (size_t i = 0; i < jobs.size(); ++i) {
    Job& job = jobs[i];
    Json j = projectToPortableJson(*job.source);
    for (const Setting& s : job.settings) setAtPath(j, s.path, s.value);
    // One device per training; the trainings running at once share the cores.
    if (job.source->parallel.threadsPerDevice == 0) j["parallel"]["threads_per_device"] = std::max(1, cores / slots);
    j["parallel"].erase("worker_load");
    job.projectFile = (variants / format("{}-{}.nsproj", i + 1, folderSafe(job.label))).string();
    std::ofstream(job.projectFile) << protocol::jsonText(j, 2) << "\n";
    try {
      loadProject(job.projectFile);
    } catch (const Error& e) {
      throw UsageError{format("{} {}: {}", job.settings.empty() ? "--queue" : "--set", job.label, e.what())};
    }
    job.runDir = (job.runs / format("{}-sweep{}-{}", stamp, i + 1, folderSafe(job.label))).string();
  }

  const bool json = args.has("--json");
  if (!json)
    std::printf("Sweep of '%s': %zu trainings on %s\n", base.name.c_str(), jobs.size(), [&] {
      std::string s;
      for (const auto& d : devices) s += (s.empty() ? "" : ", ") + d;
      return s;
    }().c_str());
  std::mutex mutex;
  size_t nextJob = 0;
  RunControl control;
  auto slot = [&](const std::string& device) {
    for (;;) {
      Job* job = nullptr;
      size_t index = 0;
      {
        std::lock_guard lock(mutex);
        if (nextJob >= jobs.size() || control.stopRequested()) return;
        index = nextJob++;
        job = &jobs[index];
        job->device = device;
        if (!json) std::printf("[%zu/%zu] %s on %s: started\n", index + 1, jobs.size(), job->label.c_str(), device.c_str());
        std::fflush(stdout);
      }
      TrainOptions options;
      options.projectPath = job->projectFile;
      options.runDir = job->runDir;
      options.devices = {device};
      if (auto n = args.positiveInteger("--max-epoch")) options.maxEpoch = *n;
      if (auto n = args.nonNegativeInteger("--early-stopping")) options.earlyStopping = *n;
      if (auto n = args.positiveInteger("--train-samples")) options.trainSamples = *n;
      if (auto n = args.positiveInteger("--validation-samples")) options.validationSamples = *n;
      EventBus bus;
      SweepSink sink(*job);
      bus.add(&sink);
      options.events = &bus;
      options.control = &control;
      const auto start = std::chrono::steady_clock::now();
      job->result = runTraining(options);
      job->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::lock_guard lock(mutex);
      if (!json)
        std::printf("[%zu/%zu] %s on %s: %s%s, validation error %s, %.0f s\n", index + 1, jobs.size(), job->label.c_str(),
                    device.c_str(), job->result.status.c_str(),
                    job->result.status == "failed" ? (" (" + job->result.message + ")").c_str() : "",
                    percentOrDash(job->finalError).c_str(), job->seconds);
      std::fflush(stdout);
    }
  };
  std::vector<std::thread> threads;
  for (int s = 0; s < slots; ++s) threads.emplace_back(slot, devices[static_cast<size_t>(s)]);
  for (auto& t : threads) t.join();

  Json summary = Json::array();
  bool failed = false, stopped = false;
  for (const Job& job : jobs) {
    Json settings = Json::object();
    for (const Setting& s : job.settings) settings[s.path] = s.value;
    const std::string status = job.result.status.empty() ? "not run" : job.result.status;
    failed = failed || status == "failed";
    stopped = stopped || status == "stopped" || status == "not run";
    summary.push_back({{"settings", settings},
                       {"label", job.label},
                       {"project", job.source->path},
                       {"device", job.device},
                       {"status", status},
                       {"final_validation_error", job.finalError ? Json(*job.finalError) : Json(nullptr)},
                       {"best_validation_error", job.bestError ? Json(*job.bestError) : Json(nullptr)},
                       {"best_epoch", job.bestEpoch},
                       {"seconds", job.seconds},
                       {"run", job.runDir},
                       {"parameters_sha256", job.result.parametersSha256},
                       {"message", job.result.message}});
  }
  std::ofstream(variants / "summary.json") << protocol::jsonText(summary, 2) << "\n";
  if (json) {
    std::printf("%s\n", protocol::jsonText(summary, 2).c_str());
  } else {
    std::printf("\n%-4s %-28s %-7s %-10s %-12s %-18s %-7s %s\n", "#", "settings", "device", "status", "final error",
                "best error (epoch)", "seconds", "run folder");
    for (size_t i = 0; i < jobs.size(); ++i) {
      const Json& r = summary[i];
      std::printf("%-4zu %-28s %-7s %-10s %-12s %-18s %-7.0f %s\n", i + 1, jobs[i].label.c_str(), jobs[i].device.c_str(),
                  r["status"].get<std::string>().c_str(), percentOrDash(jobs[i].finalError).c_str(),
                  (percentOrDash(jobs[i].bestError) + format(" ({})", jobs[i].bestEpoch)).c_str(), jobs[i].seconds,
                  fs::path(jobs[i].runDir).filename().c_str());
    }
    std::printf("Summary: %s\n", (variants / "summary.json").c_str());
  }
  return failed ? 1 : stopped ? 3 : 0;
}

}  // namespace netsmith::cli
