// The sections of a project file read and checked (project_io_detail.h): network, dataset and
// parallel here; config and optimizer by the settings table (project_settings.cpp).
#include <algorithm>
#include <cmath>
#include <map>

#include "engine/core/error.h"
#include "engine/op_interface/op_registry.h"
#include "engine/project/device_name.h"
#include "engine/project/graph.h"
#include "engine/project/project_io_detail.h"

namespace netsmith::projectio {

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kTopKeys{"format", "version", "name", "network", "dataset", "config", "optimizer", "parallel"};
const std::vector<std::string> kNetworkKeys{"nodes", "links"};
const std::vector<std::string> kNodeKeys{"id", "type", "params", "frozen", "lr_mult", "pos"};
const std::vector<std::string> kLinkKeys{"from", "to", "port"};
const std::vector<std::string> kDatasetKeys{"training", "validation", "scale", "shuffle", "on_error", "class_names"};
const std::vector<std::string> kSourceKeys{"format", "images", "labels", "csv"};
const std::vector<std::string> kParallelKeys{"devices", "worker_load", "lr_policy", "threads_per_device", "timeout_s"};

}  // namespace

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

namespace {

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
  ProjectReader(const JsonChecker& c, fs::path baseDir) : m_c(c), m_baseDir(std::move(baseDir)) {}

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
      if (const Json* frozen = m_c.find(n, "frozen")) node.frozen = m_c.boolean(*frozen, child(at, "frozen"));
      if (const Json* mult = m_c.find(n, "lr_mult")) node.lrMult = m_c.number(*mult, child(at, "lr_mult"), Bound{0, false});
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
    if (const Json* x = m_c.find(v, "class_names")) {
      if (!x->is_array() || x->empty())
        m_c.fail("dataset.class_names", format("expected a list of class names such as [\"cat\", \"dog\"], got {}", shown(*x)));
      std::vector<std::string> names;
      for (size_t i = 0; i < x->size(); ++i)
        names.push_back(m_c.text((*x)[i], element("dataset.class_names", i), "a class name (a non-empty string)"));
      out.training.classNames = names;
      out.validation.classNames = names;
    }
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

  std::string filePath(const Json& v, const std::string& path) const {
    const std::string raw = m_c.text(v, path, "a file path");
    const auto resolved = resolvePath(raw, m_baseDir);
    if (!resolved) m_c.fail(path, format("unknown variable in {}: only ${DATASETS} can be used", quoted(raw)));
    return *resolved;
  }


  const JsonChecker& m_c;
  fs::path m_baseDir;
};

}  // namespace

Project parseChecked(const JsonChecker& c, const Json& json, const std::string& path, const ProjectParseOptions& options) {
  if (deeperThan(json, kMaxDepth)) c.fail("", format("the JSON is nested more than {} levels deep; this is not a project file", kMaxDepth));
  if (!json.is_object())
    c.fail("", format("expected a JSON object starting with \"format\": \"{}\", got {}", kFormatName, shown(json)));

  const Json& formatName = c.need(json, "", "format", format("a Netsmith project starts with \"format\": \"{}\"", kFormatName));
  if (formatName != kFormatName) c.fail("format", format("expected \"{}\", got {}", kFormatName, shown(formatName)));
  const Json& version = c.need(json, "", "version", format("this build reads project format version {}", kProjectFormatVersion));
  if (version.is_number() && JsonChecker::isWhole(version.get<double>()) && version.get<double>() > kProjectFormatVersion)
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
  if (const Json* x = c.find(json, "config")) readConfigSection(c, *x, p);
  if (const Json* x = c.find(json, "optimizer")) readOptimizerSection(c, *x, p);
  if (const Json* x = c.find(json, "parallel")) r.parallel(*x, p.parallel);

  if (options.checkNetwork) {
    const auto problems = checkNetwork(p.network, OpRegistry::builtin());
    if (!problems.empty()) c.fail(problems.front().jsonPath, problems.front().message);
  }
  p.original = json;
  return p;
}

}  // namespace netsmith::projectio
