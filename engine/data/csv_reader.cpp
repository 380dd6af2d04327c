#include "engine/data/csv_reader.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "engine/core/error.h"
#include "engine/data/png_reader.h"

namespace netsmith {

namespace {

namespace fs = std::filesystem;

bool isSpace(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (isSpace(s.front()) || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (isSpace(s.back()) || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// A finite number written in full ("3", "-0.5", "1e-3"); nothing else, not even trailing text.
bool parseNumber(std::string_view s, double& value) {
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  return ec == std::errc() && end == s.data() + s.size() && std::isfinite(value);
}

// ---------------------------------------------------------------------------------------------
// Tokenizer (RFC 4180 with the usual leniencies: CRLF or LF, spaces around unquoted cells)

struct Record {
  size_t begin = 0;  // offsets in the file text, line end included
  size_t end = 0;
  int64_t line = 0;  // 1-based line number where the record starts
  bool unclosed = false;
};

// Parses the record starting at `pos`; returns the offset after its line end. `cells` may be null
// when only the record's extent is wanted. `innerNewlines` counts line ends inside quoted cells,
// so that the following records keep their true line numbers.
size_t parseRecord(std::string_view text, size_t pos, std::vector<std::string>* cells, size_t* cellCount,
                   int64_t& innerNewlines, bool& unclosed) {
  std::string* cell = nullptr;
  bool quoted = false;   // the current cell was quoted
  bool sawText = false;  // the current cell has seen a non-space character
  bool inQuotes = false;
  size_t quotedEnd = 0;  // cell length when its closing quote was read
  size_t count = 0;
  auto startCell = [&] {
    if (!cells) return;
    if (count == cells->size()) cells->emplace_back();
    cell = &(*cells)[count];
    cell->clear();
  };
  auto endCell = [&] {
    if (cells) {
      if (!quoted) {
        const std::string_view t = trim(*cell);
        *cell = std::string(t);
      } else {
        while (cell->size() > quotedEnd && (isSpace(cell->back()) || cell->back() == '\r')) cell->pop_back();
      }
    }
    ++count;
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
          if (cell) cell->push_back('"');
          i += 2;
          continue;
        }
        inQuotes = false;
        if (cell) quotedEnd = cell->size();
        ++i;
        continue;
      }
      if (c == '\n') ++innerNewlines;
      if (cell) cell->push_back(c);
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
      if (cellCount) *cellCount = count;
      return i + 1;
    }
    if (c == '"' && !quoted && !sawText) {
      if (cell) cell->clear();  // spaces before the opening quote
      inQuotes = quoted = sawText = true;
      ++i;
      continue;
    }
    if (!isSpace(c) && c != '\r') sawText = true;
    if (cell) cell->push_back(c);
    ++i;
  }
  unclosed = inQuotes;
  endCell();
  if (cellCount) *cellCount = count;
  return n;
}

bool isBlankLine(std::string_view text, const Record& r) {
  for (size_t i = r.begin; i < r.end; ++i)
    if (!isSpace(text[i]) && text[i] != '\r' && text[i] != '\n') return false;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Columns

struct Column {
  size_t index = 0;    // 0-based position in the row
  std::string header;  // the header cell as written ("y:label")
  std::string name;    // the variable name ("y")
};

std::string columnLabel(const Column& c) { return format("column {} ({})", c.index + 1, c.header); }

// NNC names the components of one vector variable x__0, x__1, ...; the variable is "x".
std::string variableOf(const std::string& name) { return name.substr(0, name.find("__")); }

std::vector<Column> columnsStartingWith(const std::vector<std::string>& header, size_t count, char first) {
  std::vector<Column> cols;
  for (size_t i = 0; i < count; ++i) {
    const std::string& cell = header[i];
    const std::string name(trim(std::string_view(cell).substr(0, cell.find(':'))));
    if (!name.empty() && name.front() == first) cols.push_back({i, cell, name});
  }
  return cols;
}

void checkOneVariable(const std::string& csvPath, const std::vector<Column>& cols, const char* role) {
  for (const Column& c : cols)
    NS_CHECK(variableOf(c.name) == variableOf(cols.front().name),
             "{}: row 1: the header has several {} variables ('{}' and '{}'); Netsmith reads one (write the components "
             "of a vector as {}__0, {}__1, ...)",
             csvPath, role, cols.front().header, c.header, variableOf(cols.front().name),
             variableOf(cols.front().name));
}

// ---------------------------------------------------------------------------------------------
// Rows

enum class InputKind { kImage, kNumbers };

struct RowResult {
  std::vector<float> input;
  std::vector<float> label;
  int channels = 0;
  int height = 0;
  int width = 0;
  std::string imagePath;
  std::string error;         // "row N...: what is wrong"; empty when the row is good
  std::exception_ptr fatal;  // not a problem of the data (out of memory...): always rethrown
};

struct CsvLayout {
  std::string path;
  fs::path folder;  // image paths are relative to it
  size_t columnCount = 0;
  std::vector<Column> x;
  std::vector<Column> y;
  InputKind kind = InputKind::kNumbers;
  double scale = 1.0;
};

std::string resolveImagePath(const CsvLayout& layout, std::string cell) {
  std::replace(cell.begin(), cell.end(), '\\', '/');  // NNC datasets made on Windows
  fs::path p(cell);
  if (p.is_relative()) p = layout.folder / p;
  return p.lexically_normal().string();
}

void processRow(std::string_view text, const Record& rec, const CsvLayout& layout, std::vector<std::string>& cells,
                RowResult& out) {
  size_t count = 0;
  int64_t newlines = 0;
  bool unclosed = false;
  parseRecord(text.substr(0, rec.end), rec.begin, &cells, &count, newlines, unclosed);
  if (unclosed) {
    out.error = format("row {}: a quoted cell is not closed (a '\"' is missing)", rec.line);
    return;
  }
  if (count != layout.columnCount) {
    out.error = format("row {} has {} column{}, expected {} like the header", rec.line, count, count == 1 ? "" : "s",
                       layout.columnCount);
    return;
  }

  const bool classes = layout.y.size() == 1;
  out.label.resize(layout.y.size());
  for (size_t k = 0; k < layout.y.size(); ++k) {
    const Column& col = layout.y[k];
    const std::string& cell = cells[col.index];
    double v = 0;
    if (!parseNumber(cell, v)) {
      out.error =
          format("row {}, {}: {} '{}' is not a number", rec.line, columnLabel(col), classes ? "label" : "value", cell);
      return;
    }
    if (classes && v < 0) {
      out.error =
          format("row {}, {}: label '{}' is negative: class labels are 0, 1, 2, ...", rec.line, columnLabel(col), cell);
      return;
    }
    if (classes && (v != std::floor(v) || v >= (1 << 24))) {
      out.error = format("row {}, {}: label '{}' is not an integer: class labels are 0, 1, 2, ...", rec.line,
                         columnLabel(col), cell);
      return;
    }
    out.label[k] = static_cast<float>(v);
  }

  if (layout.kind == InputKind::kNumbers) {
    out.input.resize(layout.x.size());
    for (size_t k = 0; k < layout.x.size(); ++k) {
      const Column& col = layout.x[k];
      double v = 0;
      if (!parseNumber(cells[col.index], v)) {
        out.error = format("row {}, {}: value '{}' is not a number", rec.line, columnLabel(col), cells[col.index]);
        return;
      }
      out.input[k] = static_cast<float>(v * layout.scale);
    }
    return;
  }

  const Column& col = layout.x.front();
  const std::string& cell = cells[col.index];
  if (cell.empty()) {
    out.error = format("row {}, {}: the image path is empty", rec.line, columnLabel(col));
    return;
  }
  out.imagePath = resolveImagePath(layout, cell);
  DecodedImage image;
  std::string why;
  if (!decodePng(out.imagePath, layout.scale, image, why)) {
    out.error = format("row {}, {}: {}", rec.line, columnLabel(col), why);
    return;
  }
  out.channels = image.channels;
  out.height = image.height;
  out.width = image.width;
  out.input = std::move(image.pixels);
}

std::string describeImage(const RowResult& r) {
  return format("{}x{} pixels (width x height) {}", r.width, r.height,
                r.channels == 1   ? "grayscale"
                : r.channels == 3 ? "RGB"
                                  : format("with {} channels", r.channels));
}

std::string readText(const std::string& path) {
  std::error_code ec;
  NS_CHECK(!fs::is_directory(path, ec), "CSV file '{}' is a folder, not a file", path);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    if (!fs::exists(path, ec)) NS_THROW("CSV file '{}' does not exist", path);
    NS_THROW("cannot open CSV file '{}': {}", path, std::strerror(err));
  }
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  NS_CHECK(!in.bad(), "cannot read CSV file '{}'", path);
  return text;
}

}  // namespace

Dataset readCsvDataset(const std::string& csvPath, double scale, bool skipBadRows) {
  const std::string text = readText(csvPath);
  const std::string_view view(text);
  size_t pos = view.starts_with("\xEF\xBB\xBF") ? 3 : 0;  // UTF-8 byte order mark (Excel writes one)

  // Record boundaries first (cheap, sequential); the rows themselves are parsed in parallel.
  std::vector<Record> records;
  int64_t line = 1;
  while (pos < view.size()) {
    Record r;
    r.begin = pos;
    r.line = line;
    int64_t inner = 0;
    pos = parseRecord(view, pos, nullptr, nullptr, inner, r.unclosed);
    r.end = pos;
    line += 1 + inner;
    if (!isBlankLine(view, r)) records.push_back(r);
  }
  NS_CHECK(!records.empty(),
           "{}: the file is empty: expected a header such as 'x:image,y:label' and one row per sample", csvPath);

  CsvLayout layout;
  layout.path = csvPath;
  layout.folder = fs::path(csvPath).parent_path();
  layout.scale = scale;
  const Record& headerRecord = records.front();
  std::vector<std::string> header;
  {
    int64_t inner = 0;
    bool unclosed = false;
    parseRecord(view.substr(0, headerRecord.end), headerRecord.begin, &header, &layout.columnCount, inner, unclosed);
    NS_CHECK(!unclosed, "{}: row {}: a quoted cell of the header is not closed (a '\"' is missing)", csvPath,
             headerRecord.line);
  }
  std::string headerText;
  for (size_t i = 0; i < layout.columnCount; ++i) headerText += (i ? "," : "") + header[i];
  layout.x = columnsStartingWith(header, layout.columnCount, 'x');
  layout.y = columnsStartingWith(header, layout.columnCount, 'y');
  NS_CHECK(!layout.x.empty(),
           "{}: row {}: the header '{}' has no input column: name it with a variable starting with 'x', such as "
           "'x:image' (or x__0, x__1, ... for numbers)",
           csvPath, headerRecord.line, headerText);
  NS_CHECK(!layout.y.empty(),
           "{}: row {}: the header '{}' has no label column: name it with a variable starting with 'y', such as "
           "'y:label'",
           csvPath, headerRecord.line, headerText);
  checkOneVariable(csvPath, layout.x, "input");
  checkOneVariable(csvPath, layout.y, "label");
  const int64_t rowCount = static_cast<int64_t>(records.size()) - 1;
  NS_CHECK(rowCount > 0, "{}: there are no data rows after the header '{}'", csvPath, headerText);

  // A single x column holds image paths unless its first complete row holds a number.
  layout.kind = InputKind::kNumbers;
  if (layout.x.size() == 1) {
    layout.kind = InputKind::kImage;
    std::vector<std::string> cells;
    for (size_t r = 1; r < records.size(); ++r) {
      size_t count = 0;
      int64_t inner = 0;
      bool unclosed = false;
      parseRecord(view.substr(0, records[r].end), records[r].begin, &cells, &count, inner, unclosed);
      if (unclosed || count != layout.columnCount) continue;
      double v = 0;
      if (parseNumber(cells[layout.x.front().index], v)) layout.kind = InputKind::kNumbers;
      break;
    }
  }

  // Images are decoded in parallel; every row's outcome is kept so that the reported error (the
  // first bad row) and the warning do not depend on the order threads finish in.
  std::vector<RowResult> results(static_cast<size_t>(rowCount));
#pragma omp parallel
  {
    std::vector<std::string> cells;
#pragma omp for schedule(dynamic, 8)
    for (int64_t r = 0; r < rowCount; ++r) {
      try {
        processRow(view, records[r + 1], layout, cells, results[r]);
      } catch (...) {
        results[r].fatal = std::current_exception();
      }
    }
  }
  for (const RowResult& r : results)
    if (r.fatal) std::rethrow_exception(r.fatal);

  // Every image must match the first good one (in file order).
  if (layout.kind == InputKind::kImage) {
    const RowResult* reference = nullptr;
    int64_t referenceLine = 0;
    for (int64_t r = 0; r < rowCount; ++r) {
      RowResult& row = results[r];
      if (!row.error.empty()) continue;
      if (!reference) {
        reference = &row;
        referenceLine = records[r + 1].line;
        continue;
      }
      if (row.channels != reference->channels || row.height != reference->height || row.width != reference->width)
        row.error = format("row {}, {}: image '{}' is {}, expected {} like the image in row {} ('{}')",
                           records[r + 1].line, columnLabel(layout.x.front()), row.imagePath, describeImage(row),
                           describeImage(*reference), referenceLine, reference->imagePath);
    }
  }

  std::vector<std::string> problems;
  for (const RowResult& r : results)
    if (!r.error.empty()) {
      if (!skipBadRows) NS_THROW("{}: {}", csvPath, r.error);
      problems.push_back(r.error);
    }
  auto joined = [&] {
    std::string s;
    for (const std::string& p : problems) s += (s.empty() ? "" : "; ") + p;
    return s;
  };
  const int64_t kept = rowCount - static_cast<int64_t>(problems.size());
  NS_CHECK(kept > 0, "{}: every one of the {} data rows is bad, nothing is left to load: {}", csvPath, rowCount,
           joined());

  Dataset ds;
  ds.source = csvPath;
  ds.size = kept;
  ds.labelWidth = static_cast<int64_t>(layout.y.size());
  if (!problems.empty())
    ds.warnings.push_back(
        format("{}: skipped {} of {} rows (on_error \"skip\"): {}", csvPath, problems.size(), rowCount, joined()));
  const RowResult* first = nullptr;
  for (const RowResult& r : results)
    if (r.error.empty()) {
      first = &r;
      break;
    }
  if (layout.kind == InputKind::kImage)
    ds.sampleShape = {first->channels, first->height, first->width};
  else
    ds.sampleShape = {static_cast<int64_t>(layout.x.size())};
  const size_t sampleNumel = first->input.size();
  ds.features.resize(sampleNumel * kept);
  ds.labels.resize(layout.y.size() * kept);
  size_t k = 0;
  float maxLabel = 0;
  for (const RowResult& r : results) {
    if (!r.error.empty()) continue;
    std::copy(r.input.begin(), r.input.end(), ds.features.begin() + k * sampleNumel);
    std::copy(r.label.begin(), r.label.end(), ds.labels.begin() + k * layout.y.size());
    if (layout.y.size() == 1) maxLabel = std::max(maxLabel, r.label.front());
    ++k;
  }
  ds.numClasses = layout.y.size() == 1 ? static_cast<int64_t>(maxLabel) + 1 : 0;
  return ds;
}

}  // namespace netsmith
