// Picks events of one kind out of a recorded events stream (tests read streams from the CLI
// and from in-process runs alike).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace netsmith::test {

inline std::vector<nlohmann::json> eventsOfKind(const std::vector<nlohmann::json>& events, const std::string& kind) {
  std::vector<nlohmann::json> out;
  for (const auto& e : events)
    if (e.value("event", "") == kind) out.push_back(e);
  return out;
}

inline nlohmann::json lastEventOfKind(const std::vector<nlohmann::json>& events, const std::string& kind) {
  const auto all = eventsOfKind(events, kind);
  return all.empty() ? nlohmann::json() : all.back();
}

}  // namespace netsmith::test
