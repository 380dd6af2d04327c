#include "engine/protocol/initial_parameters_report.h"

#include "engine/core/error.h"
#include "engine/core/shape.h"

namespace netsmith::protocol {
namespace {

std::string parenthesizedShape(const std::vector<int64_t>& shape) { return format("({})", shapeToString(shape)); }

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

Json blobList(const std::vector<std::string>& names) { return names; }

}  // namespace

std::string InitialParametersReport::Layer::status() const {
  if (!reshaped.empty()) return "reinitialized";
  if (loaded.empty()) return "new";
  return fresh.empty() ? "loaded" : "partial";
}

int64_t InitialParametersReport::loadedBlobs() const {
  int64_t n = 0;
  for (const Layer& l : layers) n += static_cast<int64_t>(l.loaded.size());
  return n;
}
int64_t InitialParametersReport::newBlobs() const {
  int64_t n = 0;
  for (const Layer& l : layers) n += static_cast<int64_t>(l.fresh.size());
  return n;
}
int64_t InitialParametersReport::reshapedBlobs() const {
  int64_t n = 0;
  for (const Layer& l : layers) n += static_cast<int64_t>(l.reshaped.size());
  return n;
}

std::string InitialParametersReport::summary() const {
  std::vector<std::string> fresh, reshaped;
  for (const Layer& l : layers) {
    if (l.status() == "new") fresh.push_back(l.id);
    for (const std::string& b : l.fresh)
      if (l.status() != "new") fresh.push_back(l.id + "/" + b);
    for (const Reshaped& r : l.reshaped) reshaped.push_back(l.id + "/" + r.blob);
  }
  std::string s = format("Initial parameters from {}: {} blob(s) loaded", file, loadedBlobs());
  s += newBlobs() ? format(", {} new ({})", newBlobs(), joined(fresh)) : ", 0 new";
  s += reshapedBlobs() ? format(", {} re-initialized for another shape ({})", reshapedBlobs(), joined(reshaped))
                       : ", 0 re-initialized";
  s += format(", {} unused", unused.size());
  return s;
}

std::vector<std::string> InitialParametersReport::lines() const {
  std::vector<std::string> out{summary()};
  for (const Layer& l : layers) {
    const std::string status = l.status();
    if (status == "loaded") continue;
    if (status == "new") {
      out.push_back(format("  {} ({}): new, not in the file: initialized ({})", l.id, l.type, joined(l.fresh)));
      continue;
    }
    std::string line = format("  {} ({}):", l.id, l.type);
    if (!l.loaded.empty()) line += format(" loaded {};", joined(l.loaded));
    for (const Reshaped& r : l.reshaped)
      line += format(" {} re-initialized: the network's shape is {}, the file's {};", r.blob, parenthesizedShape(r.shape),
                     parenthesizedShape(r.fileShape));
    if (!l.fresh.empty()) line += format(" new {};", joined(l.fresh));
    line.pop_back();
    out.push_back(line);
  }
  for (const Unused& u : unused)
    out.push_back(format("  {} {}: in the file, but no layer of the network has it (unused)", u.name, parenthesizedShape(u.shape)));
  return out;
}

Json InitialParametersReport::toJson() const {
  Json layerList = Json::array();
  for (const Layer& l : layers) {
    Json reshapedList = Json::array();
    for (const Reshaped& r : l.reshaped)
      reshapedList.push_back({{"blob", r.blob}, {"shape", r.shape}, {"file_shape", r.fileShape}});
    layerList.push_back({{"id", l.id},
                         {"type", l.type},
                         {"status", l.status()},
                         {"loaded", blobList(l.loaded)},
                         {"new", blobList(l.fresh)},
                         {"reinitialized", reshapedList}});
  }
  Json unusedList = Json::array();
  for (const Unused& u : unused) unusedList.push_back({{"name", u.name}, {"shape", u.shape}});
  return {{"source", source},
          {"file", file},
          {"loaded", loadedBlobs()},
          {"new", newBlobs()},
          {"reinitialized", reshapedBlobs()},
          {"layers", layerList},
          {"unused", unusedList},
          {"message", summary()}};
}

InitialParametersReport InitialParametersReport::fromJson(const Json& json, const Where& where) {
  const FieldReader o(json, where);
  InitialParametersReport r;
  r.source = o.text("source");
  r.file = o.text("file");
  o.forEachObject("layers", [&](const FieldReader& l) {
    Layer layer;
    layer.id = l.text("id");
    layer.type = l.text("type");
    layer.loaded = l.texts("loaded");
    layer.fresh = l.texts("new");
    l.forEachObject("reinitialized", [&](const FieldReader& b) {
      layer.reshaped.push_back({b.text("blob"), b.integers("shape"), b.integers("file_shape")});
    });
    r.layers.push_back(std::move(layer));
  });
  o.forEachObject("unused", [&](const FieldReader& u) { r.unused.push_back({u.text("name"), u.integers("shape")}); });
  return r;
}

Json InitialParametersEvent::toJson() const {
  Json j = report.toJson();
  j["event"] = kName;
  return j;
}

InitialParametersEvent InitialParametersEvent::fromJson(const Json& json) {
  return {InitialParametersReport::fromJson(json, Where{format("{} event", kName), {}})};
}

}  // namespace netsmith::protocol
