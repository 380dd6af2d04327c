// The tokenizer of dataset CSV files: RFC 4180 with the usual leniencies (CRLF or LF, spaces
// around unquoted cells), with bounded cells, and what a message may quote of a cell or line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace netsmith::csv {

// Note [CSV limits]: a number or an image path is a few dozen characters, so a cell of 64 KiB,
// or a line of 16 MiB (a million numeric columns), is a damaged or wrong file. Limits keep one
// such cell from being copied into every cell buffer and echoed whole into messages (a 100 MB
// cell once gave 100 MB of stderr and 1.2 GB of memory): a message quotes at most
// kQuotedChars characters of it and says how long it is.
constexpr size_t kMaxCellChars = size_t{64} << 10;
constexpr size_t kMaxLineChars = size_t{16} << 20;
constexpr size_t kQuotedChars = 100;

std::string_view trim(std::string_view s);

// A finite number written in full ("3", "-0.5", "1e-3"); nothing else, not even trailing text.
bool parseNumber(std::string_view s, double& value);

// `s` for a message, in single quotes: whole when short, else its first kQuotedChars characters
// followed by its length ("'abc...' (104857600 bytes)"). Control characters and bytes that
// are not UTF-8 become '?', so the message stays one printable line of valid UTF-8 (events are
// JSON).
std::string quote(std::string_view s);
// The same without the quotes, for text inside a longer phrase ("column 2 (y:label)").
std::string excerpt(std::string_view s);

// One record (a row) of the file.
struct Record {
  size_t begin = 0;  // offsets in the file text, line end included
  size_t end = 0;
  int64_t line = 0;  // 1-based line number where the record starts
};

// What parsing one record found.
struct RecordScan {
  size_t next = 0;            // the offset after the record's line end
  size_t cellCount = 0;
  int64_t innerNewlines = 0;  // line ends inside quoted cells: the next record's line number needs them
  bool unclosed = false;      // a quoted cell runs to the end of the text
  size_t openQuote = 0;       // offset of that cell's opening quote, when unclosed
  size_t longCell = SIZE_MAX; // index of the first cell longer than kMaxCellChars, SIZE_MAX if none
  size_t longCellChars = 0;   // its length
};

// Parses the record that starts at `pos` (ending at a line end outside quotes, or at the end of
// `text`). cells: null when only the extent is wanted; else cell k goes to (*cells)[k] (the
// vector only grows, so that buffers are reused across rows), at most kMaxCellChars characters of
// each: a longer cell is cut there and reported in longCell.
RecordScan parseRecord(std::string_view text, size_t pos, std::vector<std::string>* cells);

// The line number of offset `at` inside `record` (counting the line ends before it).
int64_t lineAt(std::string_view text, const Record& record, size_t at);

}  // namespace netsmith::csv
