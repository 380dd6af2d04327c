// netsmith-cli: train, validate, dataset, diff, ops, devices. The engine's command line; the GUI drives the
// same `train --events -` (DESIGN.md §7).
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <iostream>
#include <map>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "engine/protocol/json_fields.h"
#include "engine/cli/args.h"
#include "engine/cli/dataset_command.h"
#include "engine/cli/diff_command.h"
#include "engine/cli/eval_commands.h"
#include "engine/cli/import_command.h"
#include "engine/cli/progress_bar.h"
#include "engine/cli/project_command.h"
#include "engine/cli/lr_find_command.h"
#include "engine/cli/sweep_command.h"
#include "engine/devices/device_factory.h"
#include "engine/comm/mpi_job.h"
#include "engine/core/error.h"
#include "engine/core/utf8.h"
#include "engine/core/write_faults.h"
#include "engine/monitor/devices.h"
#include "engine/op_interface/op_registry.h"
#include "engine/project/graph.h"
#include "engine/project/project_io.h"
#include "engine/train/profiler.h"
#include "engine/train/trainer.h"

namespace netsmith::cli {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitStopped = 3;

const CommandSpec kTrain{
    "train",
    "PROJECT.nsproj [options] | --resume RUN_FOLDER [options]",
    "Trains a project, showing a progress bar or (with --events -) writing a JSON events stream.",
    "The run folder (<project>.runs/<YYYYMMDD-HHMMSS>/) holds the project snapshot, run.json (the run's id\n"
    "and settings), events.jsonl, learning_curve.csv, checkpoints/ and parameters.nsparams. It belongs to\n"
    "one run: a new run refuses a folder that holds another run, and one process at a time may use it.\n\n"
    "Control: Ctrl-C (SIGINT) or SIGTERM, or a line 'stop' on standard input, stops within one iteration\n"
    "and writes a checkpoint; 'pause' and 'resume' lines pause and continue. A stopped or killed run\n"
    "continues with --resume RUN_FOLDER from its newest valid checkpoint; a resume refuses a project.nsproj\n"
    "edited since the run started (--accept-edited-settings continues with the edit, recorded in run.json).\n"
    "--resume with --devices continues on other devices: they share the run's logical batch, and the learning\n"
    "rate, schedule and sample order stay as they were (a line and the started event say what changed).\n"
    "Exit status: 0 completed, 1 failed, 2 bad command line, 3 stopped.",
    {{"--events", "FILE", "also write the events stream (JSON lines) to FILE; '-' writes it to standard output\n"
                          "                            instead of the progress bar"},
     {"--resume", "RUN_FOLDER", "continue a stopped or interrupted run from its newest valid checkpoint"},
     {"--run-dir", "DIR", "put the run folder here instead of next to the project (a new or empty folder)"},
     {"--accept-edited-settings", "", "with --resume: continue although the run folder's project.nsproj was edited\n"
                                      "                            since the run started (the edit is recorded in run.json)"},
     {"--max-epoch", "N", "override config.max_epoch"},
     {"--early-stopping", "N", "override config.early_stopping: stop when the validation error has not improved for N\n"
                               "                            validations, keeping the best epoch's parameters; 0: off"},
     {"--train-samples", "N", "train on the first N training samples only (quick checks)"},
     {"--validation-samples", "N", "validate on the first N validation samples only"},
     {"--devices", "LIST", "train on these devices (comma-separated, e.g. cpu:0,cpu:1) instead of parallel.devices;\n"
                           "                            with --resume: continue on them, keeping the run's logical batch"},
     {"--dry-run", "", "print the training plan (devices, logical batch, learning rate, intervals, warnings)\n"
                       "                            and exit without training"},
     {"--json", "", "with --dry-run: print the plan as one JSON object"},
     {"--profile", "", "time every layer: after training, a table of forward, backward and optimizer time per\n"
                       "                            layer type (on standard error with --events -), profile.json in the run\n"
                       "                            folder and a `profile` event; the first 5 iterations are warm-up"},
     {"--quiet", "", "no progress bar; only errors and a last line: status, parameters_sha256, run folder"}},
    0,
    1};

const CommandSpec kValidate{"validate",
                            "PROJECT.nsproj [--json]",
                            "Checks a project file and its network without training.",
                            "Prints every problem with its JSON path, or each layer's output shape and parameter count.\n"
                            "Exit status: 0 valid, 1 problems found, 2 bad command line.",
                            {{"--json", "", "print the result as JSON"}},
                            1,
                            1};

const CommandSpec kOps{"ops",
                       "[--json]",
                       "Lists every layer type of the op registry with its category, ports and parameters.",
                       "",
                       {{"--json", "", "print the registry as JSON (what the GUI palette reads)"}},
                       0,
                       0};

const CommandSpec kDevices{"devices",
                           "[--json]",
                           "Lists the devices training can use: CPU workers and every CUDA GPU the NVIDIA driver reports.",
                           "",
                           {{"--json", "", "print the devices as JSON"}},
                           0,
                           0};

const std::vector<const CommandSpec*> kCommands{&kTrain, &kSweep, &kLrFind, &kValidate, &kEvaluate, &kInfer, &kExport, &kImport, &kDataset, &kProject, &kDiff, &kOps, &kDevices};

std::string mainHelp() {
  std::string s =
      "netsmith-cli " NETSMITH_VERSION " — the Netsmith training engine\n\n"
      "Usage: netsmith-cli COMMAND [options]\n       netsmith-cli --version\n\nCommands:\n";
  for (const auto* c : kCommands) {
    const std::string summary = c->summary.substr(0, c->summary.find('\n'));
    s += "  " + c->name + std::string(10 - c->name.size(), ' ') + summary + "\n";
  }
  s += "\n'netsmith-cli COMMAND --help' describes a command.\n";
  return s;
}

// --- train -----------------------------------------------------------------------------------

RunControl* g_control = nullptr;

extern "C" void onStopSignal(int) {
  RunControl::noteSignal();
  // A second Ctrl-C ends the process at once.
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

int runTrain(const ParsedArgs& args) {
  TrainOptions options;
  if (args.has("--resume")) {
    if (!args.positional.empty()) throw UsageError{"give either a PROJECT or --resume RUN_FOLDER, not both"};
    options.resumeRun = args.value("--resume");
    if (options.resumeRun.empty())
      throw UsageError{"--resume needs the run folder to continue (RUN_FOLDER, such as project.runs/20250101-120000), "
                       "got an empty name"};
    options.acceptEditedSettings = args.has("--accept-edited-settings");
    for (const char* o : {"--run-dir", "--max-epoch", "--train-samples", "--validation-samples"})
      if (args.has(o)) throw UsageError{format("{} cannot change a resumed run; the run keeps its own settings", o)};
  } else {
    if (args.positional.empty()) throw UsageError{"'train' needs a PROJECT.nsproj (or --resume RUN_FOLDER)"};
    options.projectPath = args.positional[0];
    if (args.has("--accept-edited-settings")) throw UsageError{"--accept-edited-settings goes with --resume RUN_FOLDER"};
  }
  if (args.has("--run-dir") && args.value("--run-dir").empty())
    throw UsageError{"--run-dir needs a folder for the new run, got an empty name"};
  options.runDir = args.value("--run-dir");
  if (auto n = args.positiveInteger("--max-epoch")) options.maxEpoch = *n;
  if (auto n = args.nonNegativeInteger("--early-stopping")) {
    if (!options.resumeRun.empty()) throw UsageError{"--early-stopping cannot change a resumed run; the run keeps its own settings"};
    options.earlyStopping = *n;
  }
  if (auto n = args.positiveInteger("--train-samples")) options.trainSamples = *n;
  if (auto n = args.positiveInteger("--validation-samples")) options.validationSamples = *n;
  if (args.has("--devices")) {
    try {
      options.devices = parseDeviceList(args.value("--devices"));
    } catch (const Error& e) {
      throw UsageError{e.what()};
    }
  }
  options.profile = args.has("--profile");
  // Test-only: fault_injection.h.
  if (const char* fault = std::getenv("NETSMITH_FAULT_INJECTION")) options.faultInjection = fault;

  if (args.has("--json") && !args.has("--dry-run")) throw UsageError{"--json goes with --dry-run"};
  if (args.has("--dry-run")) {
    const bool json = args.has("--json");
    try {
      const TrainingPlan plan = planRun(options);
      if (json) {
        Json j = plan.toJson();
        j["event"] = "plan";
        std::printf("%s\n", protocol::jsonText(j).c_str());
      } else {
        std::printf("%s", plan.toText().c_str());
      }
      return kExitOk;
    } catch (const Error& e) {
      if (json) std::printf("%s\n", protocol::jsonText(Json{{"event", "error"}, {"message", e.what()}}).c_str());
      std::fprintf(stderr, "netsmith-cli: error: %s\n", e.what());
      return kExitFailed;
    }
  }

  // Under mpirun only rank 0 reports (it writes the run folder and the events); the other
  // ranks print nothing but their own errors.
  const char* mpiRank = std::getenv("OMPI_COMM_WORLD_RANK");
  const bool follower = mpiRank && std::string(mpiRank) != "0";
  EventBus bus;
  std::unique_ptr<JsonLinesSink> eventsOut;
  std::unique_ptr<ProgressBarSink> progress;
  const std::string eventsTarget = args.value("--events");
  if (eventsTarget == "-") {
    eventsOut = std::make_unique<JsonLinesSink>(stdout);
  } else {
    if (!eventsTarget.empty()) eventsOut = JsonLinesSink::openFile(eventsTarget);
    if (!args.has("--quiet")) progress = std::make_unique<ProgressBarSink>(stdout, isatty(STDOUT_FILENO));
  }
  if (follower) {
    eventsOut.reset();
    progress.reset();
  }
  if (eventsOut) bus.add(eventsOut.get());
  if (progress) bus.add(progress.get());
  struct QuietSummary final : EventSink {
    void publish(const Json& e) override {
      const std::string kind = e.value("event", "");
      if (kind == "error") std::fprintf(stderr, "netsmith-cli: error: %s\n", e.value("message", "").c_str());
      if (kind == "finished")
        std::printf("%s %s %s\n", e.value("status", "").c_str(), e.value("parameters_sha256", "").c_str(),
                    e.value("run", "").c_str());
    }
  } quiet;
  if (!progress && eventsTarget != "-" && !follower) bus.add(&quiet);
  // --profile: the table once training has ended (Note [Layer profile]); stdout carries only JSON
  // lines with --events -, so the table goes to standard error then.
  struct ProfileCatcher final : EventSink {
    Json profile;
    void publish(const Json& e) override {
      if (e.value("event", "") == "profile") profile = e;
    }
  } profileCatcher;
  if (options.profile && !follower) bus.add(&profileCatcher);

  RunControl control;
  g_control = &control;
  std::signal(SIGINT, onStopSignal);
  std::signal(SIGTERM, onStopSignal);
  // Note [The run outlives its console]: the console that reads `--events -` may go away (a
  // crash, kill -9) while the run trains. Its pipe then breaks, and a write to it would end the
  // run by SIGPIPE with no checkpoint; ignored, the write fails (EPIPE) and the run goes on, its
  // events kept whole in the run folder's events.jsonl, where a reopened console follows it.
  std::signal(SIGPIPE, SIG_IGN);
  // Control lines on standard input (the GUI's pause/resume/stop). The reader blocks in read();
  // it is detached so that the process can end while it waits.
  if (!isatty(STDIN_FILENO)) {
    std::thread([&control] {
      std::string line;
      while (std::getline(std::cin, line)) control.apply(line);
    }).detach();
  }
  options.events = &bus;
  options.control = &control;
  const TrainResult result = runTraining(options);
  if (!profileCatcher.profile.is_null())
    std::fprintf(eventsTarget == "-" ? stderr : stdout, "\n%s", profileTable(profileCatcher.profile).c_str());
  std::fflush(stdout);
  std::fflush(stderr);
  if (follower && result.status == "failed")
    std::fprintf(stderr, "netsmith-cli (rank %s): error: %s\n", mpiRank, result.message.c_str());
  // A hung worker thread cannot be joined, and a failed mpirun job may have lost a rank that
  // MPI_Finalize would wait for: end the process without waiting.
  if (result.abandonedWorkers > 0 || result.abandonProcess) MpiJob::abandon(kExitFailed);
  if (MpiJob::launchedByMpirun()) MpiJob::instance().finalize();
  if (result.status == "completed") return kExitOk;
  if (result.status == "stopped") return kExitStopped;
  return kExitFailed;
}

// --- validate --------------------------------------------------------------------------------

int runValidate(const ParsedArgs& args) {
  const bool json = args.has("--json");
  const std::string path = args.positional[0];
  Json out = {{"project", path}, {"valid", false}, {"problems", Json::array()}};
  auto report = [&](const std::vector<GraphProblem>& problems) {
    for (const auto& p : problems) {
      out["problems"].push_back({{"node", p.nodeId}, {"path", p.jsonPath}, {"message", p.message}});
      if (!json) std::fprintf(stderr, "%s: %s\n", path.c_str(), p.text().c_str());
    }
  };
  Project project;
  try {
    // The network is checked below, so that every problem is listed, not only the first.
    project = loadProject(path, ProjectParseOptions{.checkNetwork = false});
  } catch (const Error& e) {
    out["problems"].push_back({{"node", ""}, {"path", ""}, {"message", e.what()}});
    if (json) std::printf("%s\n", protocol::jsonText(out, 2).c_str());
    else std::fprintf(stderr, "%s\n", e.what());
    return kExitFailed;
  }
  const auto problems = checkNetwork(project.network, OpRegistry::builtin());
  report(problems);
  if (!problems.empty()) {
    if (json) std::printf("%s\n", protocol::jsonText(out, 2).c_str());
    return kExitFailed;
  }
  const Graph graph = buildGraph(project.network, OpRegistry::builtin());
  out["valid"] = true;
  out["name"] = project.name;
  out["parameters"] = graph.parameterCount;
  out["multiply_adds"] = graph.multiplyAdds;
  out["nodes"] = Json::array();
  for (const auto& n : graph.nodes)
    out["nodes"].push_back({{"id", n.id}, {"type", n.schema->name}, {"output_shape", n.outputShape},
                            {"parameters", n.parameterCount}, {"multiply_adds", n.multiplyAdds}});
  if (json) {
    std::printf("%s\n", protocol::jsonText(out, 2).c_str());
    return kExitOk;
  }
  std::printf("%s: valid — '%s'\n\n", path.c_str(), project.name.c_str());
  std::printf("  %-18s %-22s %-14s %12s\n", "layer", "type", "output", "parameters");
  for (const auto& n : graph.nodes)
    std::printf("  %-18s %-22s %-14s %12lld\n", n.id.c_str(), n.schema->name.c_str(), shapeToString(n.outputShape).c_str(),
                static_cast<long long>(n.parameterCount));
  std::printf("\n  %lld parameters, %lld multiply-adds per sample\n", static_cast<long long>(graph.parameterCount),
              static_cast<long long>(graph.multiplyAdds));
  return kExitOk;
}

// --- ops, devices ----------------------------------------------------------------------------

int runOps(const ParsedArgs& args) {
  const auto all = OpRegistry::builtin().all();
  if (args.has("--json")) {
    Json out = Json::array();
    for (const auto* s : all) out.push_back(schemaToJson(*s));
    std::printf("%s\n", protocol::jsonText(Json({{"ops", out}}), 2).c_str());
    return kExitOk;
  }
  std::string category;
  for (const auto* s : all) {
    if (s->category != category) {
      category = s->category;
      std::printf("%s\n", category.c_str());
    }
    std::string backends;
    for (const auto& [key, f] : s->kernels) backends += (backends.empty() ? "" : ",") + key;
    std::printf("  %-22s %s%s\n", s->name.c_str(), s->doc.c_str(), backends.empty() ? "" : (" [" + backends + "]").c_str());
    for (const auto& p : s->params)
      std::printf("      %-16s %-6s default %-10s %s\n", p.name.c_str(), paramTypeName(p.type), p.defaultValue.dump().c_str(),
                  p.help.c_str());
  }
  return kExitOk;
}

int runDevices(const ParsedArgs& args) {
  std::string note;
  const auto devices = trainingDevices(&note);
  if (args.has("--json")) std::printf("%s\n", protocol::jsonText(devicesToJson(devices, note), 2).c_str());
  else std::printf("%s", devicesToText(devices, note).c_str());
  return kExitOk;
}

int runSweepWithSignals(const ParsedArgs& args) {
  std::signal(SIGINT, onStopSignal);
  std::signal(SIGTERM, onStopSignal);
  return runSweep(args);
}

int runLrFindWithSignals(const ParsedArgs& args) {
  std::signal(SIGINT, onStopSignal);
  std::signal(SIGTERM, onStopSignal);
  return runLrFind(args);
}

int dispatch(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::printf("%s", mainHelp().c_str());
    return args.empty() ? kExitUsage : kExitOk;
  }
  if (args[0] == "--version") {
    std::printf("netsmith-cli %s\n", NETSMITH_VERSION);
    for (const DeviceKind& kind : deviceKinds())
      if (!kind.builtFor.empty()) std::printf("%s backend: %s\n", kind.kind.c_str(), kind.builtFor.c_str());
    return kExitOk;
  }
  const std::map<std::string, int (*)(const ParsedArgs&)> handlers{
      {"train", runTrain},       {"sweep", runSweepWithSignals}, {"lr-find", runLrFindWithSignals}, {"validate", runValidate}, {"evaluate", runEvaluate},
      {"infer", runInfer},       {"export", runExport},          {"import", runImport},     {"dataset", runDataset},
      {"project", runProject},   {"diff", runDiff},              {"ops", runOps},           {"devices", runDevices}};
  const auto it = handlers.find(args[0]);
  if (it == handlers.end()) {
    std::fprintf(stderr,
                 "netsmith-cli: unknown command '%s' (commands: train, sweep, lr-find, validate, evaluate, infer, export, import, project, "
                 "dataset, diff, ops, devices; see --help)\n",
                 args[0].c_str());
    return kExitUsage;
  }
  const CommandSpec* spec = nullptr;
  for (const auto* c : kCommands)
    if (c->name == args[0]) spec = c;
  try {
    // Test-only: write_faults.h.
    if (const char* faults = std::getenv("NETSMITH_WRITE_FAULT")) setWriteFaults(faults);
    const ParsedArgs parsed = parseArgs(*spec, std::vector<std::string>(args.begin() + 1, args.end()));
    if (parsed.help) {
      std::printf("%s", helpText(*spec).c_str());
      return kExitOk;
    }
    return it->second(parsed);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "netsmith-cli %s: %s\n", spec->name.c_str(), e.message.c_str());
    return kExitUsage;
  } catch (const Error& e) {
    std::fprintf(stderr, "netsmith-cli %s: %s\n", spec->name.c_str(), e.what());
    return kExitFailed;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "netsmith-cli %s: out of memory: the input or the settings need more memory than this "
                 "machine could give\n", spec->name.c_str());
    return kExitFailed;
  } catch (const std::exception& e) {
    // Never an abort: whatever escaped the command's own checks ends in one error line.
    std::fprintf(stderr, "netsmith-cli %s: internal error: %s (please report it, with the command that caused it)\n",
                 spec->name.c_str(), utf8ShowingStrayBytes(e.what()).c_str());
    return kExitFailed;
  } catch (...) {
    std::fprintf(stderr, "netsmith-cli %s: internal error of an unknown kind (please report it, with the command "
                 "that caused it)\n", spec->name.c_str());
    return kExitFailed;
  }
}

}  // namespace
}  // namespace netsmith::cli

int main(int argc, char** argv) { return netsmith::cli::dispatch(argc, argv); }
