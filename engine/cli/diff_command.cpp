// netsmith-cli diff RUN_A RUN_B [--json]: the differences of two run folders or project files
// (Note [Run differences], engine/train/run_diff.h) as a table `setting | A | B` grouped Settings,
// Network, Run, Result, or as one JSON object.
#include "engine/cli/diff_command.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "engine/protocol/json_fields.h"
#include "engine/train/run_diff.h"

namespace netsmith::cli {

const CommandSpec kDiff{
    "diff",
    "RUN_A RUN_B [--json]",
    "Shows what changed between two runs (or project files): settings, network, run options and results.",
    "RUN_A and RUN_B are run folders (<project>.runs/<YYYYMMDD-HHMMSS>/) or .nsproj files. The table lists\n"
    "only what differs, as `setting | A | B`, in four groups: Settings (every key of the project: Global\n"
    "Config, optimizer and its hyper-parameters, dataset, parallel), Network (blocks added, removed or\n"
    "changed by name, each parameter that differs; links added or removed), Run (run.json: --max-epoch,\n"
    "sample limits, --devices, the devices and learning rate the run used) and Result (status, epochs,\n"
    "final and best validation error, final losses, training time, samples/s, parameters' SHA-256).\n"
    "Run and Result need two run folders. A solver's hyper-parameter left out counts as the solver's\n"
    "default, a block's parameter left out as the layer's default; block positions are not compared.\n"
    "Exit status: 0 compared (whether or not anything differs), 1 a file is missing or damaged, 2 bad\n"
    "command line.",
    {{"--json", "", "print the differences as one JSON object (docs/events.md, \"Comparing runs\")"}},
    2,
    2};

namespace {

// Columns count code points, not bytes: "→" is one column wide.
size_t columns(const std::string& s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string padded(const std::string& s, size_t width) {
  const size_t used = columns(s);
  return used >= width ? s : s + std::string(width - used, ' ');
}

// A very long value (a dataset path) keeps its row but does not widen every other row's column.
constexpr size_t kMaxColumn = 48;

void printTable(const ComparedRun& a, const ComparedRun& b, const RunDiff& diff) {
  std::printf("A: %s (%s)\nB: %s (%s)\n\n", a.path.c_str(), comparedRunKind(a).c_str(), b.path.c_str(),
              comparedRunKind(b).c_str());
  const std::vector<DiffRow> rows = diffRows(diff);
  if (rows.empty()) {
    std::printf("no differences\n");
    return;
  }
  size_t settingWidth = columns("setting"), aWidth = 1;
  for (const DiffRow& r : rows) {
    settingWidth = std::max(settingWidth, std::min(columns(r.setting), kMaxColumn));
    aWidth = std::max(aWidth, std::min(columns(r.a), kMaxColumn));
  }
  std::printf("  %s  %s  B\n", padded("setting", settingWidth).c_str(), padded("A", aWidth).c_str());
  for (const char* group : kDiffGroups) {
    const bool compared = diff.runsCompared || (std::string(group) != "Run" && std::string(group) != "Result");
    if (!compared) continue;
    bool any = false;
    for (const DiffRow& r : rows) {
      if (r.group != group) continue;
      if (!any) std::printf("%s\n", group);
      any = true;
      std::printf("  %s  %s  %s\n", padded(r.setting, settingWidth).c_str(), padded(r.a, aWidth).c_str(), r.b.c_str());
    }
    if (!any) std::printf("%s: no differences\n", group);
  }
  if (!diff.runsCompared) std::printf("(Run and Result are compared between two run folders only)\n");
}

}  // namespace

int runDiff(const ParsedArgs& args) {
  for (const std::string& p : args.positional)
    if (p.empty()) throw UsageError{"diff needs two run folders or project files, got an empty name"};
  const ComparedRun a = readComparedRun(args.positional[0]);
  const ComparedRun b = readComparedRun(args.positional[1]);
  const RunDiff diff = diffRuns(a, b);
  if (args.has("--json")) std::printf("%s\n", protocol::jsonText(runDiffToJson(a, b, diff), 2).c_str());
  else printTable(a, b, diff);
  return 0;
}

}  // namespace netsmith::cli
