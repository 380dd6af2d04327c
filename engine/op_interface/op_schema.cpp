#include "engine/op_interface/op_schema.h"

#include <cmath>

#include "engine/core/error.h"

namespace netsmith {

Initializer Initializer::glorotUniform(int64_t inmapsTimesKernel, int64_t outmaps) {
  const float limit = static_cast<float>(std::sqrt(6.0 / static_cast<double>(inmapsTimesKernel + outmaps)));
  return uniform(-limit, limit);
}

const ParamSpec* OpSchema::findParam(const std::string& name) const {
  for (const auto& p : params)
    if (p.name == name) return &p;
  return nullptr;
}

const char* paramTypeName(ParamType type) {
  switch (type) {
    case ParamType::Int: return "int";
    case ParamType::Float: return "float";
    case ParamType::Bool: return "bool";
    case ParamType::Ints: return "ints";
    case ParamType::String: return "string";
  }
  return "?";
}

namespace {

std::string rangeText(const ParamSpec& spec) {
  if (spec.min && spec.max) return format(" in [{}, {}]", *spec.min, *spec.max);
  if (spec.min) {
    if (*spec.min == 1 && spec.type != ParamType::Float) return " >= 1";
    return format(" >= {}", *spec.min);
  }
  if (spec.max) return format(" <= {}", *spec.max);
  return "";
}

bool inRange(const ParamSpec& spec, double v) {
  return (!spec.min || v >= *spec.min) && (!spec.max || v <= *spec.max);
}

// What a value must be, in words, for error messages.
std::string expectation(const ParamSpec& spec) {
  switch (spec.type) {
    case ParamType::Int: return "an integer" + rangeText(spec);
    case ParamType::Float: return "a number" + rangeText(spec);
    case ParamType::Bool: return "true or false";
    case ParamType::String: {
      if (spec.choices.empty()) return "a string";
      std::string s = "one of";
      for (size_t i = 0; i < spec.choices.size(); ++i) s += (i ? ", \"" : " \"") + spec.choices[i] + "\"";
      return s;
    }
    case ParamType::Ints: {
      const bool positive = spec.min && *spec.min == 1 && !spec.max;
      const bool nonNegative = spec.min && *spec.min == 0 && !spec.max;
      const char* kind = positive ? "positive integers" : nonNegative ? "non-negative integers" : "integers";
      std::string count = spec.length > 0 ? std::to_string(spec.length) : "1 or more";
      std::string s = count + " " + kind;
      if (!positive && !nonNegative) s += rangeText(spec);
      return s;
    }
  }
  return "?";
}

// Integers of layer parameters stay within 32 bits, so shape arithmetic never overflows.
constexpr double kLargestInteger = 2147483647.0;

bool isInteger(const Json& v) {
  if (!v.is_number()) return false;
  const double d = v.get<double>();
  return std::isfinite(d) && d == std::floor(d) && std::fabs(d) <= kLargestInteger;
}

Json checkValue(const ParamSpec& spec, const Json& v, const std::string& path) {
  const auto fail = [&] { NS_THROW("{}: expected {}, got {}", path, expectation(spec), v.dump()); };
  switch (spec.type) {
    case ParamType::Int:
      if (!isInteger(v) || !inRange(spec, v.get<double>())) fail();
      return Json(static_cast<int64_t>(v.get<double>()));
    case ParamType::Float:
      if (!v.is_number() || !std::isfinite(v.get<double>()) || !inRange(spec, v.get<double>())) fail();
      return Json(v.get<double>());
    case ParamType::Bool:
      if (!v.is_boolean()) fail();
      return v;
    case ParamType::String: {
      if (!v.is_string()) fail();
      if (!spec.choices.empty()) {
        bool ok = false;
        for (const auto& c : spec.choices) ok = ok || c == v.get<std::string>();
        if (!ok) fail();
      }
      return v;
    }
    case ParamType::Ints: {
      if (!v.is_array() || v.empty()) fail();
      if (spec.length > 0 && static_cast<int>(v.size()) != spec.length) fail();
      Json out = Json::array();
      for (const auto& e : v) {
        if (!isInteger(e) || !inRange(spec, e.get<double>())) fail();
        out.push_back(static_cast<int64_t>(e.get<double>()));
      }
      return out;
    }
  }
  fail();
  return {};
}

}  // namespace

Json validateParams(const OpSchema& schema, const Json& given, const std::string& jsonPath) {
  NS_CHECK(given.is_null() || given.is_object(), "{}: expected an object of {} parameters, got {}", jsonPath,
           schema.name, given.dump());
  Json out = Json::object();
  if (given.is_object()) {
    for (const auto& [key, value] : given.items()) {
      if (!schema.findParam(key)) {
        std::string known;
        for (const auto& p : schema.params) known += (known.empty() ? "" : ", ") + p.name;
        NS_THROW("{}.{}: unknown parameter of {} (known: {})", jsonPath, key, schema.name,
                 known.empty() ? "none" : known);
      }
    }
  }
  for (const auto& spec : schema.params) {
    const std::string path = jsonPath + "." + spec.name;
    if (given.is_object() && given.contains(spec.name)) {
      out[spec.name] = checkValue(spec, given.at(spec.name), path);
    } else {
      NS_CHECK(!spec.defaultValue.is_null(), "{}: required parameter of {} is missing ({}: expected {})", path,
               schema.name, spec.help, expectation(spec));
      out[spec.name] = spec.defaultValue;
    }
  }
  return out;
}

Json schemaToJson(const OpSchema& schema) {
  Json params = Json::array();
  for (const auto& p : schema.params) {
    Json j = {{"name", p.name}, {"type", paramTypeName(p.type)}, {"default", p.defaultValue}, {"help", p.help}};
    if (p.min) j["min"] = *p.min;
    if (p.max) j["max"] = *p.max;
    if (p.length) j["length"] = p.length;
    if (!p.choices.empty()) j["choices"] = p.choices;
    params.push_back(std::move(j));
  }
  Json backends = Json::array();
  for (const auto& [key, factory] : schema.kernels) backends.push_back(key);
  return {{"name", schema.name},
          {"aliases", schema.aliases},
          {"category", schema.category},
          {"doc", schema.doc},
          {"inputs", schema.inputs},
          {"variadic", schema.variadic},
          {"loss", schema.isLoss()},
          {"params", params},
          {"backends", backends}};
}

}  // namespace netsmith
