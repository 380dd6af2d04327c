// The settings table: every Global Config (config.*) and Optimizer (optimizer.*) setting of a
// project, declared once (issue 17 item 3), as the op registry declares every layer.
//
// Note [Settings table]
// A row says everything about one setting: its JSON path, its type and range, its default, the
// words a person reads (label, help), its choices, when it is written, and how it binds to the
// Project's field. Everything else derives from the rows:
//   - the project loader (project_reader.cpp) checks each key with the row's type and range, in
//     table order, and fails with "<json.path>: expected <range>, got <value>";
//   - the writer (project_writer.cpp) writes the rows in table order, each by its WritePolicy;
//   - the known keys of the config, config.augmentation and optimizer sections (an unknown key is
//     an error with a "did you mean");
//   - the GUI's Config page (gui/config/config_page.cpp) builds one field per row: label, help as
//     the tooltip, a check box, a choice box or a line edit, the placeholder of an absent value;
//   - tst_settings_table checks that docs/project-format.md names every row.
// So a new Global Config setting is a new row here plus the engine code that uses its value.
// The solvers' own hyper-parameters (optimizer.lr, optimizer.beta1, ...) are rows too, one per
// key, whose words, solvers and ranges come from the solver folders (engine/solvers/solver_table.h).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/project/project.h"

namespace netsmith {

enum class SettingType {
  Integer,      // a whole number within [min, max] (JSON integers, or floats such as 5.0)
  Seed,         // any non-negative 64-bit integer
  Number,       // a finite number within the bounds
  Flag,         // true or false
  Choice,       // one of `choices`
  Path,         // a file: a non-empty string, relative to the project file's folder or absolute,
                // ${DATASETS} allowed; held absolute in the Project, written as the user spelled it
};

// Where a setting is shown (the Config page's boxes) and which object holds its key.
enum class SettingGroup {
  GlobalConfig,  // config.<key>
  Augmentation,  // config.augmentation.<key>
  Optimizer,     // optimizer.<key>
};

enum class WritePolicy {
  Always,         // every saved file has the key
  UnlessDefault,  // written only when it differs from the default (files saved before the key
                  // existed, and the samples, keep their text)
  WhenSet,        // an optional value: absent (null from `get`) means "the solver's / schedule's default"
};

struct SettingBounds {
  std::optional<double> min;
  bool minExclusive = false;
  std::optional<double> max;
  bool maxExclusive = false;
};

struct Setting {
  std::string path;       // "config.max_epoch": the JSON path, also the id of the GUI's field
  std::string key;        // "max_epoch": the key inside its group's object
  SettingGroup group;
  SettingType type;
  Json defaultValue;      // null for WhenSet rows (the default depends on the solver / schedule)
  SettingBounds bounds;   // Integer, Number
  std::string rangeNote;  // with a max: what the number measures, "(degrees)" in the message
  std::vector<std::string> choices;  // Choice
  std::string label;      // "Max epoch"
  std::string help;       // one or two sentences: what it does, its unit, what 0 means
  std::string absentText; // shown in an empty field: "off" (absent means off), else "default ..."
  WritePolicy write = WritePolicy::Always;
  // Optimizer rows that only some solvers or schedules take: shown only for those (the loader
  // accepts the key for any; Optimizer::create / LearningRateSchedule refuse it for the others).
  std::vector<std::string> solvers;    // optimizer.lr: Sgd, Momentum, ...
  std::vector<std::string> schedules;  // optimizer.gamma: step, exponential

  // The binding to the Project: the value as JSON (null: absent), and the setter the loader calls
  // with a checked value (Integer: an integer; Seed: unsigned; Number: the number as written).
  std::function<Json(const Project&)> get;
  std::function<void(Project&, const Json&)> set;

  // The words after "expected" in the loader's message: "an integer >= 1", "a number > 0".
  std::string expected() const;
};

// Every row, in the order of the file (config, config.augmentation, optimizer).
const std::vector<Setting>& settingsTable();
// The row of a JSON path ("config.max_epoch"), or nullptr.
const Setting* findSetting(const std::string& path);
// The rows of one group, in table order.
std::vector<const Setting*> settingsOf(SettingGroup group);

}  // namespace netsmith
