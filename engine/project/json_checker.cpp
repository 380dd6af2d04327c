#include "engine/project/json_checker.h"

#include <algorithm>
#include <climits>
#include <cmath>

#include "engine/core/error.h"
#include "engine/core/suggest.h"

namespace netsmith::projectio {

std::string closest(const std::string& word, const std::vector<std::string>& candidates) {
  return closestName(word, candidates);
}

std::string quoted(const std::string& s) { return Json(s).dump(-1, ' ', false, Json::error_handler_t::replace); }

std::string joinQuoted(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + quoted(names[i]);
  return s;
}

std::string shown(const Json& v) {
  std::string s = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (s.size() > 80) s = s.substr(0, 72) + " ...";
  return s;
}

std::string child(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }
std::string element(const std::string& path, size_t i) { return format("{}[{}]", path, i); }

void JsonChecker::fail(const std::string& path, const std::string& what) const {
  std::string message = m_file.empty() ? std::string() : m_file + ": ";
  if (!path.empty()) message += path + ": ";
  throw Error(message + what);
}

void JsonChecker::object(const Json& v, const std::string& path, const std::vector<std::string>& known,
                         const char* what) const {
  if (!v.is_object()) fail(path, format("expected {}, got {}", what, shown(v)));
  for (const auto& [key, value] : v.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    const std::string suggestion = closest(key, known);
    if (!suggestion.empty()) fail(child(path, key), format("unknown key; did you mean {}?", suggestion));
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    fail(child(path, key), format("unknown key (known keys here: {})", list));
  }
}

const Json* JsonChecker::find(const Json& object, const std::string& key) const {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

const Json& JsonChecker::need(const Json& object, const std::string& path, const std::string& key,
                              const std::string& why) const {
  if (const Json* v = find(object, key)) return *v;
  fail(child(path, key), why.empty() ? "required key is missing" : "required key is missing (" + why + ")");
}

int64_t JsonChecker::integer(const Json& v, const std::string& path, int64_t min, int64_t max) const {
  const auto expected = [&] {
    if (min == max) return format("{}", min);
    if (max != INT64_MAX) return format("an integer in [{}, {}]", min, max);
    return format("an integer >= {}", min);
  };
  int64_t value = 0;
  if (v.is_number_unsigned()) {
    if (v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) fail(path, format("expected {}, got {}", expected(), shown(v)));
    value = static_cast<int64_t>(v.get<uint64_t>());
  } else if (v.is_number_integer()) {
    value = v.get<int64_t>();
  } else if (v.is_number_float() && isWhole(v.get<double>())) {
    value = static_cast<int64_t>(v.get<double>());
  } else {
    fail(path, format("expected {}, got {}", expected(), shown(v)));
  }
  if (value < min || value > max) fail(path, format("expected {}, got {}", expected(), shown(v)));
  return value;
}

uint64_t JsonChecker::nonNegativeInteger(const Json& v, const std::string& path) const {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return static_cast<uint64_t>(v.get<int64_t>());
  if (v.is_number_float() && isWhole(v.get<double>()) && v.get<double>() >= 0) return static_cast<uint64_t>(v.get<double>());
  fail(path, format("expected a non-negative integer, got {}", shown(v)));
}

double JsonChecker::number(const Json& v, const std::string& path, std::optional<Bound> bound) const {
  const std::string expected =
      bound ? format("a number {} {}", bound->strict ? ">" : ">=", bound->limit) : std::string("a number");
  if (!v.is_number() || !std::isfinite(v.get<double>())) fail(path, format("expected {}, got {}", expected, shown(v)));
  const double d = v.get<double>();
  if (bound && (bound->strict ? !(d > bound->limit) : !(d >= bound->limit)))
    fail(path, format("expected {}, got {}", expected, shown(v)));
  return d;
}

double JsonChecker::rangedNumber(const Json& v, const std::string& path, double min, double max, bool maxExcluded,
                                 const std::string& what) const {
  const bool ok = v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() >= min &&
                  (maxExcluded ? v.get<double>() < max : v.get<double>() <= max);
  if (!ok)
    fail(path, format("expected a number in [{}, {}{}{}, got {}", min, max, maxExcluded ? ")" : "]",
                      what.empty() ? std::string() : " (" + what + ")", shown(v)));
  return v.get<double>();
}

bool JsonChecker::boolean(const Json& v, const std::string& path) const {
  if (!v.is_boolean()) fail(path, format("expected true or false, got {}", shown(v)));
  return v.get<bool>();
}

std::string JsonChecker::text(const Json& v, const std::string& path, const char* what) const {
  if (!v.is_string() || v.get_ref<const std::string&>().empty()) fail(path, format("expected {}, got {}", what, shown(v)));
  return v.get<std::string>();
}

std::string JsonChecker::choice(const Json& v, const std::string& path, const std::vector<std::string>& choices) const {
  const std::string expected = choices.size() == 1   ? quoted(choices[0])
                               : choices.size() == 2 ? quoted(choices[0]) + " or " + quoted(choices[1])
                                                     : "one of " + joinQuoted(choices);
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (std::find(choices.begin(), choices.end(), s) != choices.end()) return s;
    const std::string suggestion = closest(s, choices);
    if (!suggestion.empty()) fail(path, format("expected {}, got {}; did you mean {}?", expected, shown(v), quoted(suggestion)));
  }
  fail(path, format("expected {}, got {}", expected, shown(v)));
}

bool JsonChecker::isWhole(double d) { return std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15; }

}  // namespace netsmith::projectio
