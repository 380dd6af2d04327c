#include "engine/ops/op_registry.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/suggest.h"

namespace netsmith {


void OpRegistry::add(OpSchema schema) {
  NS_CHECK(!find(schema.name), "layer type '{}' is registered twice", schema.name);
  NS_CHECK(static_cast<bool>(schema.inferShape), "layer type '{}' has no shape inference", schema.name);
  m_schemas.push_back(std::make_unique<OpSchema>(std::move(schema)));
}

const OpSchema* OpRegistry::find(std::string_view name) const {
  for (const auto& s : m_schemas)
    if (s->name == name) return s.get();
  return nullptr;
}

OpSchema* OpRegistry::findMutable(std::string_view name) {
  for (auto& s : m_schemas)
    if (s->name == name) return s.get();
  return nullptr;
}

const OpSchema& OpRegistry::get(std::string_view name) const {
  if (const OpSchema* s = find(name)) return *s;
  std::vector<std::string> names;
  for (const auto& s : m_schemas) names.push_back(s->name);
  const std::string best = closestName(std::string(name), names);
  if (!best.empty()) NS_THROW("unknown layer type '{}'; did you mean '{}'?", name, best);
  NS_THROW("unknown layer type '{}'; `netsmith-cli ops` lists the known ones", name);
}

std::vector<const OpSchema*> OpRegistry::all() const {
  std::vector<const OpSchema*> out;
  for (const auto& s : m_schemas) out.push_back(s.get());
  std::sort(out.begin(), out.end(), [](const OpSchema* a, const OpSchema* b) {
    return a->category != b->category ? a->category < b->category : a->name < b->name;
  });
  return out;
}

const OpRegistry& OpRegistry::builtin() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    registerBuiltinOps(r);
    return r;
  }();
  return registry;
}

}  // namespace netsmith
