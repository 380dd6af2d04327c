#include "engine/cli/sweep_command.h"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/project/project_io.h"
#include "engine/protocol/json_fields.h"
#include "engine/study/setting_importance.h"
#include "engine/study/study_runner.h"
#include "engine/train/parallel_plan.h"

namespace fs = std::filesystem;

namespace netsmith::cli {

const CommandSpec kSweep{
    "sweep",
    "PROJECT.nsproj (--set KEY=V1,V2,... | --range KEY=LOW..HIGH[:log][:int]) ... [options]\n"
    "       netsmith-cli sweep --resume STUDY_FOLDER [--trials N] [--time-budget T] [--devices LIST]",
    "Runs a study: trains one project many times with other settings, searching a grid, at random or by TPE.",
    "Each --set gives a project key and values to choose from; each --range a numeric range (:log samples\n"
    "in log space, :int takes whole numbers). A key is a JSON path of the project (optimizer.alpha,\n"
    "config.batch_size, optimizer.solver, config.precision) or network.BLOCK.FIELD for a layer's parameter\n"
    "(network.conv1.outmaps). --search grid (the default) trains every combination of the --set values;\n"
    "random draws each trial's values; bayes draws them where the better trials so far lie (a tree-\n"
    "structured Parzen estimator after 4 random trials). Trials wait in a queue; each device (or group\n"
    "of --devices-per-trial devices) takes the next one when it is free, and each trial gets its own run\n"
    "folder in <project>.runs/, which the console's run history overlays. With --early-stop asha (the\n"
    "default of random and bayes) or median, a trial whose validation error falls behind its peers' at\n"
    "the same epoch stops early and frees its devices. --queue adds other projects to a grid, each\n"
    "trained once with its own settings. The study lives in <project>.runs/<stamp>-sweep/ (study.json,\n"
    "trials.jsonl, summary.json); after Ctrl-C or a kill, --resume continues it with the same trials.\n"
    "Exit status: 0 all ended (completed or stopped early), 1 some failed, 2 bad command line, 3 stopped.",
    {{"--set", "KEY=V1,V2,...", "a project key and the values to choose from (repeatable)", true},
     {"--range", "KEY=LOW..HIGH[:log][:int]", "a project key and a numeric range (random and bayes; repeatable)", true},
     {"--search", "grid|random|bayes", "how trials get their values (default grid)"},
     {"--trials", "N", "the most trials (default: a grid's every combination; 12 for random and bayes)"},
     {"--time-budget", "T", "start no trial after T (90s, 30m, 2h) and stop the running ones then"},
     {"--seed", "N", "the seed of the random draws (default: the project's config.seed)"},
     {"--early-stop", "off|asha|median", "stop weak trials early (default asha for random and bayes, off for grid)"},
     {"--early-stop-grace", "N", "no trial stops before epoch N (default 1)"},
     {"--early-stop-factor", "N", "asha keeps the best 1/N at each rung, rungs at epochs grace*N^k (default 3)"},
     {"--queue", "PROJECT.nsproj", "another project to train once, with its own settings, after a grid (repeatable)", true},
     {"--devices", "LIST", "the devices to spread the trials over (default: parallel.devices)"},
     {"--devices-per-trial", "N", "devices each trial trains on, data-parallel (default 1)"},
     {"--resume", "STUDY_FOLDER", "continue a stopped or killed study (<project>.runs/<stamp>-sweep)"},
     {"--max-epoch", "N", "override config.max_epoch"},
     {"--early-stopping", "N", "override config.early_stopping (patience in validations; 0: off)"},
     {"--train-samples", "N", "train on the first N training samples only"},
     {"--validation-samples", "N", "validate on the first N validation samples only"},
     {"--json", "", "print the summary as JSON"}},
    0,
    1};

namespace {

using study::SearchKind;
using study::SearchParameter;
using study::StudyDefinition;
using study::TrialRecord;

std::vector<std::string> lines(const std::string& all) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= all.size()) {
    const size_t nl = std::min(all.find('\n', start), all.size());
    out.push_back(all.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

// "90", "90s", "30m", "2h" -> seconds.
double parseDuration(const std::string& text) {
  const LeadingNumber n = leadingNumber(text);
  const std::string unit = n.used ? text.substr(n.used) : "";
  const double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : -1;
  if (!n.used || scale < 0 || !(n.value > 0) || !std::isfinite(n.value))
    throw UsageError{format("--time-budget: expected a duration such as 90s, 30m or 2h, got '{}'", text)};
  return n.value * scale;
}

std::string percentOrDash(const std::optional<double>& v) { return v ? format("{}%", std::round(*v * 10000) / 100) : "-"; }

std::string statusText(const TrialRecord& t) {
  if (t.status == "stopped_early") return format("stopped early (epoch {})", t.epochs.empty() ? 0 : t.epochs.back().epoch);
  return t.status.empty() ? "not run" : t.status;
}

// The study a command line describes, checked before anything is made.
StudyDefinition defineStudy(const ParsedArgs& args, const Project& base) {
  StudyDefinition d;
  d.projectPath = base.path;
  try {
    for (const auto& spec : args.has("--set") ? lines(args.value("--set")) : std::vector<std::string>{})
      d.parameters.push_back(study::parseChoiceOption(spec));
    for (const auto& spec : args.has("--range") ? lines(args.value("--range")) : std::vector<std::string>{})
      d.parameters.push_back(study::parseRangeOption(spec));
    d.search = study::parseSearchKind(args.has("--search") ? args.value("--search") : "grid", "--search");
    d.stopping.rule = study::parseStopRule(
        args.has("--early-stop") ? args.value("--early-stop") : (d.search == SearchKind::Grid ? "off" : "asha"),
        "--early-stop");
    if (args.has("--devices")) d.devices = parseDeviceList(args.value("--devices"));
  } catch (const Error& e) {
    throw UsageError{e.what()};
  }
  if (d.devices.empty()) d.devices = base.parallel.devices;
  if (args.has("--queue")) {
    if (d.search != SearchKind::Grid) throw UsageError{"--queue adds projects to a grid sweep only (--search grid)"};
    for (const auto& q : lines(args.value("--queue"))) {
      try {
        d.queued.push_back(loadProject(q).path);
      } catch (const Error& e) {
        throw UsageError{format("--queue {}", e.what())};
      }
    }
  }
  if (d.parameters.empty() && d.queued.empty())
    throw UsageError{"give at least one --set KEY=V1,V2,... or --range KEY=LOW..HIGH (or --queue other projects)"};
  d.seed = args.has("--seed") ? static_cast<uint64_t>(*args.nonNegativeInteger("--seed")) : base.config.seed;
  const bool grid = d.search == SearchKind::Grid;
  int64_t combinations = 1;
  for (const auto& p : d.parameters) combinations *= static_cast<int64_t>(p.choices.size());
  if (auto n = args.positiveInteger("--trials")) d.trialBudget = *n;
  else d.trialBudget = grid ? combinations : 12;
  if (args.has("--time-budget")) d.timeBudgetSeconds = parseDuration(args.value("--time-budget"));
  if (auto n = args.positiveInteger("--devices-per-trial")) d.devicesPerTrial = static_cast<int>(*n);
  if (static_cast<size_t>(d.devicesPerTrial) > d.devices.size())
    throw UsageError{format("--devices-per-trial {}: only {} devices to train on", d.devicesPerTrial, d.devices.size())};
  if (auto n = args.positiveInteger("--early-stop-grace")) d.stopping.graceEpochs = *n;
  if (auto n = args.positiveInteger("--early-stop-factor")) {
    if (*n < 2) throw UsageError{"--early-stop-factor: expected 2 or more"};
    d.stopping.reduction = *n;
  }
  if (auto n = args.positiveInteger("--max-epoch")) d.maxEpoch = *n;
  if (auto n = args.nonNegativeInteger("--early-stopping")) d.earlyStopping = *n;
  if (auto n = args.positiveInteger("--train-samples")) d.trainSamples = *n;
  if (auto n = args.positiveInteger("--validation-samples")) d.validationSamples = *n;
  d.stopping.maxEpoch = d.maxEpoch.value_or(base.config.maxEpoch);
  try {
    study::makeSampler(d.search, d.parameters, d.seed);  // a range in a grid is refused here
  } catch (const Error& e) {
    if (!d.parameters.empty()) throw UsageError{e.what()};
  }
  return d;
}

// A resume may raise the budgets and move the study to other devices; nothing else changes.
void refuseChangesOnResume(const ParsedArgs& args) {
  for (const char* fixed : {"--set", "--range", "--search", "--seed", "--early-stop", "--early-stop-grace",
                            "--early-stop-factor", "--queue", "--max-epoch", "--early-stopping", "--train-samples",
                            "--validation-samples"})
    if (args.has(fixed))
      throw UsageError{format("--resume continues the study as it was defined: {} cannot change (start a new study)", fixed)};
  if (!args.positional.empty())
    throw UsageError{format("--resume takes the study folder, not a project ('{}')", args.positional[0])};
}

void applyResumeOptions(const ParsedArgs& args, StudyDefinition& d) {
  if (auto n = args.positiveInteger("--trials")) d.trialBudget = *n;
  if (args.has("--time-budget")) d.timeBudgetSeconds = parseDuration(args.value("--time-budget"));
  try {
    if (args.has("--devices")) d.devices = parseDeviceList(args.value("--devices"));
  } catch (const Error& e) {
    throw UsageError{e.what()};
  }
  if (auto n = args.positiveInteger("--devices-per-trial")) d.devicesPerTrial = static_cast<int>(*n);
  if (static_cast<size_t>(d.devicesPerTrial) > d.devices.size())
    throw UsageError{format("--devices-per-trial {}: only {} devices to train on", d.devicesPerTrial, d.devices.size())};
}

void printTable(study::StudyFolder& folder) {
  std::printf("\n%-4s %-30s %-13s %-24s %-12s %-18s %-7s %s\n", "#", "settings", "device", "status", "final error",
              "best error (epoch)", "seconds", "run folder");
  const TrialRecord* best = nullptr;
  for (const TrialRecord& t : folder.trials()) {
    std::printf("%-4lld %-30s %-13s %-24s %-12s %-18s %-7.0f %s\n", static_cast<long long>(t.index + 1), t.label.c_str(),
                t.devices.c_str(), statusText(t).c_str(), percentOrDash(t.finalError()).c_str(),
                (percentOrDash(t.bestError()) + format(" ({})", t.bestEpoch())).c_str(), t.seconds,
                fs::path(t.runDir).filename().c_str());
    if (t.bestError() && t.status != "failed" && (!best || *t.bestError() < *best->bestError())) best = &t;
  }
  if (best)
    std::printf("Best: trial %lld, %s: validation error %s at epoch %lld\n", static_cast<long long>(best->index + 1),
                best->label.c_str(), percentOrDash(best->bestError()).c_str(), static_cast<long long>(best->bestEpoch()));
  // Note [Setting importance]: the same figures as the console's bars, with two settings or more.
  const auto& parameters = folder.definition().parameters;
  std::vector<study::Observation> observed;
  for (const TrialRecord& t : folder.trials()) observed.push_back(t.observation());
  if (parameters.size() >= 2) {
    std::string line;
    double total = 0;
    for (const auto& i : study::settingImportance(parameters, observed)) {
      line += format("{}{} {}%", line.empty() ? "" : ", ", i.name, std::lround(i.share * 100));
      total += i.share;
    }
    if (total > 0) std::printf("Importance (share of the best errors' variance): %s\n", line.c_str());
  }
  std::printf("Summary: %s\n", (folder.dir() / "summary.json").c_str());
}

}  // namespace

int runSweep(const ParsedArgs& args) {
  std::unique_ptr<study::StudyFolder> folder;
  if (args.has("--resume")) {
    refuseChangesOnResume(args);
    try {
      folder = study::StudyFolder::open(args.value("--resume"));
    } catch (const Error& e) {
      throw UsageError{format("--resume {}", e.what())};
    }
    applyResumeOptions(args, folder->definition());
    folder->writeDefinition();
  } else {
    if (args.positional.empty()) throw UsageError{"give the project to study (or --resume STUDY_FOLDER)"};
    const Project base = loadProject(args.positional[0]);
    StudyDefinition d = defineStudy(args, base);
    const fs::path project(base.path);
    folder = study::StudyFolder::create(project.parent_path() / (project.stem().string() + ".runs"), d,
                                        protocol::jsonText(projectToPortableJson(base), 2) + "\n");
    // A grid's trials are all known: each is written and checked before anything trains, and
    // logged, so a resume runs exactly them. A search's first trial is, and its ranges' ends.
    const auto sampler = d.parameters.empty() ? nullptr : study::makeSampler(d.search, d.parameters, d.seed);
    const bool grid = d.search == SearchKind::Grid;
    const int64_t known = grid ? study::plannedTrials(d) : 1;
    const int64_t fromGrid = study::plannedTrials(d) - static_cast<int64_t>(d.queued.size());
    for (int64_t i = 0; i <= known; ++i) {
      study::TrialValues values;
      try {
        if (i == known) {
          if (!grid) study::checkRangeEnds(*folder, folder->trials().front().values);
          break;
        }
        if (sampler && i < fromGrid) values = sampler->suggest(i, {});
        folder->trials().push_back(study::prepareTrial(*folder, i, values));
      } catch (const Error& e) {
        std::error_code ignored;
        const fs::path dir = folder->dir();
        folder.reset();
        fs::remove_all(dir, ignored);  // nothing trained: the study never began
        std::string given;
        for (size_t k = 0; k < values.size(); ++k)
          given += (given.empty() ? "" : " ") + format("--set {}={}", d.parameters[k].name(), d.parameters[k].valueText(values[k]));
        if (!grid && !values.empty()) given = format("trial 1 ({})", study::trialLabel(d.parameters, values));
        throw UsageError{i == known ? std::string(e.what())
                                    : format("{}: {}", given.empty() ? "--queue" : given, e.what())};
      }
      folder->logTrial(folder->trials().back(), 0);
    }
  }
  const StudyDefinition& d = folder->definition();
  const bool json = args.has("--json");
  const auto planned = study::plannedTrials(d);
  if (!json) {
    std::string devices;
    for (const auto& dev : d.devices) devices += (devices.empty() ? "" : ", ") + dev;
    std::printf("%s study of '%s': %lld trials on %s%s\n", args.has("--resume") ? "Resumed" : "A",
                study::searchKindName(d.search).c_str(), static_cast<long long>(planned), devices.c_str(),
                d.devicesPerTrial > 1 ? format(" ({} per trial)", d.devicesPerTrial).c_str() : "");
    std::printf("Study folder: %s\n", folder->dir().c_str());
    std::fflush(stdout);
  }
  const auto line = [&](const TrialRecord& t, const std::string& what) {
    if (json) return;
    std::printf("[%lld/%lld] %s on %s: %s\n", static_cast<long long>(t.index + 1), static_cast<long long>(planned),
                t.label.c_str(), t.devices.empty() ? "-" : t.devices.c_str(), what.c_str());
    std::fflush(stdout);
  };
  study::StudyEvents events;
  events.trialStarted = [&](const TrialRecord& t) { line(t, fs::exists(fs::path(t.runDir) / "run.json") ? "resumed" : "started"); };
  events.trialEnded = [&](const TrialRecord& t) {
    std::string what = statusText(t);
    if (t.status == "failed") what += " (" + t.message + ")";
    else if (t.stoppedEarly) what += ": " + *t.stoppedEarly;
    else if (t.status == "stopped") what += " (" + t.message + ")";
    if (t.ended()) what += format(", validation error {}, {} s", percentOrDash(t.finalError()), std::lround(t.seconds));
    else what = "stopped: `sweep --resume` continues it";
    line(t, what);
  };
  RunControl control;
  const study::StudyOutcome outcome = study::StudyRunner(*folder, events).run(control);
  if (json) {
    std::printf("%s\n", protocol::jsonText(folder->summary(), 2).c_str());
  } else {
    printTable(*folder);
    if (outcome.timeBudgetSpent) std::printf("The time budget ran out.\n");
    if (outcome.interrupted)
      std::printf("Stopped: continue with  netsmith-cli sweep --resume %s\n", folder->dir().c_str());
  }
  return outcome.anyFailed ? 1 : outcome.interrupted ? 3 : 0;
}

}  // namespace netsmith::cli
