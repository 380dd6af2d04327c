// The canonical JSON of a project and its text (project_io_detail.h); the config and optimizer
// sections come from the settings table (project_settings.cpp).
#include "engine/project/project_io_detail.h"

namespace netsmith::projectio {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// Writing

// Whole numbers are written without ".0" (positions, loads, scale 1).
OrderedJson numberJson(double d) {
  if (JsonChecker::isWhole(d)) return static_cast<int64_t>(d);
  return d;
}

namespace {

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

}  // namespace

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
    if (n.frozen) node["frozen"] = true;                     // Note [Frozen layers]: only when set
    if (n.lrMult != 1.0) node["lr_mult"] = numberJson(n.lrMult);
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
  if (!p.dataset.training.classNames.empty()) dataset["class_names"] = p.dataset.training.classNames;
  j["dataset"] = std::move(dataset);

  j["config"] = configSectionJson(p, baseDir);
  j["optimizer"] = optimizerSectionJson(p);

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

namespace {

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

}  // namespace

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


}  // namespace netsmith::projectio
