#include "engine/data/csv_reader.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "engine/core/error.h"
#include "engine/data/csv_tokenizer.h"
#include "engine/core/sha256.h"
#include "engine/data/png_reader.h"
#include "engine/data/sample_store.h"

namespace netsmith {

namespace {

namespace fs = std::filesystem;

using csv::excerpt;
using csv::kMaxCellChars;
using csv::kMaxLineChars;
using csv::parseNumber;
using csv::parseRecord;
using csv::quote;
using csv::Record;
using csv::RecordScan;
using csv::trim;

bool isBlankLine(std::string_view text, const Record& r) {
  for (size_t i = r.begin; i < r.end; ++i)
    if (text[i] != ' ' && text[i] != '\t' && text[i] != '\r' && text[i] != '\n') return false;
  return true;
}

// The record's text without its line end, for messages.
std::string_view recordText(std::string_view text, const Record& r) {
  std::string_view t = text.substr(r.begin, r.end - r.begin);
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.remove_suffix(1);
  return t;
}

// A record longer than kMaxLineChars (Note [CSV limits]), quoted in part; empty when it is not.
std::string tooLongLine(std::string_view text, const Record& r) {
  const std::string_view t = recordText(text, r);
  if (t.size() <= kMaxLineChars) return {};
  return format("row {} is {} bytes long, more than a row may have ({} bytes): {}; is this a dataset CSV file?",
                r.line, t.size(), kMaxLineChars, quote(t));
}

// ---------------------------------------------------------------------------------------------
// Columns

struct Column {
  size_t index = 0;    // 0-based position in the row
  std::string header;  // the header cell as written ("y:label")
  std::string name;    // the variable name ("y")
};

std::string columnLabel(const Column& c) { return format("column {} ({})", c.index + 1, excerpt(c.header)); }

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
             csvPath, role, excerpt(cols.front().header), excerpt(c.header), excerpt(variableOf(cols.front().name)),
             excerpt(variableOf(cols.front().name)));
}

// ---------------------------------------------------------------------------------------------
// Rows

enum class InputKind { kImage, kNumbers };

struct RowResult {
  std::vector<float> input;   // numbers, or an image whose values are not whole 8-bit levels (scaled)
  std::vector<uint8_t> bytes;  // an 8-bit image (unscaled), unless it went into its slot
  bool inSlot = false;         // the 8-bit image is in the loader's slot for this row
  int64_t fileBytes = 0;       // the image file's size on disk
  std::vector<float> label;
  std::string className;       // the row's cell in the class-name column, when there is one
  int channels = 0;
  int height = 0;
  int width = 0;
  const char* colorType = "";  // the PNG's: "gray", "gray+alpha", "RGB", "RGBA", "palette"
  std::string imagePath;
  std::string error;         // "row N...: what is wrong"; empty when the row is good
  std::exception_ptr fatal;  // not a problem of the data (out of memory...): always rethrown
};

struct CsvLayout {
  std::string path;
  std::vector<std::string> header;  // the header's cells
  fs::path folder;  // image paths are relative to it
  size_t columnCount = 0;
  std::vector<Column> x;
  std::vector<Column> y;
  InputKind kind = InputKind::kNumbers;
  double scale = 1.0;
  bool fromStore = false;  // the images come from the sample store: only the labels are read here
  bool labelsOnly = false;  // readCsvLabels: the images are not read at all
  // The column naming each row's class ("class_name" or "name"); SIZE_MAX when there is none.
  size_t nameColumn = SIZE_MAX;
};

std::string resolveImagePath(const CsvLayout& layout, std::string cell) {
  std::replace(cell.begin(), cell.end(), '\\', '/');  // NNC datasets made on Windows
  fs::path p(cell);
  if (p.is_relative()) p = layout.folder / p;
  return p.lexically_normal().string();
}

