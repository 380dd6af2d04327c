// Project files (.nsproj, DESIGN.md §5): parse and check, write back, save atomically.
//
// Every problem a user can cause is a netsmith::Error whose message is
//   "<file>: <json.path>: <what was expected, what was found>"
// (e.g. "lenet.nsproj: config.batch_size: expected an integer >= 1, got 0"), about the FIRST
// problem found. Unknown keys are errors (with a suggestion when one is close), so no field is
// ever silently dropped. Paths in the dataset section may use ${DATASETS} (see datasetsRoot())
// and may be relative to the project file's folder; the Project holds them absolute, and
// projectToJson() writes back the spelling the user wrote whenever it still names the same file.
#pragma once

#include <string>
#include <vector>

#include "engine/project/project.h"

namespace netsmith {

// The project format version this build reads and writes.
inline constexpr int kProjectFormatVersion = 1;

struct ProjectParseOptions {
  // Also check the network against the op registry (checkNetwork() in graph.h): layer types,
  // parameters, links, shapes, one Input, one loss. Off for the editor, which opens a project
  // with a broken network and marks each problem on its block.
  bool checkNetwork = true;
};

// Parses and checks a project JSON; `path` is the file it came from (relative dataset paths
// resolve against its folder; empty: the current folder, and messages carry no file name).
Project parseProject(const Json& json, const std::string& path, const ProjectParseOptions& options = {});
// Same, from the text of a file: a syntax error is reported with its line and column.
Project parseProjectText(const std::string& text, const std::string& path, const ProjectParseOptions& options = {});
// Reads the file (errors name it: missing, unreadable, a folder, not JSON with line/column).
Project loadProject(const std::string& path, const ProjectParseOptions& options = {});

// Canonical v1 JSON: every field written, defaults included; parse(toJson(p)) gives p again.
// Dataset paths are written as in p.original when that spelling still resolves to the same
// file from p.path's folder, else absolute.
Json projectToJson(const Project& p);
// projectToJson() with the dataset paths made absolute: the project reads the same data when
// the JSON is saved in another folder (a run folder's snapshot, a sweep's variants).
Json projectToPortableJson(const Project& p);
// The text saveProject() writes: projectToJson() with keys in the order of DESIGN.md §5 and one
// line per node and link. `path` is where it will be stored (decides which relative dataset
// paths can stay relative); empty: p.path.
std::string projectToText(const Project& p, const std::string& path = {});
// Atomic: writes a temporary file in the same folder, fsyncs it, renames it over `path`, fsyncs
// the folder. On any failure the old file is left as it was and the temporary file is removed.
void saveProject(const Project& p, const std::string& path);

// $NETSMITH_DATASETS, else $DATASETS, else "/usr/share/datasets" (what ${DATASETS} stands for).
std::string datasetsRoot();

// Solver hyper-parameter names a project may set in its optimizer section (the union over all
// solvers; which solver takes which is checked by the optimizer module).
const std::vector<std::string>& solverHyperParameterNames();
// Solver names accepted in optimizer.solver.
const std::vector<std::string>& solverNames();

}  // namespace netsmith
