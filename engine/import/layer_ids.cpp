#include "engine/import/layer_ids.h"

#include <cctype>

#include "engine/core/error.h"

namespace netsmith {

std::string LayerIds::unique(const std::string& name) {
  std::string id;
  for (char ch : name) {
    const bool keep = std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == '-';
    if (keep) id += ch;
    else if (!id.empty() && id.back() != '_') id += '_';
  }
  while (!id.empty() && id.back() == '_') id.pop_back();
  if (id.empty()) id = "node";
  std::string candidate = id;
  for (int k = 2; m_taken.count(candidate); ++k) candidate = format("{}_{}", id, k);
  m_taken.insert(candidate);
  return candidate;
}

}  // namespace netsmith
