#include "engine/data/csv_tokenizer.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "engine/core/error.h"

namespace netsmith::csv {

namespace {

bool isSpace(char c) { return c == ' ' || c == '\t'; }

// Length of the valid UTF-8 sequence at s[i], or 0 when the bytes there are not one.
size_t utf8Length(std::string_view s, size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  return n;
}

}  // namespace

std::string_view trim(std::string_view s) {
  while (!s.empty() && (isSpace(s.front()) || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (isSpace(s.back()) || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool parseNumber(std::string_view s, double& value) {
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  return ec == std::errc() && end == s.data() + s.size() && std::isfinite(value);
}

namespace {

// The first kQuotedChars characters of `s`, printable; `cut` tells whether `s` is longer.
std::string printable(std::string_view s, bool& cut) {
  std::string out;
  size_t i = 0;
  for (size_t chars = 0; i < s.size() && chars < kQuotedChars; ++chars) {
    const size_t n = utf8Length(s, i);
    const auto b = static_cast<unsigned char>(s[i]);
    if (n == 0 || b < 0x20 || b == 0x7F) {
      out.push_back('?');
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  cut = i < s.size();
  return out;
}

}  // namespace

std::string excerpt(std::string_view s) {
  bool cut = false;
  const std::string p = printable(s, cut);
  return cut ? format("{}... ({} bytes)", p, s.size()) : p;
}

std::string quote(std::string_view s) {
  bool cut = false;
  const std::string p = printable(s, cut);
  return cut ? format("'{}...' ({} bytes)", p, s.size()) : "'" + p + "'";
}

RecordScan parseRecord(std::string_view text, size_t pos, std::vector<std::string>* cells) {
  RecordScan scan;
  std::string* cell = nullptr;
  bool quoted = false;    // the current cell was quoted
  bool sawText = false;   // the current cell has seen a non-space character
  bool inQuotes = false;
  size_t quotedEnd = 0;   // cell length when its closing quote was read
  size_t cellChars = 0;   // the cell's true length; only kMaxCellChars of it are stored
  auto push = [&](char c) {
    if (cell && cellChars < kMaxCellChars) cell->push_back(c);
    ++cellChars;
  };
  auto startCell = [&] {
    cellChars = 0;
    if (!cells) return;
    if (scan.cellCount == cells->size()) cells->emplace_back();
    cell = &(*cells)[scan.cellCount];
    cell->clear();
  };
  auto endCell = [&] {
    if (cellChars > kMaxCellChars && scan.longCell == SIZE_MAX) {
      scan.longCell = scan.cellCount;
      scan.longCellChars = cellChars;
    }
    if (cell) {
      if (!quoted) {
        const std::string_view t = trim(*cell);
        if (t.size() != cell->size()) *cell = std::string(t);
      } else {
        while (cell->size() > quotedEnd && (isSpace(cell->back()) || cell->back() == '\r')) cell->pop_back();
      }
    }
    ++scan.cellCount;
    quoted = sawText = false;
  };
  startCell();
  size_t i = pos;
  const size_t n = text.size();
  while (i < n) {
    const char c = text[i];
    if (inQuotes) {
      if (c == '"') {
        if (i + 1 < n && text[i + 1] == '"') {
          push('"');
          i += 2;
          continue;
        }
        inQuotes = false;
        if (cell) quotedEnd = cell->size();
        ++i;
        continue;
      }
      if (c == '\n') ++scan.innerNewlines;
      push(c);
      ++i;
      continue;
    }
    if (c == ',') {
      endCell();
      startCell();
      ++i;
      continue;
    }
    if (c == '\n') {
      endCell();
      scan.next = i + 1;
      return scan;
    }
    if (c == '"' && !quoted && !sawText) {
      if (cell) cell->clear();  // spaces before the opening quote
      cellChars = 0;
      inQuotes = quoted = sawText = true;
      scan.openQuote = i;
      ++i;
      continue;
    }
    if (!isSpace(c) && c != '\r') sawText = true;
    push(c);
    ++i;
  }
  scan.unclosed = inQuotes;
  endCell();
  scan.next = n;
  return scan;
}

int64_t lineAt(std::string_view text, const Record& record, size_t at) {
  at = std::min(at, text.size());
  return record.line + std::count(text.begin() + static_cast<std::ptrdiff_t>(record.begin),
                                  text.begin() + static_cast<std::ptrdiff_t>(std::max(at, record.begin)), '\n');
}

}  // namespace netsmith::csv
