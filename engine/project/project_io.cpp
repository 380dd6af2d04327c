#include "engine/project/project_io.h"

#include "engine/project/device_name.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "engine/core/error.h"
#include "engine/core/suggest.h"
#include "engine/ops/op_registry.h"
#include "engine/project/graph.h"

namespace netsmith {
namespace {

namespace fs = std::filesystem;
using OrderedJson = nlohmann::ordered_json;

constexpr const char* kFormatName = "netsmith-project";
// Deeper JSON than this is refused before anything walks it: the checks, copies and dumps that
// follow recurse, and a project is never deeper than about 8 levels.
constexpr int kMaxDepth = 64;
constexpr std::uintmax_t kMaxFileBytes = 256u << 20;

const std::vector<std::string> kTopKeys{"format", "version", "name", "network", "dataset", "config", "optimizer", "parallel"};
const std::vector<std::string> kNetworkKeys{"nodes", "links"};
const std::vector<std::string> kNodeKeys{"id", "type", "params", "pos"};
const std::vector<std::string> kLinkKeys{"from", "to", "port"};
const std::vector<std::string> kDatasetKeys{"training", "validation", "scale", "shuffle", "on_error"};
const std::vector<std::string> kSourceKeys{"format", "images", "labels", "csv"};
const std::vector<std::string> kConfigKeys{"max_epoch", "batch_size", "monitor_interval", "precision", "seed", "deterministic", "save_best",
                                           "augmentation"};
const std::vector<std::string> kAugmentationKeys{"flip_horizontal", "flip_vertical", "crop_padding", "rotation_degrees",
                                                 "scale",           "shift",         "brightness",   "contrast"};
// The largest crop_padding accepted: far beyond any image's use, small enough for int arithmetic.
constexpr int64_t kMaxCropPadding = 4096;
const std::vector<std::string> kOptimizerFixedKeys{"solver",        "weight_decay", "lr_multiplier", "lr_update_interval",
                                                   "warmup_epochs", "lr_schedule",  "step_epochs",   "gamma"};
const std::vector<std::string> kScheduleKeys{"step_epochs", "gamma"};
const std::vector<std::string> kParallelKeys{"devices", "worker_load", "lr_policy", "threads_per_device", "timeout_s"};

// ---------------------------------------------------------------------------------------------
// Words for messages

// The candidate closest to `word`, for "did you mean" (engine/core/suggest.h).
std::string closest(const std::string& word, const std::vector<std::string>& candidates) {
  return closestName(word, candidates);
}

std::string quoted(const std::string& s) { return Json(s).dump(-1, ' ', false, Json::error_handler_t::replace); }

std::string joinQuoted(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + quoted(names[i]);
  return s;
}

// A value as shown after "got": compact JSON, cut short.
std::string shown(const Json& v) {
  std::string s = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (s.size() > 80) s = s.substr(0, 72) + " ...";
  return s;
}

std::string child(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }
std::string element(const std::string& path, size_t i) { return format("{}[{}]", path, i); }

// ---------------------------------------------------------------------------------------------
// Checked reading of JSON values

struct Bound {
  double limit;
  bool strict;  // value > limit rather than >= limit
};

class Checker {
 public:
  explicit Checker(std::string file) : m_file(std::move(file)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    std::string message = m_file.empty() ? std::string() : m_file + ": ";
    if (!path.empty()) message += path + ": ";
    throw Error(message + what);
  }

  // Requires an object whose keys are all in `known`.
  void object(const Json& v, const std::string& path, const std::vector<std::string>& known, const char* what) const {
    if (!v.is_object()) fail(path, format("expected {}, got {}", what, shown(v)));
    for (const auto& [key, value] : v.items()) {
      if (std::find(known.begin(), known.end(), key) != known.end()) continue;
      const std::string suggestion = closest(key, known);
      if (!suggestion.empty()) fail(child(path, key), format("unknown key; did you mean {}?", suggestion));
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      fail(child(path, key), format("unknown key (known keys here: {})", list));
    }
  }

  const Json* find(const Json& object, const std::string& key) const {
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  }

  const Json& need(const Json& object, const std::string& path, const std::string& key, const std::string& why = {}) const {
    if (const Json* v = find(object, key)) return *v;
    fail(child(path, key), why.empty() ? "required key is missing" : "required key is missing (" + why + ")");
  }

  int64_t integer(const Json& v, const std::string& path, int64_t min, int64_t max = INT64_MAX) const {
    const auto expected = [&] {
      if (min == max) return format("{}", min);
      if (max != INT64_MAX) return format("an integer in [{}, {}]", min, max);
      return format("an integer >= {}", min);
    };
    int64_t value = 0;
    if (v.is_number_unsigned()) {
      if (v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) fail(path, format("expected {}, got {}", expected(), shown(v)));
      value = static_cast<int64_t>(v.get<uint64_t>());
    } else if (v.is_number_integer()) {
      value = v.get<int64_t>();
    } else if (v.is_number_float() && isWhole(v.get<double>())) {
      value = static_cast<int64_t>(v.get<double>());
    } else {
      fail(path, format("expected {}, got {}", expected(), shown(v)));
    }
    if (value < min || value > max) fail(path, format("expected {}, got {}", expected(), shown(v)));
    return value;
  }

