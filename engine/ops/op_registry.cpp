#include "engine/ops/op_registry.h"

#include <algorithm>

#include "engine/core/error.h"

namespace netsmith {

namespace {
// Levenshtein distance, to suggest the layer a user probably meant.
size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      const bool same = std::tolower(a[i - 1]) == std::tolower(b[j - 1]);
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (same ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}
}  // namespace

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
  const OpSchema* best = nullptr;
  size_t bestDistance = 4;
  for (const auto& s : m_schemas) {
    const size_t d = editDistance(name, s->name);
    const bool prefix = s->name.size() > name.size() && !name.empty() &&
                        std::equal(name.begin(), name.end(), s->name.begin(),
                                   [](char x, char y) { return std::tolower(x) == std::tolower(y); });
    if (d < bestDistance || (prefix && !best)) {
      best = s.get();
      bestDistance = prefix ? 0 : d;
    }
  }
  if (best) NS_THROW("unknown layer type '{}'; did you mean '{}'?", name, best->name);
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
