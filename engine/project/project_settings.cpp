// The config and optimizer sections of a project file, read and written row by row of the settings
// table (Note [Settings table]): the keys each object may hold, the check of each value and its
// message, the order and the policy of writing.
#include <climits>

#include "engine/core/error.h"
#include "engine/project/project_io_detail.h"
#include "engine/project/settings_table.h"

namespace netsmith::projectio {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> keysOf(SettingGroup group) {
  std::vector<std::string> keys;
  for (const Setting* s : settingsOf(group)) keys.push_back(s->key);
  return keys;
}

// Checks `object`'s value of the row (when present) and gives it to the Project.
void readRow(const JsonChecker& c, const Json& object, const Setting& row, Project& out) {
  const Json* x = c.find(object, row.key);
  if (!x) return;
  const SettingBounds& b = row.bounds;
  Json value;
  switch (row.type) {
    case SettingType::Integer:
      value = c.integer(*x, row.path, static_cast<int64_t>(b.min.value_or(static_cast<double>(INT64_MIN))),
                        b.max ? static_cast<int64_t>(*b.max) : INT64_MAX);
      break;
    case SettingType::Seed:
      value = c.nonNegativeInteger(*x, row.path);
      break;
    case SettingType::Number:
      if (b.max) c.rangedNumber(*x, row.path, b.min.value_or(0), *b.max, b.maxExclusive, row.rangeNote);
      else c.number(*x, row.path, b.min ? std::optional<Bound>(Bound{*b.min, b.minExclusive}) : std::nullopt);
      value = *x;  // as written: a solver's 1 stays 1
      break;
    case SettingType::Flag:
      value = c.boolean(*x, row.path);
      break;
    case SettingType::Choice:
      value = c.choice(*x, row.path, row.choices);
      break;
    case SettingType::Path: {
      // Relative to the project file's folder (out.path is set before the sections are read).
      const std::string raw = c.text(*x, row.path, "a file path (a non-empty string)");
      const auto resolved = resolvePath(raw, folderOf(out.path));
      if (!resolved) c.fail(row.path, format("unknown variable in {}: only ${DATASETS} can be used", quoted(raw)));
      value = *resolved;
      break;
    }
  }
  row.set(out, value);
}

// The spelling to write for a Path row's absolute value: the user's own (relative, ${DATASETS})
// when it still names the same file from `baseDir`, else the absolute path.
Json pathSpelling(const Setting& row, const Project& p, const Json& value, const fs::path& baseDir) {
  const Json* v = &p.original;
  for (const char* key : {"config", row.key.c_str()}) {
    if (!v->is_object() || !v->contains(key)) return value;
    v = &(*v)[key];
  }
  if (!v->is_string()) return value;
  const auto resolved = resolvePath(v->get<std::string>(), baseDir);
  return resolved && Json(*resolved) == value ? *v : value;
}

// Writes the row into `object` as its policy says.
void writeRow(const Setting& row, const Project& p, OrderedJson& object, const fs::path& baseDir = {}) {
  Json value = row.get(p);
  if (row.type == SettingType::Path && value.is_string()) value = pathSpelling(row, p, value, baseDir);
  switch (row.write) {
    case WritePolicy::Always:
      break;
    case WritePolicy::UnlessDefault:
      if (value == row.defaultValue) return;
      break;
    case WritePolicy::WhenSet:
      if (value.is_null()) return;
      break;
  }
  object[row.key] = OrderedJson(value);
}

}  // namespace

void readConfigSection(const JsonChecker& c, const Json& v, Project& out) {
  std::vector<std::string> keys = keysOf(SettingGroup::GlobalConfig);
  keys.push_back("augmentation");
  c.object(v, "config", keys, "an object");
  for (const Setting* row : settingsOf(SettingGroup::GlobalConfig)) readRow(c, v, *row, out);
  if (const Json* a = c.find(v, "augmentation")) {
    c.object(*a, "config.augmentation", keysOf(SettingGroup::Augmentation),
             "an object such as {\"flip_horizontal\": true, \"crop_padding\": 4}");
    for (const Setting* row : settingsOf(SettingGroup::Augmentation)) readRow(c, *a, *row, out);
  }
}

void readOptimizerSection(const JsonChecker& c, const Json& v, Project& out) {
  c.object(v, "optimizer", keysOf(SettingGroup::Optimizer), "an object");
  for (const Setting* row : settingsOf(SettingGroup::Optimizer)) readRow(c, v, *row, out);
}

OrderedJson configSectionJson(const Project& p, const fs::path& baseDir) {
  OrderedJson config = OrderedJson::object();
  for (const Setting* row : settingsOf(SettingGroup::GlobalConfig)) writeRow(*row, p, config, baseDir);
  // Only what is on: a project without augmentation keeps its text (an absent object is all off).
  OrderedJson augmentation = OrderedJson::object();
  for (const Setting* row : settingsOf(SettingGroup::Augmentation)) writeRow(*row, p, augmentation);
  if (!augmentation.empty()) config["augmentation"] = std::move(augmentation);
  return config;
}

OrderedJson optimizerSectionJson(const Project& p) {
  OrderedJson optimizer = OrderedJson::object();
  for (const Setting* row : settingsOf(SettingGroup::Optimizer)) writeRow(*row, p, optimizer);
  return optimizer;
}

}  // namespace netsmith::projectio