void processRow(std::string_view text, const Record& rec, const CsvLayout& layout, std::vector<std::string>& cells,
                RowResult& out) {
  out.error = tooLongLine(text, rec);
  if (!out.error.empty()) return;
  // The file has no unclosed quote (the reader checked), so the record ends at rec.end.
  const RecordScan scan = parseRecord(text.substr(0, rec.end), rec.begin, &cells);
  const size_t count = scan.cellCount;
  if (count != layout.columnCount) {
    out.error = format("row {} has {} column{}, expected {} like the header", rec.line, count, count == 1 ? "" : "s",
                       layout.columnCount);
    return;
  }
  if (scan.longCell != SIZE_MAX) {
    out.error = format("row {}, column {} ({}): the cell is {} bytes long, more than a cell may have ({} bytes): {}",
                       rec.line, scan.longCell + 1, excerpt(layout.header[scan.longCell]), scan.longCellChars,
                       kMaxCellChars, quote(cells[scan.longCell]));
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
          format("row {}, {}: {} {} is not a number", rec.line, columnLabel(col), classes ? "label" : "value", quote(cell));
      return;
    }
    if (classes && v < 0) {
      out.error = format("row {}, {}: label {} is negative: class labels are 0, 1, 2, ...", rec.line, columnLabel(col),
                         quote(cell));
      return;
    }
    if (classes && (v != std::floor(v) || v >= (1 << 24))) {
      out.error = format("row {}, {}: label {} is not an integer: class labels are 0, 1, 2, ...", rec.line,
                         columnLabel(col), quote(cell));
      return;
    }
    if (!std::isfinite(static_cast<float>(v))) {
      out.error = format("row {}, {}: value {} is beyond float32's range (magnitude up to 3.4e38)", rec.line,
                         columnLabel(col), quote(cell));
      return;
    }
    out.label[k] = static_cast<float>(v);
  }
  if (layout.nameColumn != SIZE_MAX) out.className = std::string(trim(cells[layout.nameColumn]));

  if (layout.kind == InputKind::kNumbers) {
    out.input.resize(layout.x.size());
    for (size_t k = 0; k < layout.x.size(); ++k) {
      const Column& col = layout.x[k];
      double v = 0;
      if (!parseNumber(cells[col.index], v)) {
        out.error =
            format("row {}, {}: value {} is not a number", rec.line, columnLabel(col), quote(cells[col.index]));
        return;
      }
      out.input[k] = static_cast<float>(v * layout.scale);
      // A finite double can still overflow float32 (1e39): refused as nan and inf are, in the
      // file or after the scale.
      if (!std::isfinite(static_cast<float>(v)) || !std::isfinite(out.input[k])) {
        out.error = format("row {}, {}: value {}{} is beyond float32's range (magnitude up to 3.4e38)", rec.line,
                           columnLabel(col), quote(cells[col.index]),
                           std::isfinite(static_cast<float>(v)) ? format(" times the scale {}", layout.scale)
                                                                : std::string());
        return;
      }
    }
    return;
  }

  const Column& col = layout.x.front();
  const std::string& cell = cells[col.index];
  if (cell.empty()) {
    out.error = format("row {}, {}: the image path is empty", rec.line, columnLabel(col));
    return;
  }
  // Longer than any path a system takes (PATH_MAX): opening it could only fail, echoing it whole.
  if (cell.size() > 4096) {
    out.error = format("row {}, {}: the image path is {} bytes long, longer than a path can be: {}", rec.line,
                       columnLabel(col), cell.size(), quote(cell));
    return;
  }
  out.imagePath = resolveImagePath(layout, cell);
  if (layout.fromStore || layout.labelsOnly) return;
  DecodedImage image;
  std::string why;
  if (!decodePng(out.imagePath, 1.0, image, why)) {
    out.error = format("row {}, {}: {}", rec.line, columnLabel(col), why);
    return;
  }
  std::error_code ec;
  out.fileBytes = static_cast<int64_t>(fs::file_size(out.imagePath, ec));
  out.channels = image.channels;
  out.height = image.height;
  out.width = image.width;
  out.colorType = image.colorType;
  // Note [Sample storage]: 8-bit levels are kept as bytes (16-bit images usually are not).
  const bool levels = std::all_of(image.pixels.begin(), image.pixels.end(),
                                  [](float v) { return v >= 0 && v <= 255 && v == std::floor(v); });
  if (levels) {
    out.bytes.assign(image.pixels.begin(), image.pixels.end());
  } else {
    out.input = std::move(image.pixels);
    for (float& v : out.input) v = static_cast<float>(v * layout.scale);
  }
}

