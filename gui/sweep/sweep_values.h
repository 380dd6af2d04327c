// What a sweep may vary and the values it tries: the numeric and choice settings of a project,
// taken from the engine's settings table (engine/project/settings_table.h) and, for the solver's
// hyper-parameters, its solver table, and its layers' parameters (layer_settings.h); a value list,
// a grid (from, to, count, linear or logarithmic) or a range; each value checked against the
// setting's range (or choices), with the range in the table's words.
//
// Note [Sweep value text]
// A value goes to `netsmith-cli sweep --set KEY=V1,V2` as text, and that text is also the run's
// label ("alpha=0.001") and part of its folder name. A grid's values are computed in double and
// then written with 12 significant digits, so 1e-4 × 10³ is "0.1", not 0.10000000000000002; the
// value checked and tried is the one that text reads back as.
#pragma once

#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "engine/project/project.h"
#include "engine/project/settings_table.h"

namespace netsmith::gui {

// One setting a sweep can vary, for the project as it is set now.
struct SweepSetting {
  QString path;      // "optimizer.alpha", the --set key; "network.fc1.n_outmaps" for a layer's
  QString label;     // "Learning rate (alpha)"
  bool integer = false;  // Integer and Seed rows: whole numbers only
  QStringList choices;   // a choice setting (optimizer.solver): its values; empty for a number
  SettingBounds bounds;  // from the settings table, narrowed by the solver table ([0, 1) for beta1)
  QString expected;  // "a number > 0", the table's words for the range
  QString help;

  // Null when `value` is allowed, else a sentence naming the setting, the value and the range:
  // "Learning rate (alpha): 0 is out of range: expected a number > 0".
  std::optional<QString> check(double value) const;
  // For a choice setting: null when `value` is one of the choices, else a sentence naming them.
  std::optional<QString> checkChoice(const QString& value) const;
  bool isChoice() const { return !choices.isEmpty(); }
};

// The numeric and choice settings (config.*, config.augmentation.*, optimizer.*) in the settings
// table's order; of the solver's hyper-parameters only the current solver's, its learning rate
// first; of the schedule's parameters only those the current schedule takes. (The layers'
// parameters are layer_settings.h's: the console keeps the network apart from the settings.)
// The sweep's messages, translated in one context shared by its files.
QString sweepTr(const char* text);

std::vector<SweepSetting> sweepableSettings(const Project& project);
// The learning rate's path for the project's solver ("optimizer.alpha" for Adam), from the solver table.
QString learningRatePath(const Project& project);

enum class GridSpacing { Linear, Log };

// `count` values from `from` to `to` inclusive (count 1: `from`), evenly spaced or evenly spaced
// in log10. Throws std::invalid_argument with a sentence for a count below 1 or a log grid that
// does not stay above 0. The values are the read-back of their text (Note [Sweep value text]).
std::vector<double> gridValues(double from, double to, int count, GridSpacing spacing);

// The text of one value (12 significant digits, "1e-05" written "1e-5").
QString valueText(double value);

// A list such as "0.001, 0.003 0.01" (commas and/or spaces). Throws std::invalid_argument naming
// the first item that is not a number.
std::vector<double> parseValueList(const QString& text);
// The same split, items kept as text (a choice setting's values).
QStringList splitValueList(const QString& text);

// Values of an integer setting rounded to whole numbers, duplicates removed (a log grid of a
// batch size may round two values to one), in order.
std::vector<double> roundedForIntegers(const std::vector<double>& values);

}  // namespace netsmith::gui
