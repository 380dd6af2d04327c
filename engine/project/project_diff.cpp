// The differences of two projects (Note [Project differences], project_diff.h).
#include "engine/project/project_diff.h"

#include <algorithm>
#include <set>

#include "engine/op_interface/op_registry.h"
#include "engine/project/project_io.h"
#include "engine/project/settings_table.h"
#include "engine/solvers/solver_table.h"

namespace netsmith {
namespace {

// A row's value as the project trains it: a solver hyper-parameter left out is the solver's
// default (when the project's solver takes it), marked so.
Json diffRowValue(const Setting& row, const Project& p, bool& isDefault) {
  isDefault = false;
  Json v = row.get(p);
  if (!v.is_null() || row.solvers.empty()) return v;
  const SolverRow* solver = findSolver(p.optimizer.solver);
  if (!solver) return v;
  for (const SolverHyperParameter& h : solver->hyper) {
    if (row.key != h.name) continue;
    isDefault = true;
    if (row.type == SettingType::Flag) return Json(h.defaultValue != 0);
    return Json(h.defaultValue);
  }
  return v;
}

void diffSettingsTable(const Project& a, const Project& b, std::vector<ValueChange>& out) {
  for (const Setting& row : settingsTable()) {
    ValueChange c{row.path, row.label};
    c.a = diffRowValue(row, a, c.aDefault);
    c.b = diffRowValue(row, b, c.bDefault);
    if (c.a == c.b) continue;
    c.absentText = row.absentText;
    out.push_back(std::move(c));
  }
}

// The portable JSON without the network and without every key the settings table compares.
Json settingsOutsideTable(const Project& p) {
  Json j = projectToPortableJson(p);
  j.erase("network");
  for (const Setting& row : settingsTable()) {
    Json* object = &j;
    const std::string& path = row.path;
    size_t start = 0;
    for (size_t dot = path.find('.'); dot != std::string::npos && object; dot = path.find('.', start)) {
      const std::string key = path.substr(start, dot - start);
      object = object->is_object() && object->contains(key) ? &(*object)[key] : nullptr;
      start = dot + 1;
    }
    if (object && object->is_object()) object->erase(path.substr(start));
  }
  // Sections left empty (config.augmentation when every key is a row) say nothing more.
  for (const char* section : {"config", "optimizer"}) {
    if (j.contains(section) && j[section].contains("augmentation") && j[section]["augmentation"].empty())
      j[section].erase("augmentation");
    if (j.contains(section) && j[section].empty()) j.erase(section);
  }
  return j;
}

std::string diffChildPath(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

// Objects key by key; arrays and scalars whole (a device list is one setting).
void diffSettingJson(const Json& a, const Json& b, const std::string& path, std::vector<ValueChange>& out) {
  if (a.is_object() && b.is_object()) {
    std::set<std::string> keys;
    for (const auto& [key, value] : a.items()) keys.insert(key);
    for (const auto& [key, value] : b.items()) keys.insert(key);
    for (const std::string& key : keys) {
      const auto ia = a.find(key);
      const auto ib = b.find(key);
      diffSettingJson(ia == a.end() ? Json() : *ia, ib == b.end() ? Json() : *ib, diffChildPath(path, key), out);
    }
    return;
  }
  if (a != b) out.push_back(ValueChange{path, {}, a, b});
}

// A block's parameters with the op's defaults filled in; `defaulted` gets the names filled.
Json paramsWithDefaults(const NodeSpec& node, std::set<std::string>& defaulted) {
  Json params = node.params.is_object() ? node.params : Json::object();
  if (const OpSchema* schema = OpRegistry::builtin().find(node.type))
    for (const ParamSpec& spec : schema->params)
      if (!params.contains(spec.name) && !spec.defaultValue.is_null()) {
        params[spec.name] = spec.defaultValue;
        defaulted.insert(spec.name);
      }
  return params;
}

std::vector<ValueChange> blockFields(const NodeSpec& a, const NodeSpec& b) {
  std::vector<ValueChange> fields;
  if (a.type != b.type) fields.push_back(ValueChange{"type", {}, a.type, b.type});
  std::set<std::string> defaultA, defaultB;
  const Json pa = paramsWithDefaults(a, defaultA);
  const Json pb = paramsWithDefaults(b, defaultB);
  std::set<std::string> keys;
  for (const auto& [key, value] : pa.items()) keys.insert(key);
  for (const auto& [key, value] : pb.items()) keys.insert(key);
  for (const std::string& key : keys) {
    ValueChange c{"params." + key};
    c.a = pa.contains(key) ? pa[key] : Json();
    c.b = pb.contains(key) ? pb[key] : Json();
    if (c.a == c.b) continue;
    c.aDefault = defaultA.count(key) > 0;
    c.bDefault = defaultB.count(key) > 0;
    fields.push_back(std::move(c));
  }
  if (a.frozen != b.frozen) fields.push_back(ValueChange{"frozen", {}, a.frozen, b.frozen});
  if (a.lrMult != b.lrMult) fields.push_back(ValueChange{"lr_mult", {}, a.lrMult, b.lrMult});
  return fields;
}

const NodeSpec* findDiffNode(const NetworkSpec& network, const std::string& id) {
  for (const NodeSpec& n : network.nodes)
    if (n.id == id) return &n;
  return nullptr;
}

void diffBlocks(const NetworkSpec& a, const NetworkSpec& b, std::vector<BlockChange>& out) {
  for (const NodeSpec& na : a.nodes) {
    const NodeSpec* nb = findDiffNode(b, na.id);
    BlockChange c;
    c.id = na.id;
    c.typeA = na.type;
    if (!nb) {
      c.kind = BlockChange::Kind::Removed;
      c.paramsA = na.params.is_object() ? na.params : Json::object();
      out.push_back(std::move(c));
      continue;
    }
    c.typeB = nb->type;
    c.fields = blockFields(na, *nb);
    if (!c.fields.empty()) out.push_back(std::move(c));
  }
  for (const NodeSpec& nb : b.nodes) {
    if (findDiffNode(a, nb.id)) continue;
    BlockChange c;
    c.id = nb.id;
    c.kind = BlockChange::Kind::Added;
    c.typeB = nb.type;
    c.paramsB = nb.params.is_object() ? nb.params : Json::object();
    out.push_back(std::move(c));
  }
}

bool sameDiffLink(const LinkSpec& x, const LinkSpec& y) { return x.from == y.from && x.to == y.to && x.port == y.port; }

// The links of `from` that `to` lacks, counted as a multiset (a link written twice is two).
std::vector<LinkSpec> linksMissingFrom(const std::vector<LinkSpec>& from, const std::vector<LinkSpec>& to) {
  std::vector<bool> used(to.size(), false);
  std::vector<LinkSpec> missing;
  for (const LinkSpec& link : from) {
    bool found = false;
    for (size_t i = 0; i < to.size() && !found; ++i)
      if (!used[i] && sameDiffLink(link, to[i])) used[i] = found = true;
    if (!found) missing.push_back(link);
  }
  return missing;
}

Json diffValueChangeJson(const ValueChange& c, const char* nameKey) {
  Json j = {{nameKey, c.path}, {"a", c.a}, {"b", c.b}};
  if (!c.label.empty()) j["label"] = c.label;
  if (c.aDefault) j["a_default"] = true;
  if (c.bDefault) j["b_default"] = true;
  return j;
}

}  // namespace

const char* blockChangeName(BlockChange::Kind kind) {
  switch (kind) {
    case BlockChange::Kind::Added: return "added";
    case BlockChange::Kind::Removed: return "removed";
    case BlockChange::Kind::Changed: return "changed";
  }
  return "changed";
}

ProjectDiff diffProjects(const Project& a, const Project& b) {
  ProjectDiff d;
  diffSettingsTable(a, b, d.settings);
  diffSettingJson(settingsOutsideTable(a), settingsOutsideTable(b), "", d.settings);
  diffBlocks(a.network, b.network, d.blocks);
  for (const LinkSpec& l : linksMissingFrom(a.network.links, b.network.links)) d.links.push_back({l, false});
  for (const LinkSpec& l : linksMissingFrom(b.network.links, a.network.links)) d.links.push_back({l, true});
  return d;
}

Json projectDiffToJson(const ProjectDiff& diff) {
  Json settings = Json::array();
  for (const ValueChange& c : diff.settings) settings.push_back(diffValueChangeJson(c, "path"));
  Json blocks = Json::array();
  for (const BlockChange& c : diff.blocks) {
    Json j = {{"id", c.id}, {"change", blockChangeName(c.kind)}};
    j["type_a"] = c.typeA.empty() ? Json() : Json(c.typeA);
    j["type_b"] = c.typeB.empty() ? Json() : Json(c.typeB);
    if (c.kind == BlockChange::Kind::Removed) j["params_a"] = c.paramsA;
    if (c.kind == BlockChange::Kind::Added) j["params_b"] = c.paramsB;
    Json fields = Json::array();
    for (const ValueChange& f : c.fields) fields.push_back(diffValueChangeJson(f, "field"));
    if (c.kind == BlockChange::Kind::Changed) j["fields"] = std::move(fields);
    blocks.push_back(std::move(j));
  }
  Json links = Json::array();
  for (const LinkChange& c : diff.links)
    links.push_back({{"from", c.link.from},
                     {"to", c.link.to},
                     {"port", c.link.port ? Json(*c.link.port) : Json()},
                     {"change", c.added ? "added" : "removed"}});
  return {{"settings", settings}, {"blocks", blocks}, {"links", links}};
}

}  // namespace netsmith
