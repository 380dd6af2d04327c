// The settings a study searches over (Note [Studies], study_runner.h): each a project key (a JSON
// path into the project file, or network.BLOCK.FIELD for a layer's parameter) with its domain —
// a list of values to choose from, or a numeric range (linear or log, real or integer).
// Samplers work in a unit cube: toUnit/fromUnit map a range's values to [0, 1] (log ranges in
// log space), so one sampler serves every kind of setting.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace netsmith::study {

using Json = nlohmann::json;

struct SearchParameter {
  enum class Kind { Choice, Real, Integer };
  std::string path;  // "optimizer.alpha", "config.batch_size", "network.conv1.outmaps"
  Kind kind = Kind::Choice;
  std::vector<Json> choices;  // Kind::Choice: the values, as given
  double low = 0, high = 0;   // Real/Integer: inclusive bounds
  bool log = false;           // Real/Integer: sampled uniformly in log space

  bool numeric() const { return kind != Kind::Choice; }
  // The short name of tables and labels: "alpha", "batch_size", "conv1.outmaps".
  std::string name() const;
  // "choice of 0.001, 0.01", "real 1e-05..0.1 (log)", "integer 16..256".
  std::string describe() const;
  // A numeric value's place in [0, 1] (log ranges in log space), and back; fromUnit rounds integers.
  double toUnit(double value) const;
  Json fromUnit(double u) const;
  // The value's index among the choices; nullopt when it is not one of them.
  std::optional<size_t> choiceIndex(const Json& value) const;
  // How the value is written in labels: 3 significant digits for reals.
  std::string valueText(const Json& value) const;

  Json toJson() const;
  // `where` names the document and path for errors ("study.json: parameters[2]").
  static SearchParameter fromJson(const Json& j, const std::string& where);
};

// --set KEY=V1,V2,...: a choice among the values (JSON where they parse, else strings).
// Throws Error naming the option and what was expected.
SearchParameter parseChoiceOption(const std::string& spec);
// --range KEY=LOW..HIGH[:log][:int]: a numeric range.
SearchParameter parseRangeOption(const std::string& spec);

// One trial's values, in the order of the parameters.
using TrialValues = std::vector<Json>;

// "alpha=0.00316,batch_size=64"
std::string trialLabel(const std::vector<SearchParameter>& parameters, const TrialValues& values);

}  // namespace netsmith::study
