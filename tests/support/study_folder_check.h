// Reading a study's folder from a test (Note [Studies], engine/study/study_folder.h): the one
// "<time>-sweep" folder a sweep made under PROJECT.runs, and its log's lines of one event.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace netsmith::test {

// The study folder under `runs`; empty when there is none or more than one.
inline std::filesystem::path onlyStudyFolder(const std::filesystem::path& runs) {
  std::vector<std::filesystem::path> found;
  for (const auto& e : std::filesystem::directory_iterator(runs))
    if (e.path().filename().string().ends_with("-sweep")) found.push_back(e.path());
  return found.size() == 1 ? found[0] : std::filesystem::path();
}

// trials.jsonl's lines whose "event" is `event`, in order (a line still being written is skipped).
inline std::vector<nlohmann::json> logLines(const std::filesystem::path& study, const std::string& event) {
  std::vector<nlohmann::json> out;
  std::ifstream in(study / "trials.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object() && j.value("event", "") == event) out.push_back(j);
  }
  return out;
}

}  // namespace netsmith::test
