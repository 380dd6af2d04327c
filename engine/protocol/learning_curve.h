// The learning curve of a run: one row per trained epoch. The run folder's learning_curve.csv
// holds it (docs/events.md, "The run folder"), each checkpoint holds it as JSON so a resumed run
// continues it, and the GUI's history overlays read it back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/protocol/json_fields.h"

namespace netsmith::protocol {

struct LearningCurveRow {
  int64_t epoch = 0;  // 1-based
  double trainLoss = kUndefined;
  std::optional<double> validationLoss;   // none: not validated this epoch
  std::optional<double> validationError;  // none: not validated, or not a classifier
  double seconds = 0;
  double learningRate = 0;

  // A checkpoint's form: [epoch, train_loss, validation_loss, validation_error, seconds,
  // learning_rate], null where a value is not defined.
  Json toJson() const;
  static LearningCurveRow fromJson(const Json& json, const Where& where);
};

using LearningCurve = std::vector<LearningCurveRow>;

// The checkpoint's "curve": an array of rows. `document` names it in errors.
Json learningCurveToJson(const LearningCurve& curve);
LearningCurve learningCurveFromJson(const Json& json, const std::string& document);

// learning_curve.csv: the header `epoch,train_loss,validation_loss,validation_error,seconds,
// learning_rate`, then one line per row; an undefined value is an empty cell.
std::string learningCurveToCsv(const LearningCurve& curve);
// Reads the columns by their header names (others ignored; `epoch` and `train_loss` are needed);
// throws ReadError naming `fileName`, the line and the column of a cell that is not a number.
LearningCurve learningCurveFromCsv(std::string_view text, const std::string& fileName);

}  // namespace netsmith::protocol
