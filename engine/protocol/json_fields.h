// Reading and writing the fields of the protocol's JSON (engine/protocol/): the one place that
// says how a JSON value becomes a C++ field, so every reader of events, plans, reports and
// learning curves treats damaged input alike.
//
// Note [Protocol reading rules]
// The JSON is written by another program, possibly a newer or a broken one, so a reader:
// - ignores keys it does not know (a newer engine may add some);
// - takes a missing key, or null, as "not given": the field keeps its default (a number that is
//   not defined, such as a validation loss without a validation set, is written as null);
// - refuses a value of the wrong type with ReadError naming where it is and what was expected
//   ("epoch event: epoch: expected an integer, got \"three\""), never reading it as something else.
// Writers write non-finite numbers as null (nlohmann::json does), so a NaN read back is "not defined".
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/core/error.h"

namespace netsmith::protocol {

using Json = nlohmann::json;

// A number that is not defined (written as null).
inline constexpr double kUndefined = std::numeric_limits<double>::quiet_NaN();
inline bool defined(double v) { return !std::isnan(v); }

// JSON that does not match the protocol: the message names the document, the field's path and
// what was expected.
class ReadError : public Error {
 public:
  using Error::Error;
};

// A short description of a JSON value for error messages: "\"three\"", "[1]", "an object".
std::string describeValue(const Json& value);

// The JSON text of `v` (indented by `indent`, -1: one line). Text from the file system or from
// files may not be UTF-8 (a folder named in Latin-1); JSON must be, so such bytes become U+FFFD
// instead of nlohmann's type_error ending the command. The JSON the engine writes goes here.
std::string jsonText(const Json& v, int indent = -1);

// Where a value is, for errors: the document ("started event", "evaluation report") and the
// path inside it ("devices[2].batch"; empty for the document itself).
struct Where {
  std::string document;
  std::string path;
  Where child(const std::string& key) const { return {document, path.empty() ? key : path + "." + key}; }
  Where element(size_t i) const { return {document, format("{}[{}]", path, i)}; }
  std::string text() const { return path.empty() ? document : document + ": " + path; }
};

// Reads the fields of one JSON object. Construction throws ReadError when the value is not an
// object.
class FieldReader {
 public:
  FieldReader(const Json& object, Where where);
  FieldReader(const Json& object, const std::string& document) : FieldReader(object, Where{document, {}}) {}

  bool has(const char* key) const;  // present and not null
  const Where& where() const { return m_where; }
  const Json& json() const { return m_object; }

  // A number; missing or null: kUndefined (or `fallback`).
  double number(const char* key, double fallback = kUndefined) const;
  // A number that may be missing: nullopt when missing or null.
  std::optional<double> optionalNumber(const char* key) const;
  // An integer (a number with no fractional part); missing or null: `fallback`.
  int64_t integer(const char* key, int64_t fallback = 0) const;
  std::optional<int64_t> optionalInteger(const char* key) const;
  std::string text(const char* key, const std::string& fallback = {}) const;
  bool flag(const char* key, bool fallback = false) const;
  std::vector<std::string> texts(const char* key) const;  // an array of strings; missing: empty
  std::vector<int64_t> integers(const char* key) const;    // an array of integers; missing: empty
  std::vector<double> numbers(const char* key) const;      // an array of numbers (null: kUndefined)

  // A nested object; nullopt when missing or null.
  std::optional<FieldReader> object(const char* key) const;
  // The elements of an array (missing: none); each is passed with where it is ("devices[2]").
  template <typename F>
  void forEach(const char* key, F&& f) const {
    const Json* a = array(key);
    if (!a) return;
    const Where at = m_where.child(key);
    for (size_t i = 0; i < a->size(); ++i) f((*a)[i], at.element(i));
  }
  // The same for an array of objects: each element as a FieldReader.
  template <typename F>
  void forEachObject(const char* key, F&& f) const {
    forEach(key, [&](const Json& element, const Where& where) { f(FieldReader(element, where)); });
  }
  // The raw value (null when missing), for parts the protocol keeps as JSON.
  const Json& raw(const char* key) const;

  [[noreturn]] void fail(const char* key, const char* expected, const Json& got) const;

 private:
  const Json* present(const char* key) const;
  const Json* array(const char* key) const;
  const Json& m_object;
  Where m_where;
};

// A value read on its own (an element of an array): the same rules as FieldReader.
[[noreturn]] void failValue(const Where& where, const char* expected, const Json& got);
double numberValue(const Json& v, const Where& where);
int64_t integerValue(const Json& v, const Where& where, int64_t fallback = 0);
std::string textValue(const Json& v, const Where& where);

// A number for a writer: nullopt (and NaN) become null.
inline Json optionalJson(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

}  // namespace netsmith::protocol