  uint64_t nonNegativeInteger(const Json& v, const std::string& path) const {
    if (v.is_number_unsigned()) return v.get<uint64_t>();
    if (v.is_number_integer() && v.get<int64_t>() >= 0) return static_cast<uint64_t>(v.get<int64_t>());
    if (v.is_number_float() && isWhole(v.get<double>()) && v.get<double>() >= 0) return static_cast<uint64_t>(v.get<double>());
    fail(path, format("expected a non-negative integer, got {}", shown(v)));
  }

  double number(const Json& v, const std::string& path, std::optional<Bound> bound = std::nullopt) const {
    const std::string expected =
        bound ? format("a number {} {}", bound->strict ? ">" : ">=", bound->limit) : std::string("a number");
    if (!v.is_number() || !std::isfinite(v.get<double>())) fail(path, format("expected {}, got {}", expected, shown(v)));
    const double d = v.get<double>();
    if (bound && (bound->strict ? !(d > bound->limit) : !(d >= bound->limit)))
      fail(path, format("expected {}, got {}", expected, shown(v)));
    return d;
  }

  bool boolean(const Json& v, const std::string& path) const {
    if (!v.is_boolean()) fail(path, format("expected true or false, got {}", shown(v)));
    return v.get<bool>();
  }

  std::string text(const Json& v, const std::string& path, const char* what = "a non-empty string") const {
    if (!v.is_string() || v.get_ref<const std::string&>().empty()) fail(path, format("expected {}, got {}", what, shown(v)));
    return v.get<std::string>();
  }

  std::string choice(const Json& v, const std::string& path, const std::vector<std::string>& choices) const {
    const std::string expected = choices.size() == 1 ? quoted(choices[0])
                                 : choices.size() == 2 ? quoted(choices[0]) + " or " + quoted(choices[1])
                                                       : "one of " + joinQuoted(choices);
    if (v.is_string()) {
      const std::string& s = v.get_ref<const std::string&>();
      if (std::find(choices.begin(), choices.end(), s) != choices.end()) return s;
      const std::string suggestion = closest(s, choices);
      if (!suggestion.empty()) fail(path, format("expected {}, got {}; did you mean {}?", expected, shown(v), quoted(suggestion)));
    }
    fail(path, format("expected {}, got {}", expected, shown(v)));
  }

  static bool isWhole(double d) { return std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15; }