// "4x4 pixels (width x height), RGBA (read as 3 channels: alpha is dropped)": the PNG's own colour
// type, since an RGBA or palette image read as RGB is not what its owner calls it.
std::string describeImage(const RowResult& r) {
  const std::string type = r.colorType;
  const std::string read = type == "gray"    ? "1 channel"
                           : type == "RGB"   ? "3 channels"
                           : type == "palette" ? "read as 3 channels, RGB"
                                               : format("read as {} channel{}: alpha is dropped", r.channels,
                                                        r.channels == 1 ? "" : "s");
  return format("{}x{} pixels (width x height), {} ({})", r.width, r.height, type, read);
}

std::string readText(const std::string& path) {
  std::error_code ec;
  NS_CHECK(!fs::is_directory(path, ec), "CSV file '{}' is a folder, not a file", path);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    if (!fs::exists(path, ec) && !fs::exists(fs::path(path).parent_path(), ec))
      NS_THROW("CSV file '{}' does not exist, nor its folder: make the dataset first (`netsmith-cli dataset create "
               "IMAGES --output {}`, or the Dataset page's Create from folder…)",
               path, fs::path(path).parent_path().string());
    if (!fs::exists(path, ec)) NS_THROW("CSV file '{}' does not exist", path);
    NS_THROW("cannot open CSV file '{}': {}", path, std::strerror(err));
  }
  // Read in one piece of the file's size: growing a string as it reads holds up to twice the file.
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.seekg(0);
  std::string text;
  if (size > 0) {
    text.resize(static_cast<size_t>(size));
    in.read(text.data(), size);
    text.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  }
  if (size < 0 || in.gcount() == size) {  // not a regular file (a pipe), or more than its size: read on
    in.clear();
    text.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  NS_CHECK(!in.bad(), "cannot read CSV file '{}'", path);
  return text;
}

}  // namespace

namespace {

Dataset readCsv(const std::string& csvPath, double scale, bool skipBadRows, int64_t maxRows, bool labelsOnly) {
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
    const RecordScan scan = parseRecord(view, pos, nullptr);
    // An unclosed quote takes every line after it into one cell: the rows after it are not
    // bad, they are lost, so no on_error mode may carry on (skipping "one row" hid 91 of 96).
    if (scan.unclosed) {
      const int64_t opened = csv::lineAt(view, r, scan.openQuote);
      const int64_t last = csv::lineAt(view, r, view.size()) - (view.ends_with('\n') ? 1 : 0);
      NS_THROW("{}: line {}: the quote '\"' that opens a cell here is never closed, so everything after it, to the "
               "end of the file (line {}), would be one cell: close the quote (a '\"' inside a quoted cell is written "
               "'\"\"')",
               csvPath, opened, last);
    }
    pos = scan.next;
    r.end = pos;
    line += 1 + scan.innerNewlines;
    if (!isBlankLine(view, r)) records.push_back(r);
  }
  NS_CHECK(!records.empty(),
           "{}: the file is empty: expected a header such as 'x:image,y:label' and one row per sample", csvPath);

