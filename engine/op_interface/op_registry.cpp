#include "engine/op_interface/op_registry.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/suggest.h"

namespace netsmith {

void OpRegistry::add(OpSchema schema) {
  NS_CHECK(!find(schema.name), "layer type '{}' is registered twice", schema.name);
  for (const std::string& alias : schema.aliases)
    NS_CHECK(alias != schema.name && !find(alias), "layer type '{}': its alias '{}' is already a layer type name",
             schema.name, alias);
  NS_CHECK(static_cast<bool>(schema.inferShape), "layer type '{}' has no shape inference", schema.name);
  // Note [Output head]: a loss says what its prediction means; nothing else guesses it from the name.
  NS_CHECK(schema.isLoss() == (schema.prediction != LossPrediction::None),
           "layer type '{}': {}", schema.name,
           schema.isLoss() ? "a loss must declare what its prediction means (OpSchema::prediction)"
                           : "only a loss declares OpSchema::prediction");
  m_schemas.push_back(std::make_unique<OpSchema>(std::move(schema)));
}

namespace {

bool namedBy(const OpSchema& s, std::string_view name) {
  return s.name == name || std::find(s.aliases.begin(), s.aliases.end(), name) != s.aliases.end();
}

}  // namespace

const OpSchema* OpRegistry::find(std::string_view name) const {
  for (const auto& s : m_schemas)
    if (namedBy(*s, name)) return s.get();
  return nullptr;
}

OpSchema* OpRegistry::findMutable(std::string_view name) {
  for (auto& s : m_schemas)
    if (namedBy(*s, name)) return s.get();
  return nullptr;
}

const OpSchema& OpRegistry::get(std::string_view name) const {
  if (const OpSchema* s = find(name)) return *s;
  std::vector<std::string> names;
  for (const auto& s : m_schemas) {
    names.push_back(s->name);
    names.insert(names.end(), s->aliases.begin(), s->aliases.end());
  }
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
