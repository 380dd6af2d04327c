// Protocol Buffers text format, as Neural Network Console and nnabla write .nntxt files: a tree
// of fields, each a scalar (a number, an identifier such as true or an enum value, or a quoted
// string) or a nested message in braces. No schema: nnabla_file.cpp gives the fields meaning.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace netsmith::nnabla_import {

struct TextMessage;

// One `name: value` or `name { ... }` of a message. A list `name: [a, b]` is read as the field
// repeated once per element, as protobuf does.
struct TextField {
  std::string name;
  int line = 0, column = 0;  // where the field's name starts (1-based)
  bool isMessage = false;
  std::string scalar;  // scalar fields: a string's unescaped contents, or the token as written
  bool quoted = false; // scalar fields: written as a string literal
  int valueLine = 0, valueColumn = 0;  // where the value starts
  std::shared_ptr<const TextMessage> message;  // message fields
};

struct TextMessage {
  int line = 1, column = 1;  // where its opening brace is (the file's start for the root)
  std::vector<TextField> fields;
};

// Limits that keep a damaged or hostile file from exhausting the stack or memory.
inline constexpr int kMaxTextNesting = 64;

// Parses `text` (the contents of `file`). Error "FILE:LINE:COLUMN: expected ..., found ..." for
// anything that is not the text format: an unterminated string or message, a missing value, a
// brace that closes nothing, nesting deeper than kMaxTextNesting, bytes that are not text.
std::shared_ptr<const TextMessage> parseTextFormat(std::string_view text, const std::string& file);

}  // namespace netsmith::nnabla_import