  CsvLayout layout;
  layout.path = csvPath;
  layout.folder = fs::path(csvPath).parent_path();
  layout.scale = scale;
  layout.labelsOnly = labelsOnly;
  const Record& headerRecord = records.front();
  {
    const std::string tooLong = tooLongLine(view, headerRecord);
    NS_CHECK(tooLong.empty(), "{}: the header: {}", csvPath, tooLong);
    const RecordScan scan = parseRecord(view.substr(0, headerRecord.end), headerRecord.begin, &layout.header);
    layout.columnCount = scan.cellCount;
    NS_CHECK(scan.longCell == SIZE_MAX,
             "{}: row {}: column {} of the header is {} bytes long, more than a cell may have ({} bytes): {}", csvPath,
             headerRecord.line, scan.longCell + 1, scan.longCellChars, kMaxCellChars,
             scan.longCell == SIZE_MAX ? std::string() : quote(layout.header[scan.longCell]));
  }
  const std::vector<std::string>& header = layout.header;
  const std::string headerText = excerpt(recordText(view, headerRecord));
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
  // A class-name column (Note [Class names in a CSV]).
  for (size_t i = 0; i < layout.columnCount; ++i) {
    const std::string cell(trim(header[i]));
    if (cell == "class_name" || cell == "name" || cell == "y:class_name") layout.nameColumn = i;
  }
  if (layout.nameColumn != SIZE_MAX)
    std::erase_if(layout.y, [&](const Column& c) { return c.index == layout.nameColumn; });
  NS_CHECK(layout.nameColumn == SIZE_MAX || layout.y.size() == 1,
           "{}: row {}: a class-name column ('{}') names the classes of one label column; the header has {}", csvPath,
           headerRecord.line, excerpt(header[layout.nameColumn]), layout.y.size());
  checkOneVariable(csvPath, layout.x, "input");
  checkOneVariable(csvPath, layout.y, "label");
  if (maxRows > 0 && static_cast<int64_t>(records.size()) > maxRows + 1) records.resize(static_cast<size_t>(maxRows + 1));
  const int64_t rowCount = static_cast<int64_t>(records.size()) - 1;
  NS_CHECK(rowCount > 0, "{}: there are no data rows after the header '{}'", csvPath, headerText);

  // A single x column holds image paths unless its first complete row holds a number.
  layout.kind = InputKind::kNumbers;
  if (layout.x.size() == 1) {
    layout.kind = InputKind::kImage;
    std::vector<std::string> cells;
    for (size_t r = 1; r < records.size(); ++r) {
      if (!tooLongLine(view, records[r]).empty()) continue;
      const RecordScan scan = parseRecord(view.substr(0, records[r].end), records[r].begin, &cells);
      if (scan.cellCount != layout.columnCount || scan.longCell != SIZE_MAX) continue;
      double v = 0;
      if (parseNumber(cells[layout.x.front().index], v)) layout.kind = InputKind::kNumbers;
      break;
    }
  }

  // A sample store made from exactly this CSV holds its images decoded (Note [Sample store]).
  SampleStoreInfo store;
  std::string storeWarning;
  if (layout.kind == InputKind::kImage && !labelsOnly) {
    const fs::path storePath = sampleStorePathFor(csvPath);
    std::error_code ec;
    if (fs::exists(storePath, ec)) {
      std::string why;
      if (!readSampleStoreInfo(storePath, store, why))
        storeWarning = format("{}; decoding the images the CSV names instead", why);
      else if (store.csvSha256 != sha256Hex(text.data(), text.size()) || store.count != rowCount)
        storeWarning = format("sample store '{}' was made from another version of '{}' (edited since `dataset create`?); "
                              "decoding the images the CSV names instead",
                              storePath.string(), csvPath);
      else
        layout.fromStore = true;
    }
  }