 private:
  std::string m_file;
};

// ---------------------------------------------------------------------------------------------
// Paths

// "${DATASETS}" expanded, then made absolute against `baseDir`; nullopt when another "${...}"
// remains.
std::optional<std::string> resolvePath(const std::string& raw, const fs::path& baseDir) {
  static const std::string kVariable = "${DATASETS}";
  std::string s = raw;
  const std::string root = datasetsRoot();
  for (size_t pos = s.find(kVariable); pos != std::string::npos; pos = s.find(kVariable, pos + root.size()))
    s.replace(pos, kVariable.size(), root);
  if (s.find("${") != std::string::npos) return std::nullopt;
  fs::path p(s);
  if (p.is_relative()) p = baseDir / p;
  return p.lexically_normal().string();
}

fs::path folderOf(const std::string& file) {
  if (file.empty()) return fs::current_path();
  return fs::absolute(fs::path(file)).lexically_normal().parent_path();
}

// Iterative, so that a hostile file cannot overflow the stack here.
bool deeperThan(const Json& root, int limit) {
  std::vector<std::pair<const Json*, int>> stack{{&root, 0}};
  while (!stack.empty()) {
    const auto [v, depth] = stack.back();
    stack.pop_back();
    if (!v->is_structured()) continue;
    if (depth >= limit) return true;
    for (const auto& c : *v) stack.emplace_back(&c, depth + 1);
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Sections

class ProjectReader {
 public:
  ProjectReader(const Checker& c, fs::path baseDir) : m_c(c), m_baseDir(std::move(baseDir)) {}

  void network(const Json& v, NetworkSpec& out) const {
    const std::string path = "network";
    m_c.object(v, path, kNetworkKeys, "an object with \"nodes\" and \"links\"");
    const Json& nodes = m_c.need(v, path, "nodes");
    if (!nodes.is_array()) m_c.fail("network.nodes", format("expected an array of nodes, got {}", shown(nodes)));
    std::map<std::string, size_t> ids;
    for (size_t i = 0; i < nodes.size(); ++i) {
      const std::string at = element("network.nodes", i);
      const Json& n = nodes[i];
      m_c.object(n, at, kNodeKeys, "a node object {\"id\", \"type\", \"params\", \"pos\"}");
      NodeSpec node;
      node.id = m_c.text(m_c.need(n, at, "id"), child(at, "id"), "a non-empty string naming the node");
      if (const auto [it, fresh] = ids.emplace(node.id, i); !fresh)
        m_c.fail(child(at, "id"), format("duplicate node id '{}': network.nodes[{}] and network.nodes[{}] both use it; ids must be unique",
                                         node.id, it->second, i));
      node.type = m_c.text(m_c.need(n, at, "type"), child(at, "type"), "a layer type name such as \"Convolution\"");
      if (const Json* params = m_c.find(n, "params")) {
        if (!params->is_object())
          m_c.fail(child(at, "params"), format("expected an object of layer parameters such as {\"outmaps\": 16}, got {}", shown(*params)));
        node.params = *params;
      }
      if (const Json* pos = m_c.find(n, "pos")) {
        const bool ok = pos->is_array() && pos->size() == 2 && (*pos)[0].is_number() && (*pos)[1].is_number() &&
                        std::isfinite((*pos)[0].get<double>()) && std::isfinite((*pos)[1].get<double>());
        if (!ok) m_c.fail(child(at, "pos"), format("expected two numbers [x, y], got {}", shown(*pos)));
        node.pos = {(*pos)[0].get<double>(), (*pos)[1].get<double>()};
      }
      out.nodes.push_back(std::move(node));
    }

    std::vector<std::string> idList;
    for (const auto& n : out.nodes) idList.push_back(n.id);
    if (const Json* links = m_c.find(v, "links")) {
      if (!links->is_array()) m_c.fail("network.links", format("expected an array of links, got {}", shown(*links)));
      for (size_t j = 0; j < links->size(); ++j) {
        const std::string at = element("network.links", j);
        const Json& l = (*links)[j];
        m_c.object(l, at, kLinkKeys, "a link object {\"from\", \"to\"}");
        LinkSpec link;
        link.from = nodeRef(l, at, "from", ids, idList);
        link.to = nodeRef(l, at, "to", ids, idList);
        if (const Json* port = m_c.find(l, "port")) link.port = static_cast<int>(m_c.integer(*port, child(at, "port"), 0, 64));
        out.links.push_back(std::move(link));
      }
    }
  }

  DataSourceSpec source(const Json& v, const std::string& path) const {
    m_c.object(v, path, kSourceKeys, "an object such as {\"format\": \"idx\", \"images\": ..., \"labels\": ...}");
    DataSourceSpec s;
    s.format = m_c.choice(m_c.need(v, path, "format", "set it to \"idx\" or \"csv\""), child(path, "format"), {"idx", "csv"});
    if (s.format == "idx") {
      if (m_c.find(v, "csv"))
        m_c.fail(child(path, "csv"), "not used by the idx format, which reads \"images\" and \"labels\"; remove it or set \"format\": \"csv\"");
      s.images = filePath(m_c.need(v, path, "images", "the idx format needs images and labels"), child(path, "images"));
      s.labels = filePath(m_c.need(v, path, "labels", "the idx format needs images and labels"), child(path, "labels"));
    } else {
      for (const char* key : {"images", "labels"})
        if (m_c.find(v, key))
          m_c.fail(child(path, key), "not used by the csv format, which reads the file named by \"csv\"; remove it or set \"format\": \"idx\"");
      s.csv = filePath(m_c.need(v, path, "csv", "the csv format needs the path of its CSV file"), child(path, "csv"));
    }
    return s;
  }

  void dataset(const Json& v, DatasetSpec& out) const {
    const std::string path = "dataset";
    m_c.object(v, path, kDatasetKeys, "an object with \"training\" (and \"validation\")");
    out.training = source(m_c.need(v, path, "training", "the data to train on"), "dataset.training");
    if (const Json* x = m_c.find(v, "validation")) out.validation = source(*x, "dataset.validation");
    if (const Json* x = m_c.find(v, "scale")) out.scale = m_c.number(*x, "dataset.scale", Bound{0, true});
    if (const Json* x = m_c.find(v, "shuffle")) out.shuffle = m_c.boolean(*x, "dataset.shuffle");
    if (const Json* x = m_c.find(v, "on_error")) out.onError = m_c.choice(*x, "dataset.on_error", {"error", "skip"});
  }

  void config(const Json& v, TrainingConfig& out) const {
    m_c.object(v, "config", kConfigKeys, "an object");
    if (const Json* x = m_c.find(v, "max_epoch")) out.maxEpoch = m_c.integer(*x, "config.max_epoch", 1);
    if (const Json* x = m_c.find(v, "batch_size")) out.batchSize = m_c.integer(*x, "config.batch_size", 1);
    if (const Json* x = m_c.find(v, "monitor_interval")) out.monitorInterval = m_c.integer(*x, "config.monitor_interval", 1);
    // Which devices can compute each is the training plan's business (Note [CPU bfloat16]).
    if (const Json* x = m_c.find(v, "precision")) out.precision = m_c.choice(*x, "config.precision", {"float", "half", "bfloat16"});
    if (const Json* x = m_c.find(v, "seed")) out.seed = m_c.nonNegativeInteger(*x, "config.seed");
    if (const Json* x = m_c.find(v, "deterministic")) out.deterministic = m_c.boolean(*x, "config.deterministic");
    if (const Json* x = m_c.find(v, "save_best")) out.saveBest = m_c.boolean(*x, "config.save_best");
    if (const Json* x = m_c.find(v, "augmentation")) augmentation(*x, out.augmentation);
  }

  // config.augmentation: every key optional, absent ones off.
  void augmentation(const Json& v, Augmentation& out) const {
    const std::string path = "config.augmentation";
    m_c.object(v, path, kAugmentationKeys, "an object such as {\"flip_horizontal\": true, \"crop_padding\": 4}");
    if (const Json* x = m_c.find(v, "flip_horizontal")) out.flipHorizontal = m_c.boolean(*x, child(path, "flip_horizontal"));
    if (const Json* x = m_c.find(v, "flip_vertical")) out.flipVertical = m_c.boolean(*x, child(path, "flip_vertical"));
    if (const Json* x = m_c.find(v, "crop_padding"))
      out.cropPadding = m_c.integer(*x, child(path, "crop_padding"), 0, kMaxCropPadding);
    if (const Json* x = m_c.find(v, "rotation_degrees"))
      out.rotationDegrees = rangedNumber(*x, child(path, "rotation_degrees"), 180, false, "degrees");
    if (const Json* x = m_c.find(v, "scale"))
      out.scale = rangedNumber(*x, child(path, "scale"), 1, true, "the largest relative change of size, such as 0.1 for ×0.9 to ×1.1");
    if (const Json* x = m_c.find(v, "shift"))
      out.shift = rangedNumber(*x, child(path, "shift"), 1, false, "a fraction of the width and height, such as 0.1");
    if (const Json* x = m_c.find(v, "brightness")) out.brightness = m_c.number(*x, child(path, "brightness"), Bound{0, false});
    if (const Json* x = m_c.find(v, "contrast")) out.contrast = m_c.number(*x, child(path, "contrast"), Bound{0, false});
  }

  void optimizer(const Json& v, OptimizerConfig& out) const {
    std::vector<std::string> keys = kOptimizerFixedKeys;
    const auto& hyper = solverHyperParameterNames();
    keys.insert(keys.end(), hyper.begin(), hyper.end());
    m_c.object(v, "optimizer", keys, "an object");
    if (const Json* x = m_c.find(v, "solver")) out.solver = m_c.choice(*x, "optimizer.solver", solverNames());
    for (const auto& name : hyper) {
      const Json* x = m_c.find(v, name);
      if (!x) continue;
      // Rates and eps must be positive; momentum, betas and decay may be 0. Which solver takes
      // which name is the optimizer module's check.
      const bool positive = name == "lr" || name == "alpha" || name == "eps";
      m_c.number(*x, "optimizer." + name, Bound{0, positive});
      out.hyper[name] = *x;
    }
    if (const Json* x = m_c.find(v, "weight_decay")) out.weightDecay = m_c.number(*x, "optimizer.weight_decay", Bound{0, false});
    if (const Json* x = m_c.find(v, "lr_multiplier")) out.lrMultiplier = m_c.number(*x, "optimizer.lr_multiplier", Bound{0, true});
    if (const Json* x = m_c.find(v, "lr_update_interval")) out.lrUpdateInterval = m_c.integer(*x, "optimizer.lr_update_interval", 1);
    if (const Json* x = m_c.find(v, "warmup_epochs")) out.warmupEpochs = m_c.number(*x, "optimizer.warmup_epochs", Bound{0, false});
    if (const Json* x = m_c.find(v, "lr_schedule"))
      out.lrSchedule = m_c.choice(*x, "optimizer.lr_schedule", {"none", "cosine", "step", "exponential"});
    if (const Json* x = m_c.find(v, "step_epochs")) out.scheduleParams["step_epochs"] = m_c.integer(*x, "optimizer.step_epochs", 1);
    if (const Json* x = m_c.find(v, "gamma")) out.scheduleParams["gamma"] = m_c.number(*x, "optimizer.gamma", Bound{0, true});
  }

  void parallel(const Json& v, ParallelConfig& out) const {
    m_c.object(v, "parallel", kParallelKeys, "an object");
    if (const Json* x = m_c.find(v, "devices")) {
      if (!x->is_array() || x->empty())
        m_c.fail("parallel.devices", format("expected a non-empty list of devices such as [\"cpu:0\"], got {}", shown(*x)));
      out.devices.clear();
      for (size_t i = 0; i < x->size(); ++i) {
        const std::string at = element("parallel.devices", i);
        const Json& d = (*x)[i];
        if (!d.is_string() || !isDeviceName(d.get_ref<const std::string&>()))
          m_c.fail(at, format("expected a device such as \"cpu:0\" or \"cuda:1\" (or, under mpirun, \"rank1/cpu:0\"), got {}", shown(d)));
        const auto previous = std::find(out.devices.begin(), out.devices.end(), d.get<std::string>());
        if (previous != out.devices.end())
          m_c.fail(at, format("device {} is listed twice (also at parallel.devices[{}])", shown(d), previous - out.devices.begin()));
        out.devices.push_back(d.get<std::string>());
      }
    }
    if (const Json* x = m_c.find(v, "worker_load")) {
      if (!x->is_array() || x->size() != out.devices.size())
        m_c.fail("parallel.worker_load", format("expected {} number(s), one per device in parallel.devices, got {}",
                                                out.devices.size(), shown(*x)));
      out.workerLoad.clear();
      for (size_t i = 0; i < x->size(); ++i)
        out.workerLoad.push_back(m_c.number((*x)[i], element("parallel.worker_load", i), Bound{0, false}));
      if (std::all_of(out.workerLoad.begin(), out.workerLoad.end(), [](double w) { return w == 0; }))
        m_c.fail("parallel.worker_load", "every load is 0: give at least one device a load > 0");
    }
    if (const Json* x = m_c.find(v, "lr_policy"))
      out.lrPolicy = m_c.choice(*x, "parallel.lr_policy", {"scale_lr", "keep_logical_batch", "none"});
    if (const Json* x = m_c.find(v, "threads_per_device"))
      out.threadsPerDevice = static_cast<int>(m_c.integer(*x, "parallel.threads_per_device", 0, 4096));
    if (const Json* x = m_c.find(v, "timeout_s")) out.timeoutS = m_c.number(*x, "parallel.timeout_s", Bound{0, true});
  }

 private:
  std::string nodeRef(const Json& link, const std::string& at, const char* key, const std::map<std::string, size_t>& ids,
                      const std::vector<std::string>& idList) const {
    const std::string path = child(at, key);
    const std::string id = m_c.text(m_c.need(link, at, key), path, "a node id");
    if (!ids.count(id)) {
      const std::string suggestion = closest(id, idList);
      m_c.fail(path, suggestion.empty() ? format("unknown node '{}': no node in network.nodes has this id", id)
                                        : format("unknown node '{}'; did you mean '{}'?", id, suggestion));
    }
    return id;
  }

  // A number in [0, max] (or [0, max) when maxExcluded); `what` says what it measures.
  double rangedNumber(const Json& v, const std::string& path, double max, bool maxExcluded, const char* what) const {
    const bool ok = v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() >= 0 &&
                    (maxExcluded ? v.get<double>() < max : v.get<double>() <= max);
    if (!ok) m_c.fail(path, format("expected a number in [0, {}{} ({}), got {}", max, maxExcluded ? ")" : "]", what, shown(v)));
    return v.get<double>();
  }

  std::string filePath(const Json& v, const std::string& path) const {
    const std::string raw = m_c.text(v, path, "a file path");
    const auto resolved = resolvePath(raw, m_baseDir);
    if (!resolved) m_c.fail(path, format("unknown variable in {}: only ${DATASETS} can be used", quoted(raw)));
    return *resolved;
  }


  const Checker& m_c;
  fs::path m_baseDir;
};

Project parseChecked(const Checker& c, const Json& json, const std::string& path, const ProjectParseOptions& options) {
  if (deeperThan(json, kMaxDepth)) c.fail("", format("the JSON is nested more than {} levels deep; this is not a project file", kMaxDepth));
  if (!json.is_object())
    c.fail("", format("expected a JSON object starting with \"format\": \"{}\", got {}", kFormatName, shown(json)));

  const Json& formatName = c.need(json, "", "format", format("a Netsmith project starts with \"format\": \"{}\"", kFormatName));
  if (formatName != kFormatName) c.fail("format", format("expected \"{}\", got {}", kFormatName, shown(formatName)));
  const Json& version = c.need(json, "", "version", format("this build reads project format version {}", kProjectFormatVersion));
  if (version.is_number() && Checker::isWhole(version.get<double>()) && version.get<double>() > kProjectFormatVersion)
    c.fail("version", format("this file was written by a newer Netsmith (project format version {}); this build reads version {}",
                             shown(version), kProjectFormatVersion));
  c.integer(version, "version", kProjectFormatVersion, kProjectFormatVersion);
  c.object(json, "", kTopKeys, "an object");

  Project p;
  const fs::path baseDir = folderOf(path);
  if (!path.empty()) p.path = fs::absolute(fs::path(path)).lexically_normal().string();
  const ProjectReader r(c, baseDir);
  if (const Json* x = c.find(json, "name")) {
    if (!x->is_string()) c.fail("name", format("expected a string, got {}", shown(*x)));
    p.name = x->get<std::string>();
  }
  r.network(c.need(json, "", "network", "the layers and their links"), p.network);
  r.dataset(c.need(json, "", "dataset", "the data to train on"), p.dataset);
  if (const Json* x = c.find(json, "config")) r.config(*x, p.config);
  if (const Json* x = c.find(json, "optimizer")) r.optimizer(*x, p.optimizer);
  if (const Json* x = c.find(json, "parallel")) r.parallel(*x, p.parallel);

  if (options.checkNetwork) {
    const auto problems = checkNetwork(p.network, OpRegistry::builtin());
    if (!problems.empty()) c.fail(problems.front().jsonPath, problems.front().message);
  }
  p.original = json;
  return p;
}

// ---------------------------------------------------------------------------------------------
// Writing

// Whole numbers are written without ".0" (positions, loads, scale 1).
OrderedJson numberJson(double d) {
  if (Checker::isWhole(d)) return static_cast<int64_t>(d);
  return d;
}

// The spelling to write for a stored absolute path: the user's own when it still names the same
// file seen from `baseDir` (keeps ${DATASETS} and relative paths through load → save).
std::string pathSpelling(const Project& p, const std::string& stored, const fs::path& baseDir,
                         std::initializer_list<const char*> where) {
  const Json* v = &p.original;
  for (const char* key : where) {
    if (!v->is_object()) return stored;
    const auto it = v->find(key);
    if (it == v->end()) return stored;
    v = &*it;
  }
  if (!v->is_string()) return stored;
  const auto resolved = resolvePath(v->get<std::string>(), baseDir);
  return resolved && *resolved == stored ? v->get<std::string>() : stored;
}

OrderedJson sourceJson(const Project& p, const DataSourceSpec& s, const char* which, const fs::path& baseDir) {
  OrderedJson j;
  j["format"] = s.format;
  if (s.format == "csv") {
    j["csv"] = pathSpelling(p, s.csv, baseDir, {"dataset", which, "csv"});
  } else {
    j["images"] = pathSpelling(p, s.images, baseDir, {"dataset", which, "images"});
    j["labels"] = pathSpelling(p, s.labels, baseDir, {"dataset", which, "labels"});
  }
  return j;
}

OrderedJson buildJson(const Project& p, const fs::path& baseDir) {
  OrderedJson j;
  j["format"] = kFormatName;
  j["version"] = kProjectFormatVersion;
  j["name"] = p.name;

  OrderedJson nodes = OrderedJson::array();
  for (const auto& n : p.network.nodes) {
    OrderedJson node;
    node["id"] = n.id;
    node["type"] = n.type;
    if (!n.params.is_null() && !(n.params.is_object() && n.params.empty())) node["params"] = OrderedJson(n.params);
    node["pos"] = {numberJson(n.pos[0]), numberJson(n.pos[1])};
    nodes.push_back(std::move(node));
  }
  OrderedJson links = OrderedJson::array();
  for (const auto& l : p.network.links) {
    OrderedJson link;
    link["from"] = l.from;
    link["to"] = l.to;
    if (l.port) link["port"] = *l.port;
    links.push_back(std::move(link));
  }
  j["network"] = {{"nodes", std::move(nodes)}, {"links", std::move(links)}};

  OrderedJson dataset;
  dataset["training"] = sourceJson(p, p.dataset.training, "training", baseDir);
  if (p.dataset.validation.present()) dataset["validation"] = sourceJson(p, p.dataset.validation, "validation", baseDir);
  dataset["scale"] = numberJson(p.dataset.scale);
  dataset["shuffle"] = p.dataset.shuffle;
  dataset["on_error"] = p.dataset.onError;
  j["dataset"] = std::move(dataset);

  OrderedJson config;
  config["max_epoch"] = p.config.maxEpoch;
  config["batch_size"] = p.config.batchSize;
  config["monitor_interval"] = p.config.monitorInterval;
  config["precision"] = p.config.precision;
  config["seed"] = p.config.seed;
  config["deterministic"] = p.config.deterministic;
  // Written only when off: files saved before the key existed (the samples) keep their text.
  if (!p.config.saveBest) config["save_best"] = false;
  // Only what is on: a project without augmentation keeps its text (an absent object is all off).
  if (const Augmentation& a = p.config.augmentation; a.enabled()) {
    OrderedJson augmentation;
    if (a.flipHorizontal) augmentation["flip_horizontal"] = true;
    if (a.flipVertical) augmentation["flip_vertical"] = true;
    if (a.cropPadding > 0) augmentation["crop_padding"] = a.cropPadding;
    if (a.rotationDegrees > 0) augmentation["rotation_degrees"] = numberJson(a.rotationDegrees);
    if (a.scale > 0) augmentation["scale"] = numberJson(a.scale);
    if (a.shift > 0) augmentation["shift"] = numberJson(a.shift);
    if (a.brightness > 0) augmentation["brightness"] = numberJson(a.brightness);
    if (a.contrast > 0) augmentation["contrast"] = numberJson(a.contrast);
    config["augmentation"] = std::move(augmentation);
  }
  j["config"] = std::move(config);

  OrderedJson optimizer;
  optimizer["solver"] = p.optimizer.solver;
  // Hyper-parameters in the order of solverHyperParameterNames() (alpha before beta1 ...).
  for (const auto& name : solverHyperParameterNames())
    if (p.optimizer.hyper.is_object() && p.optimizer.hyper.contains(name)) optimizer[name] = OrderedJson(p.optimizer.hyper.at(name));
  if (p.optimizer.hyper.is_object())
    for (const auto& [key, value] : p.optimizer.hyper.items())
      if (!optimizer.contains(key)) optimizer[key] = OrderedJson(value);
  optimizer["weight_decay"] = numberJson(p.optimizer.weightDecay);
  optimizer["lr_multiplier"] = numberJson(p.optimizer.lrMultiplier);
  optimizer["lr_update_interval"] = p.optimizer.lrUpdateInterval;
  optimizer["warmup_epochs"] = numberJson(p.optimizer.warmupEpochs);
  optimizer["lr_schedule"] = p.optimizer.lrSchedule;
  if (p.optimizer.scheduleParams.is_object())
    for (const auto& key : kScheduleKeys)
      if (p.optimizer.scheduleParams.contains(key)) optimizer[key] = OrderedJson(p.optimizer.scheduleParams.at(key));
  j["optimizer"] = std::move(optimizer);

  OrderedJson parallel;
  parallel["devices"] = p.parallel.devices;
  if (!p.parallel.workerLoad.empty()) {
    OrderedJson load = OrderedJson::array();
    for (double w : p.parallel.workerLoad) load.push_back(numberJson(w));
    parallel["worker_load"] = std::move(load);
  }
  parallel["lr_policy"] = p.parallel.lrPolicy;
  parallel["threads_per_device"] = p.parallel.threadsPerDevice;
  parallel["timeout_s"] = numberJson(p.parallel.timeoutS);
  j["parallel"] = std::move(parallel);
  return j;
}

std::string scalarText(const OrderedJson& v) { return v.dump(-1, ' ', false, OrderedJson::error_handler_t::replace); }

void writeCompact(const OrderedJson& v, std::string& out) {
  if (v.is_object()) {
    out += '{';
    bool first = true;
    for (const auto& [key, value] : v.items()) {
      out += first ? "" : ", ";
      first = false;
      out += scalarText(OrderedJson(key)) + ": ";
      writeCompact(value, out);
    }
    out += '}';
  } else if (v.is_array()) {
    out += '[';
    for (size_t i = 0; i < v.size(); ++i) {
      out += i ? ", " : "";
      writeCompact(v[i], out);
    }
    out += ']';
  } else {
    out += scalarText(v);
  }
}

// Sections and their fields one per line; a node, a link or a dataset source on one line each.
void writePretty(const OrderedJson& v, int depth, std::string& out) {
  const bool arrayOfObjects = v.is_array() && !v.empty() && v[0].is_object();
  const bool expand = !v.empty() && (v.is_object() || v.is_array()) && (depth < 2 || (depth == 2 && arrayOfObjects));
  if (!expand) {
    writeCompact(v, out);
    return;
  }
  const std::string pad(2 * (depth + 1), ' ');
  out += v.is_object() ? "{\n" : "[\n";
  bool first = true;
  if (v.is_object()) {
    for (const auto& [key, value] : v.items()) {
      out += first ? "" : ",\n";
      first = false;
      out += pad + scalarText(OrderedJson(key)) + ": ";
      writePretty(value, depth + 1, out);
    }
  } else {
    for (const auto& value : v) {
      out += first ? "" : ",\n";
      first = false;
      out += pad;
      writePretty(value, depth + 1, out);
    }
  }
  out += '\n';
  out.append(2 * static_cast<size_t>(depth), ' ');
  out += v.is_object() ? '}' : ']';
}

std::string systemError(int error) { return std::strerror(error); }

// Writes all of `text` to `fd`; false with errno set on failure.
bool writeAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Public API

const std::vector<std::string>& solverHyperParameterNames() {
  static const std::vector<std::string> names{"lr", "alpha", "momentum", "beta1", "beta2", "eps", "decay"};
  return names;
}

const std::vector<std::string>& solverNames() {
  static const std::vector<std::string> names{"Sgd", "Momentum", "Nesterov", "Adagrad", "RMSprop", "Adam", "AdamW"};
  return names;
}

std::string datasetsRoot() {
  for (const char* name : {"NETSMITH_DATASETS", "DATASETS"}) {
    const char* value = std::getenv(name);
    if (value && *value) return value;
  }
  return "/usr/share/datasets";
}

Project parseProject(const Json& json, const std::string& path, const ProjectParseOptions& options) {
  const Checker c(path);
  try {
    return parseChecked(c, json, path, options);
  } catch (const fs::filesystem_error& e) {
    c.fail("", e.what());
  } catch (const Json::exception& e) {
    // Every value is type-checked before it is read, so this is a bug; still the user's file
    // must not bring the program down.
    c.fail("", format("cannot read the project: {}", e.what()));
  }
}

Project parseProjectText(const std::string& text, const std::string& path, const ProjectParseOptions& options) {
  const Checker c(path);
  struct TooDeep {};
  Json json;
  try {
    // The parser itself does not recurse, but the value it builds is walked recursively later:
    // stop at the depth limit while parsing.
    json = Json::parse(
        text,
        [](int depth, Json::parse_event_t, Json&) {
          if (depth > kMaxDepth) throw TooDeep{};
          return true;
        },
        true, false);
  } catch (const TooDeep&) {
    c.fail("", format("not a project file: the JSON is nested more than {} levels deep", kMaxDepth));
  } catch (const Json::parse_error& e) {
    std::string what = e.what();
    const std::string marker = "parse error at ";
    if (const auto at = what.find(marker); at != std::string::npos) {
      what = what.substr(at + marker.size());
    } else if (const auto bracket = what.find("] "); bracket != std::string::npos) {
      what = what.substr(bracket + 2);
    }
    c.fail("", format("not valid JSON at {}", what));
  } catch (const Json::exception& e) {
    std::string what = e.what();
    if (const auto bracket = what.find("] "); bracket != std::string::npos) what = what.substr(bracket + 2);
    c.fail("", format("not valid JSON: {}", what));
  }
  return parseProject(json, path, options);
}

Project loadProject(const std::string& path, const ProjectParseOptions& options) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    if (ec && ec != std::errc::no_such_file_or_directory)
      throw Error(format("{}: cannot open the project file: {}", path, ec.message()));
    throw Error(format("{}: cannot open the project file: it does not exist", path));
  }
  if (fs::is_directory(status)) throw Error(format("{}: is a folder, not a project file", path));
  const auto size = fs::file_size(path, ec);
  if (!ec && size > kMaxFileBytes)
    throw Error(format("{}: is {} bytes, too large to be a project file", path, size));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(format("{}: cannot open the project file: {}", path, systemError(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error(format("{}: cannot read the project file: {}", path, systemError(errno)));
  return parseProjectText(text.str(), path, options);
}

std::string projectToText(const Project& p, const std::string& path) {
  const std::string& target = path.empty() ? p.path : path;
  std::string out;
  writePretty(buildJson(p, folderOf(target)), 0, out);
  out += '\n';
  return out;
}

Json projectToPortableJson(const Project& project) {
  Json j = projectToJson(project);
  auto fix = [&](const char* part, const DataSourceSpec& src) {
    if (!src.present()) return;
    Json& s = j["dataset"][part];
    if (!src.images.empty()) s["images"] = src.images;
    if (!src.labels.empty()) s["labels"] = src.labels;
    if (!src.csv.empty()) s["csv"] = src.csv;
  };
  fix("training", project.dataset.training);
  fix("validation", project.dataset.validation);
  return j;
}

Json projectToJson(const Project& p) { return Json(buildJson(p, folderOf(p.path))); }

void saveProject(const Project& p, const std::string& path) {
  NS_CHECK(!path.empty(), "cannot save the project: no file name given");
  const fs::path target = fs::absolute(fs::path(path)).lexically_normal();
  const fs::path folder = target.parent_path();
  const std::string text = projectToText(p, target.string());

  static std::atomic<unsigned> counter{0};
  const fs::path temp = folder / format(".{}.{}-{}.tmp", target.filename().string(), ::getpid(), counter++);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) throw Error(format("{}: cannot save the project: cannot create a file in {}: {}", path, folder.string(), systemError(errno)));

  const auto abandon = [&](const char* step) {
    const int error = errno;
    ::close(fd);
    ::unlink(temp.c_str());
    throw Error(format("{}: cannot save the project: {}: {}", path, step, systemError(error)));
  };
  // Keep the permissions of the file being replaced.
  struct stat old {};
  if (::stat(target.c_str(), &old) == 0 && S_ISREG(old.st_mode)) ::fchmod(fd, old.st_mode & 07777);
  if (!writeAll(fd, text)) abandon("writing failed");
  if (::fsync(fd) != 0) abandon("flushing to disk failed");
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    throw Error(format("{}: cannot save the project: closing failed: {}", path, systemError(error)));
  }
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    throw Error(format("{}: cannot save the project: cannot replace the file: {}", path, systemError(error)));
  }
  // The rename is durable only once the folder itself is flushed.
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace netsmith
