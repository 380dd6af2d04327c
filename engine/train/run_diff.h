// What changed between two runs: `netsmith-cli diff RUN_A RUN_B` and the run history's Compare
// window read two run folders (or project files) here, compare them, and show the same rows.
//
// Note [Run differences]
// A side is a run folder (its project.nsproj, run.json and learning_curve.csv: docs/events.md,
// "The run folder") or a project file (its settings and network only). The differences come in
// four groups, in this order:
//   Settings  the project's settings (Note [Project differences], engine/project/project_diff.h);
//   Network   blocks added, removed or changed (by name), links added or removed;
//   Run       run.json's command-line settings (--max-epoch, --early-stopping, sample limits,
//             --devices) and what the run trained with (its devices, logical batch, learning rate,
//             backend) — only when both sides are runs;
//   Result    how it ended (status), the learning curve's final figures (epochs, final losses and
//             validation error, best validation error, training time) and run.json's speed and
//             parameters' SHA-256 — only when both sides are runs.
// Only what differs is listed. Every file read is checked: a missing or damaged run.json,
// project.nsproj or learning_curve.csv is an Error naming the file and, where it applies, the JSON
// path or line.
#pragma once

#include <string>
#include <vector>

#include "engine/project/project.h"
#include "engine/project/project_diff.h"
#include "engine/protocol/learning_curve.h"

namespace netsmith {

// One side of a comparison.
struct ComparedRun {
  std::string path;         // as given
  std::string folder;       // the run folder; empty when a project file was given
  std::string projectFile;  // the project read: FOLDER/project.nsproj, or the file given
  Project project;
  Json record;                    // run.json; null for a project file
  protocol::LearningCurve curve;  // learning_curve.csv; empty when the run has none (yet)
  std::string status;             // run.json's result status, "running", "not finished"; empty for a project
  Json figures;                   // the Run and Result figures by key (run.json's, the curve's); null for a project
  bool isRun() const { return !folder.empty(); }
};

// Reads a run folder or a project file. Errors name the file: "X: no such run folder or project
// file", "X: not a run folder: it has no run.json ...", "X/run.json: not valid JSON ...",
// "X/run.json: result.status: expected a string, got 5", a project's own load errors.
ComparedRun readComparedRun(const std::string& path);

// How a figure of the Run and Result groups is shown.
enum class FigureFormat { Plain, Percent, Loss, Seconds, Rate, Hash };

// One figure of run.json or of the learning curve that differs (Run or Result group).
struct FigureChange {
  std::string key;    // its name in the JSON: "max_epoch", "best_validation_error"
  std::string label;  // "Max epoch (--max-epoch)"
  Json a, b;          // null: not set / not defined
  FigureFormat format = FigureFormat::Plain;
  std::string absentText;  // what null means here ("the project's", "all"); empty: "(not set)"
};

struct RunDiff {
  ProjectDiff project;
  bool runsCompared = false;         // both sides are runs: `run` and `result` are filled
  std::vector<FigureChange> run;     // the Run group
  std::vector<FigureChange> result;  // the Result group
  bool empty() const { return project.empty() && run.empty() && result.empty(); }
};

RunDiff diffRuns(const ComparedRun& a, const ComparedRun& b);

// The groups, in the order they are shown.
inline constexpr const char* kDiffGroups[] = {"Settings", "Network", "Run", "Result"};

// One row of the differences table (`setting | A | B`), in words: the CLI's table and the GUI's.
struct DiffRow {
  std::string group;    // one of kDiffGroups
  std::string setting;  // "optimizer.lr", "config.max_epoch (Max epoch)", "fc1 (Affine): outmaps", "link x → fc1"
  std::string a, b;
};
std::vector<DiffRow> diffRows(const RunDiff& diff);

// What a side is, in a few words: "run, completed" or "project file".
std::string comparedRunKind(const ComparedRun& side);

// {"a": {path, kind: run | project, project, run_id, status}, "b": {...}, "equal", "settings",
// "blocks", "links" (projectDiffToJson), "run" and "result" ([{key, label, a, b}]; null unless
// both sides are runs)}.
Json runDiffToJson(const ComparedRun& a, const ComparedRun& b, const RunDiff& diff);

}  // namespace netsmith