  // Images are decoded in parallel; every row's outcome is kept so that the reported error (the
  // first bad row) and the warning do not depend on the order threads finish in.
  std::vector<RowResult> results(static_cast<size_t>(rowCount));
  // 8-bit images go straight into one buffer, slot r for row r, as they are decoded: holding
  // every row's own copy until the end would take twice the dataset's bytes (and the heap would
  // keep them). The slot size comes from the first good image, decoded first.
  std::vector<uint8_t> slots;
  int64_t slotBytes = 0;
  if (layout.kind == InputKind::kImage && !layout.fromStore && !labelsOnly) {
    std::vector<std::string> cells;
    for (int64_t r = 0; r < rowCount; ++r) {
      RowResult probe;
      processRow(view, records[r + 1], layout, cells, probe);
      if (!probe.error.empty()) continue;
      slotBytes = static_cast<int64_t>(probe.bytes.size());  // 0: not 8-bit levels, no slots
      break;
    }
    if (slotBytes > 0) slots.resize(static_cast<size_t>(rowCount * slotBytes));
  }
#pragma omp parallel
  {
    std::vector<std::string> cells;
#pragma omp for schedule(dynamic, 8)
    for (int64_t r = 0; r < rowCount; ++r) {
      try {
        RowResult& row = results[r];
        processRow(view, records[r + 1], layout, cells, row);
        if (static_cast<int64_t>(row.bytes.size()) == slotBytes && slotBytes > 0) {
          std::copy(row.bytes.begin(), row.bytes.end(), slots.begin() + r * slotBytes);
          std::vector<uint8_t>().swap(row.bytes);  // frees it (`= {}` keeps the capacity)
          row.inSlot = true;
        }
      } catch (...) {
        results[r].fatal = std::current_exception();
      }
    }
  }
  for (const RowResult& r : results)
    if (r.fatal) std::rethrow_exception(r.fatal);

