#include "engine/protocol/learning_curve.h"

#include <cerrno>
#include <cstdlib>
#include <iterator>

namespace netsmith::protocol {

Json LearningCurveRow::toJson() const {
  return Json::array({epoch, trainLoss, optionalJson(validationLoss), optionalJson(validationError), seconds, learningRate});
}

LearningCurveRow LearningCurveRow::fromJson(const Json& json, const Where& where) {
  if (!json.is_array() || json.size() < 6) failValue(where, "[epoch, train_loss, validation_loss, validation_error, seconds, learning_rate]", json);
  LearningCurveRow r;
  r.epoch = integerValue(json[0], where.element(0));
  r.trainLoss = numberValue(json[1], where.element(1));
  if (!json[2].is_null()) r.validationLoss = numberValue(json[2], where.element(2));
  if (!json[3].is_null()) r.validationError = numberValue(json[3], where.element(3));
  r.seconds = numberValue(json[4], where.element(4));
  r.learningRate = numberValue(json[5], where.element(5));
  return r;
}

Json learningCurveToJson(const LearningCurve& curve) {
  Json rows = Json::array();
  for (const LearningCurveRow& r : curve) rows.push_back(r.toJson());
  return rows;
}

LearningCurve learningCurveFromJson(const Json& json, const std::string& document) {
  const Where where{document, {}};
  if (!json.is_array()) failValue(where, "an array of learning curve rows", json);
  LearningCurve curve;
  for (size_t i = 0; i < json.size(); ++i) curve.push_back(LearningCurveRow::fromJson(json[i], where.element(i)));
  return curve;
}

namespace {

constexpr const char* kColumns[] = {"epoch", "train_loss", "validation_loss", "validation_error", "seconds", "learning_rate"};
constexpr const char* kHeader = "epoch,train_loss,validation_loss,validation_error,seconds,learning_rate";

std::string cell(double v) { return std::isfinite(v) ? format("{}", v) : std::string(); }
std::string cell(const std::optional<double>& v) { return v ? cell(*v) : std::string(); }

std::vector<std::string_view> splitLine(std::string_view line) {
  std::vector<std::string_view> cells;
  size_t start = 0;
  for (;;) {
    const size_t comma = line.find(',', start);
    cells.push_back(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) return cells;
    start = comma + 1;
  }
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

// An empty cell: nullopt. Anything else must be a whole number (nan and inf read as not defined).
std::optional<double> parseCell(std::string_view text, const std::string& fileName, size_t line, const char* column) {
  text = trimmed(text);
  if (text.empty()) return std::nullopt;
  const std::string s(text);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || errno == ERANGE)
    throw ReadError(format("{}: line {}, column {}: expected a number, got \"{}\"", fileName, line, column, s));
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

std::string learningCurveToCsv(const LearningCurve& curve) {
  std::string csv = kHeader;
  csv += "\n";
  for (const LearningCurveRow& r : curve)
    csv += format("{},{},{},{},{},{}\n", r.epoch, cell(r.trainLoss), cell(r.validationLoss), cell(r.validationError),
                  cell(r.seconds), cell(r.learningRate));
  return csv;
}

LearningCurve learningCurveFromCsv(std::string_view text, const std::string& fileName) {
  LearningCurve curve;
  int column[std::size(kColumns)];
  bool header = true;
  size_t lineNumber = 0;
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = std::min(text.find('\n', start), text.size());
    const std::string_view line = trimmed(text.substr(start, nl - start));
    start = nl + 1;
    ++lineNumber;
    if (line.empty()) continue;
    const std::vector<std::string_view> cells = splitLine(line);
    if (header) {
      header = false;
      for (size_t c = 0; c < std::size(kColumns); ++c) {
        column[c] = -1;
        for (size_t k = 0; k < cells.size(); ++k)
          if (trimmed(cells[k]) == kColumns[c]) column[c] = static_cast<int>(k);
      }
      if (column[0] < 0 || column[1] < 0)
        throw ReadError(format("{}: line 1: expected a header with the columns epoch and train_loss ({}), got \"{}\"",
                               fileName, kHeader,
                               std::string(line.substr(0, 120))));
      continue;
    }
    auto value = [&](size_t c) -> std::optional<double> {
      if (column[c] < 0 || static_cast<size_t>(column[c]) >= cells.size()) return std::nullopt;
      return parseCell(cells[static_cast<size_t>(column[c])], fileName, lineNumber, kColumns[c]);
    };
    LearningCurveRow r;
    const std::optional<double> epoch = value(0);
    if (!epoch || *epoch != std::floor(*epoch))
      throw ReadError(format("{}: line {}, column epoch: expected an epoch number, got \"{}\"", fileName, lineNumber,
                             column[0] < static_cast<int>(cells.size()) ? std::string(cells[static_cast<size_t>(column[0])]) : std::string()));
    r.epoch = static_cast<int64_t>(*epoch);
    r.trainLoss = value(1).value_or(kUndefined);
    r.validationLoss = value(2);
    r.validationError = value(3);
    r.seconds = value(4).value_or(0.0);
    r.learningRate = value(5).value_or(0.0);
    curve.push_back(r);
  }
  return curve;
}

}  // namespace netsmith::protocol
