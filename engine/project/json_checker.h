// JsonChecker: checked reading of a project's JSON values (project_io.h), inside engine/project only.
// Every failure is a netsmith::Error "<file>: <json.path>: <what was expected, what was found>";
// the words of those sentences live here, so the sections of the file and the settings table
// (settings_table.h) say the same thing for the same kind of value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/project/project.h"

namespace netsmith::projectio {

// The candidate closest to `word`, for "did you mean" (engine/core/suggest.h); empty: none close.
std::string closest(const std::string& word, const std::vector<std::string>& candidates);
std::string quoted(const std::string& s);
std::string joinQuoted(const std::vector<std::string>& names);
// A value as shown after "got": compact JSON, cut short.
std::string shown(const Json& v);
// "config" + "seed" -> "config.seed"; "network.nodes" + 3 -> "network.nodes[3]".
std::string child(const std::string& path, const std::string& key);
std::string element(const std::string& path, size_t i);

struct Bound {
  double limit;
  bool strict;  // value > limit rather than >= limit
};

class JsonChecker {
 public:
  explicit JsonChecker(std::string file) : m_file(std::move(file)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const;

  // Requires an object whose keys are all in `known` (an unknown key: "did you mean", or the list).
  void object(const Json& v, const std::string& path, const std::vector<std::string>& known, const char* what) const;
  const Json* find(const Json& object, const std::string& key) const;
  const Json& need(const Json& object, const std::string& path, const std::string& key, const std::string& why = {}) const;

  // "an integer >= min", "an integer in [min, max]" (whole floats such as 5.0 are accepted).
  int64_t integer(const Json& v, const std::string& path, int64_t min, int64_t max = INT64_MAX) const;
  uint64_t nonNegativeInteger(const Json& v, const std::string& path) const;
  // A finite number, "a number > limit" / ">= limit" with a bound.
  double number(const Json& v, const std::string& path, std::optional<Bound> bound = std::nullopt) const;
  // A finite number in [min, max] or [min, max); `what` says what it measures.
  double rangedNumber(const Json& v, const std::string& path, double min, double max, bool maxExcluded,
                      const std::string& what) const;
  bool boolean(const Json& v, const std::string& path) const;
  std::string text(const Json& v, const std::string& path, const char* what = "a non-empty string") const;
  std::string choice(const Json& v, const std::string& path, const std::vector<std::string>& choices) const;

  static bool isWhole(double d);

 private:
  std::string m_file;
};

}  // namespace netsmith::projectio