  // Every image must match the first good one (in file order).
  if (layout.kind == InputKind::kImage && !layout.fromStore && !labelsOnly) {
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

  std::vector<SkippedRow> skipped;
  for (int64_t r = 0; r < rowCount; ++r)
    if (!results[r].error.empty()) {
      if (!skipBadRows) NS_THROW("{}: {}", csvPath, results[r].error);
      skipped.push_back({records[r + 1].line, results[r].error});
    }
  const int64_t kept = rowCount - static_cast<int64_t>(skipped.size());
  if (kept == 0) {
    std::string listed;
    for (size_t k = 0; k < skipped.size() && k < kSkippedRowsListed; ++k) listed += (k ? "; " : "") + skipped[k].reason;
    if (skipped.size() > kSkippedRowsListed) listed += format("; and {} more", skipped.size() - kSkippedRowsListed);
    NS_THROW("{}: every one of the {} data rows is bad, nothing is left to load: {}", csvPath, rowCount, listed);
  }

  Dataset ds;
  ds.source = csvPath;
  ds.labelSource = csvPath;
  ds.size = kept;
  ds.labelWidth = static_cast<int64_t>(layout.y.size());
  ds.rows.reserve(static_cast<size_t>(kept));
  for (int64_t r = 0; r < rowCount; ++r)
    if (results[r].error.empty()) ds.rows.push_back(records[r + 1].line);
  ds.sourceRows = rowCount;
  ds.skipped = std::move(skipped);
  noteSkippedRows(ds);
  if (!storeWarning.empty()) ds.warnings.push_back(storeWarning);
  ds.setByteScale(scale);
  ds.diskBytes = static_cast<int64_t>(text.size());
  ds.labels.resize(layout.y.size() * kept);
  float maxLabel = 0;
  {
    size_t k = 0;
    for (const RowResult& r : results) {
      if (!r.error.empty()) continue;
      std::copy(r.label.begin(), r.label.end(), ds.labels.begin() + k * layout.y.size());
      if (layout.y.size() == 1) maxLabel = std::max(maxLabel, r.label.front());
      ++k;
    }
  }
  if (labelsOnly) {
    // No samples: the labels and class names are all a count of the classes needs.
  } else if (layout.fromStore) {
    const fs::path storePath = sampleStorePathFor(csvPath);
    ds.sampleShape = {store.channels, store.height, store.width};
    ds.file = std::make_shared<SampleFile>(storePath.string(), "sample store", 0, store.sampleBytes(), store.count);
    ds.diskBytes += ds.file->fileBytes();
    if (kept < rowCount)
      for (int64_t r = 0; r < rowCount; ++r)
        if (results[r].error.empty()) ds.fileSample.push_back(r);
  } else {
    const RowResult* first = nullptr;
    bool allSlots = true;
    for (const RowResult& r : results)
      if (r.error.empty()) {
        if (!first) first = &r;
        allSlots = allSlots && r.inSlot;
        ds.diskBytes += r.fileBytes;
      }
    if (layout.kind == InputKind::kImage)
      ds.sampleShape = {first->channels, first->height, first->width};
    else
      ds.sampleShape = {static_cast<int64_t>(layout.x.size())};
    const size_t sampleNumel = static_cast<size_t>(ds.sampleNumel());
    if (allSlots && layout.kind == InputKind::kImage) {
      // Kept rows to the front of the slots, in order (k <= r, so each move reads ahead of what it writes).
      int64_t k = 0;
      for (int64_t r = 0; r < rowCount; ++r) {
        if (!results[r].error.empty()) continue;
        if (k != r) std::memmove(slots.data() + k * slotBytes, slots.data() + r * slotBytes, static_cast<size_t>(slotBytes));
        ++k;
      }
      slots.resize(static_cast<size_t>(kept * slotBytes));
      ds.pixels = std::move(slots);
    } else {
      ds.features.resize(sampleNumel * kept);
      size_t k = 0;
      for (int64_t r = 0; r < rowCount; ++r) {
        RowResult& row = results[r];
        if (!row.error.empty()) continue;
        float* out = ds.features.data() + k * sampleNumel;
        if (row.inSlot)
          for (size_t j = 0; j < sampleNumel; ++j) out[j] = ds.byteValue[slots[r * slotBytes + j]];
        else if (!row.bytes.empty())
          for (size_t j = 0; j < sampleNumel; ++j) out[j] = ds.byteValue[row.bytes[j]];
        else
          std::copy(row.input.begin(), row.input.end(), out);
        std::vector<uint8_t>().swap(row.bytes);
        std::vector<float>().swap(row.input);
        ++k;
      }
    }
  }
  ds.numClasses = layout.y.size() == 1 ? static_cast<int64_t>(maxLabel) + 1 : 0;
  // Note [Class names in a CSV]
  // A column headed class_name (or name) gives each row's class name beside its label, as
  // NNC-style CSVs written by other tools do; every label must have one name, given alike on
  // every row. classes.txt beside the CSV, when there is one, is read instead (dataset.cpp).
  if (layout.nameColumn != SIZE_MAX) {
    std::vector<std::string> names(static_cast<size_t>(ds.numClasses));
    std::vector<int64_t> namedAt(static_cast<size_t>(ds.numClasses), 0);
    for (int64_t r = 0; r < rowCount; ++r) {
      const RowResult& row = results[r];
      if (!row.error.empty()) continue;
      const auto label = static_cast<size_t>(row.label.front());
      const int64_t line = records[r + 1].line;
      NS_CHECK(!row.className.empty(), "{}: row {}, column {} ({}): the class name is empty", csvPath, line,
               layout.nameColumn + 1, excerpt(header[layout.nameColumn]));
      if (names[label].empty()) {
        names[label] = row.className;
        namedAt[label] = line;
      }
      NS_CHECK(names[label] == row.className,
               "{}: row {}: label {} is named '{}', but row {} named it '{}': one name per class", csvPath, line, label,
               excerpt(row.className), namedAt[label], excerpt(names[label]));
    }
    for (size_t k = 0; k < names.size(); ++k)
      if (names[k].empty()) names[k] = std::to_string(k);  // a label no row has: its number
    for (size_t a = 0; a < names.size(); ++a)
      for (size_t b = a + 1; b < names.size(); ++b)
        NS_CHECK(names[a] != names[b], "{}: labels {} and {} are both named '{}' (rows {} and {}): one class per name",
                 csvPath, a, b, excerpt(names[a]), namedAt[a], namedAt[b]);
    ds.classNames = std::move(names);
  }
  return ds;
}

}  // namespace

Dataset readCsvDataset(const std::string& csvPath, double scale, bool skipBadRows, int64_t maxRows) {
  return readCsv(csvPath, scale, skipBadRows, maxRows, /*labelsOnly=*/false);
}

Dataset readCsvLabels(const std::string& csvPath, bool skipBadRows) {
  return readCsv(csvPath, 1.0, skipBadRows, 0, /*labelsOnly=*/true);
}

}  // namespace netsmith
