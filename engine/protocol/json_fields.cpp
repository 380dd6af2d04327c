#include "engine/protocol/json_fields.h"

namespace netsmith::protocol {

std::string describeValue(const Json& v) {
  switch (v.type()) {
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return v.empty() ? "[]" : format("an array of {}", v.size());
    case Json::value_t::null: return "null";
    case Json::value_t::discarded: return "nothing";
    default: break;
  }
  std::string text = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

std::string jsonText(const Json& v, int indent) { return v.dump(indent, ' ', false, Json::error_handler_t::replace); }

void failValue(const Where& where, const char* expected, const Json& got) {
  throw ReadError(format("{}: expected {}, got {}", where.text(), expected, describeValue(got)));
}

double numberValue(const Json& v, const Where& where) {
  if (v.is_null()) return kUndefined;
  if (!v.is_number()) failValue(where, "a number", v);
  return v.get<double>();
}

int64_t integerValue(const Json& v, const Where& where, int64_t fallback) {
  if (v.is_null()) return fallback;
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) {
    // 3.0 is an integer written by a writer that keeps numbers as doubles; 2.5 is not.
    const double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18) return static_cast<int64_t>(d);
  }
  failValue(where, "an integer", v);
}

std::string textValue(const Json& v, const Where& where) {
  if (v.is_null()) return {};
  if (!v.is_string()) failValue(where, "a string", v);
  return v.get<std::string>();
}

FieldReader::FieldReader(const Json& object, Where where) : m_object(object), m_where(std::move(where)) {
  if (!m_object.is_object()) failValue(m_where, "an object", m_object);
}

const Json* FieldReader::present(const char* key) const {
  const auto it = m_object.find(key);
  return it == m_object.end() || it->is_null() ? nullptr : &*it;
}

bool FieldReader::has(const char* key) const { return present(key) != nullptr; }

void FieldReader::fail(const char* key, const char* expected, const Json& got) const {
  failValue(m_where.child(key), expected, got);
}

double FieldReader::number(const char* key, double fallback) const {
  const Json* v = present(key);
  return v ? numberValue(*v, m_where.child(key)) : fallback;
}

std::optional<double> FieldReader::optionalNumber(const char* key) const {
  const Json* v = present(key);
  if (!v) return std::nullopt;
  return numberValue(*v, m_where.child(key));
}

int64_t FieldReader::integer(const char* key, int64_t fallback) const {
  const Json* v = present(key);
  return v ? integerValue(*v, m_where.child(key), fallback) : fallback;
}

std::optional<int64_t> FieldReader::optionalInteger(const char* key) const {
  const Json* v = present(key);
  if (!v) return std::nullopt;
  return integerValue(*v, m_where.child(key));
}

std::string FieldReader::text(const char* key, const std::string& fallback) const {
  const Json* v = present(key);
  return v ? textValue(*v, m_where.child(key)) : fallback;
}

bool FieldReader::flag(const char* key, bool fallback) const {
  const Json* v = present(key);
  if (!v) return fallback;
  if (!v->is_boolean()) fail(key, "true or false", *v);
  return v->get<bool>();
}

const Json* FieldReader::array(const char* key) const {
  const Json* v = present(key);
  if (v && !v->is_array()) fail(key, "an array", *v);
  return v;
}

std::vector<std::string> FieldReader::texts(const char* key) const {
  std::vector<std::string> out;
  forEach(key, [&](const Json& v, const Where& at) { out.push_back(textValue(v, at)); });
  return out;
}

std::vector<int64_t> FieldReader::integers(const char* key) const {
  std::vector<int64_t> out;
  forEach(key, [&](const Json& v, const Where& at) {
    if (v.is_null()) failValue(at, "an integer", v);
    out.push_back(integerValue(v, at));
  });
  return out;
}

std::vector<double> FieldReader::numbers(const char* key) const {
  std::vector<double> out;
  forEach(key, [&](const Json& v, const Where& at) { out.push_back(numberValue(v, at)); });
  return out;
}

std::optional<FieldReader> FieldReader::object(const char* key) const {
  const Json* v = present(key);
  if (!v) return std::nullopt;
  return FieldReader(*v, m_where.child(key));
}

const Json& FieldReader::raw(const char* key) const {
  static const Json null;
  const Json* v = present(key);
  return v ? *v : null;
}

}  // namespace netsmith::protocol
