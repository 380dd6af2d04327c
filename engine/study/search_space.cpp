#include "engine/study/search_space.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/core/error.h"
#include "engine/core/number_text.h"

namespace netsmith::study {

namespace {

const char* kindWord(SearchParameter::Kind kind) {
  switch (kind) {
    case SearchParameter::Kind::Choice: return "choice";
    case SearchParameter::Kind::Real: return "real";
    case SearchParameter::Kind::Integer: return "integer";
  }
  return "choice";
}

std::string numberText(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

// "KEY=REST" -> {KEY, REST}; `option` names the option in errors.
std::pair<std::string, std::string> splitKey(const std::string& spec, const char* option, const char* example) {
  const auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    NS_THROW("{}: expected {}, got '{}'", option, example, spec);
  return {spec.substr(0, eq), spec.substr(eq + 1)};
}

double parseNumber(const std::string& text, const std::string& what) {
  const LeadingNumber n = leadingNumber(text);
  NS_CHECK(n.whole(text), "{}: '{}' is not a number", what, text);
  return n.value;
}

}  // namespace

std::string SearchParameter::name() const {
  // network.BLOCK.FIELD keeps the block: "conv1.outmaps" says which layer.
  if (path.rfind("network.", 0) == 0) return path.substr(8);
  return path.substr(path.rfind('.') + 1);
}

std::string SearchParameter::describe() const {
  if (kind == Kind::Choice) {
    std::string list;
    for (const Json& c : choices) list += (list.empty() ? "" : ", ") + (c.is_string() ? c.get<std::string>() : c.dump());
    return "choice of " + list;
  }
  return format("{} {}..{}{}", kindWord(kind), numberText(low), numberText(high), log ? " (log)" : "");
}

// Integers: each value owns an equal share of the unit interval (of log space on a log range),
// [v, v + 1) scaled, so rounding down maps every share back to its value.
double SearchParameter::toUnit(double value) const {
  const bool integer = kind == Kind::Integer;
  const double top = integer ? high + 1 : high;
  const double v = integer ? value + 0.5 : value;
  const double lo = log ? std::log(low) : low, hi = log ? std::log(top) : top;
  if (hi <= lo) return 0.5;
  return std::clamp(((log ? std::log(std::max(v, low)) : v) - lo) / (hi - lo), 0.0, 1.0);
}

Json SearchParameter::fromUnit(double u) const {
  u = std::clamp(u, 0.0, 1.0);
  const bool integer = kind == Kind::Integer;
  const double top = integer ? high + 1 : high;
  const double x = log ? std::exp(std::log(low) + u * (std::log(top) - std::log(low))) : low + u * (top - low);
  if (integer) return static_cast<int64_t>(std::clamp(std::floor(x), low, high));
  return std::clamp(x, low, high);
}

std::optional<size_t> SearchParameter::choiceIndex(const Json& value) const {
  for (size_t i = 0; i < choices.size(); ++i)
    if (choices[i] == value) return i;
  return std::nullopt;
}

std::string SearchParameter::valueText(const Json& value) const {
  if (value.is_string()) return value.get<std::string>();
  // A sampled real gets 3 significant digits; a listed value reads as it was given.
  if (kind == Kind::Real && value.is_number_float()) return numberText(value.get<double>());
  return value.dump();
}

Json SearchParameter::toJson() const {
  Json j = {{"path", path}, {"kind", kindWord(kind)}};
  if (kind == Kind::Choice) {
    j["choices"] = choices;
  } else {
    j["low"] = low;
    j["high"] = high;
    j["log"] = log;
  }
  return j;
}

SearchParameter SearchParameter::fromJson(const Json& j, const std::string& where) {
  NS_CHECK(j.is_object(), "{}: expected an object with path and kind, got {}", where, j.dump());
  SearchParameter p;
  const auto text = [&](const char* key) {
    NS_CHECK(j.contains(key) && j[key].is_string(), "{}.{}: expected a string", where, key);
    return j[key].get<std::string>();
  };
  p.path = text("path");
  const std::string kind = text("kind");
  if (kind == "choice") {
    p.kind = Kind::Choice;
    NS_CHECK(j.contains("choices") && j["choices"].is_array() && !j["choices"].empty(),
             "{}.choices: expected a non-empty array", where);
    p.choices = j["choices"].get<std::vector<Json>>();
    return p;
  }
  NS_CHECK(kind == "real" || kind == "integer", "{}.kind: expected choice, real or integer, got '{}'", where, kind);
  p.kind = kind == "real" ? Kind::Real : Kind::Integer;
  for (const char* key : {"low", "high"})
    NS_CHECK(j.contains(key) && j[key].is_number(), "{}.{}: expected a number", where, key);
  p.low = j["low"].get<double>();
  p.high = j["high"].get<double>();
  p.log = j.value("log", false);
  NS_CHECK(p.low <= p.high && (!p.log || p.low > 0), "{}: expected low <= high (and low > 0 on a log range), got {}..{}",
           where, p.low, p.high);
  return p;
}

SearchParameter parseChoiceOption(const std::string& spec) {
  const auto [key, rest] = splitKey(spec, "--set", "KEY=V1,V2,... such as optimizer.alpha=0.001,0.003");
  SearchParameter p;
  p.path = key;
  size_t start = 0;
  while (start <= rest.size()) {
    const size_t comma = std::min(rest.find(',', start), rest.size());
    const std::string text = rest.substr(start, comma - start);
    NS_CHECK(!text.empty(), "--set {}: an empty value in '{}'", key, spec);
    Json value = Json::parse(text, nullptr, false);
    if (value.is_discarded()) value = text;
    p.choices.push_back(value);
    start = comma + 1;
  }
  return p;
}

SearchParameter parseRangeOption(const std::string& spec) {
  const char* example = "KEY=LOW..HIGH[:log][:int] such as optimizer.alpha=1e-5..1e-1:log";
  const auto [key, rest] = splitKey(spec, "--range", example);
  SearchParameter p;
  p.path = key;
  p.kind = SearchParameter::Kind::Real;
  std::string bounds = rest;
  for (;;) {
    const auto colon = bounds.rfind(':');
    if (colon == std::string::npos) break;
    const std::string flag = bounds.substr(colon + 1);
    if (flag == "log") p.log = true;
    else if (flag == "int") p.kind = SearchParameter::Kind::Integer;
    else NS_THROW("--range {}: unknown flag ':{}' (expected :log or :int)", key, flag);
    bounds = bounds.substr(0, colon);
  }
  const auto dots = bounds.find("..");
  NS_CHECK(dots != std::string::npos, "--range: expected {}, got '{}'", example, spec);
  const std::string what = "--range " + key;
  p.low = parseNumber(bounds.substr(0, dots), what);
  p.high = parseNumber(bounds.substr(dots + 2), what);
  NS_CHECK(p.low < p.high, "{}: the low end {} must be below the high end {}", what, p.low, p.high);
  NS_CHECK(!p.log || p.low > 0, "{}: a log range needs a low end above 0, got {}", what, p.low);
  if (p.kind == SearchParameter::Kind::Integer)
    NS_CHECK(std::floor(p.low) == p.low && std::floor(p.high) == p.high, "{}: an integer range needs whole ends, got {}..{}",
             what, p.low, p.high);
  return p;
}

std::string trialLabel(const std::vector<SearchParameter>& parameters, const TrialValues& values) {
  std::string label;
  for (size_t i = 0; i < parameters.size() && i < values.size(); ++i) {
    if (!label.empty()) label += ',';
    label += parameters[i].name() + "=" + parameters[i].valueText(values[i]);
  }
  return label;
}

}  // namespace netsmith::study
