#include "gui/sweep/sweep_values.h"

#include <QCoreApplication>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "engine/solvers/solver_table.h"

namespace netsmith::gui {

QString sweepTr(const char* text) { return QCoreApplication::translate("netsmith::gui::Sweep", text); }

namespace {

bool contains(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// The solver table's range of a hyper-parameter for one solver, as settings-table bounds.
SettingBounds boundsOf(SolverHyperRange range) {
  SettingBounds b;
  b.min = 0;
  switch (range) {
    case SolverHyperRange::Positive:
      b.minExclusive = true;
      break;
    case SolverHyperRange::NonNegative:
      break;
    case SolverHyperRange::UnitInterval:
      b.max = 1;
      b.maxExclusive = true;
      break;
    case SolverHyperRange::Flag:  // not swept: a Flag row (sweepableSettings skips it)
      b.max = 1;
      break;
  }
  return b;
}

SweepSetting fromRow(const Setting& row, const SettingBounds& bounds, const QString& label) {
  Setting words = row;  // Setting::expected() says the range in the loader's words
  words.bounds = bounds;
  SweepSetting s;
  s.path = QString::fromStdString(row.path);
  s.label = label;
  s.integer = row.type == SettingType::Integer || row.type == SettingType::Seed;
  s.bounds = bounds;
  if (row.type == SettingType::Seed) s.bounds.min = 0;
  s.expected = QString::fromStdString(words.expected());
  s.help = QString::fromStdString(row.help);
  return s;
}

}  // namespace

std::optional<QString> SweepSetting::check(double value) const {
  const auto refuse = [&](const QString& why) {
    return std::optional<QString>(
        sweepTr("%1: %2 %3: expected %4").arg(label, valueText(value), why, expected));
  };
  if (!std::isfinite(value)) return refuse(sweepTr("is not a number"));
  if (integer && value != std::floor(value)) return refuse(sweepTr("is not a whole number"));
  const bool belowMin = bounds.min && (bounds.minExclusive ? value <= *bounds.min : value < *bounds.min);
  const bool aboveMax = bounds.max && (bounds.maxExclusive ? value >= *bounds.max : value > *bounds.max);
  if (belowMin || aboveMax) return refuse(sweepTr("is out of range"));
  return std::nullopt;
}

std::optional<QString> SweepSetting::checkChoice(const QString& value) const {
  if (choices.contains(value)) return std::nullopt;
  return sweepTr("%1: '%2' is not one of %3").arg(label, value, choices.join(QStringLiteral(", ")));
}

QString learningRatePath(const Project& project) {
  const SolverRow* solver = findSolver(project.optimizer.solver);
  return solver ? QStringLiteral("optimizer.") + QString::fromLatin1(solver->lrKey) : QString();
}

std::vector<SweepSetting> sweepableSettings(const Project& project) {
  std::vector<SweepSetting> out;
  const SolverRow* solver = findSolver(project.optimizer.solver);
  const QString lrPath = learningRatePath(project);
  for (const Setting& row : settingsTable()) {
    if (row.type == SettingType::Choice) {
      SweepSetting s = fromRow(row, row.bounds, QString::fromStdString(row.label));
      for (const std::string& c : row.choices) s.choices << QString::fromStdString(c);
      out.push_back(s);
      continue;
    }
    if (row.type != SettingType::Integer && row.type != SettingType::Number && row.type != SettingType::Seed) continue;
    if (!row.schedules.empty() && !contains(row.schedules, project.optimizer.lrSchedule)) continue;
    const QString path = QString::fromStdString(row.path);
    if (row.solvers.empty()) {
      out.push_back(fromRow(row, row.bounds, QString::fromStdString(row.label)));
      continue;
    }
    // A solver's hyper-parameter: only the current solver's, with that solver's range.
    if (!solver) continue;
    for (const SolverHyperParameter& h : solver->hyper) {
      if (row.key != h.name) continue;
      const QString label = path == lrPath ? sweepTr("Learning rate (%1)").arg(QString::fromStdString(row.key))
                                           : QString::fromStdString(row.label);
      SweepSetting s = fromRow(row, boundsOf(h.range), label);
      if (path == lrPath) out.insert(out.begin(), s);
      else out.push_back(s);
    }
  }
  return out;
}

QString valueText(double value) {
  QString text = QString::number(value, 'g', 12);
  // "1e-05" -> "1e-5", "1e+20" -> "1e20": shorter labels and folder names, the same number.
  static const QRegularExpression exponent(QStringLiteral("e([+-])0*(\\d)"));
  text.replace(exponent, QStringLiteral("e\\1\\2"));
  text.replace(QStringLiteral("e+"), QStringLiteral("e"));
  return text;
}

std::vector<double> gridValues(double from, double to, int count, GridSpacing spacing) {
  if (count < 1) throw std::invalid_argument(sweepTr("a grid needs at least 1 value, got %1").arg(count).toStdString());
  if (!std::isfinite(from) || !std::isfinite(to)) throw std::invalid_argument(sweepTr("a grid's ends must be numbers").toStdString());
  if (spacing == GridSpacing::Log && (from <= 0 || to <= 0))
    throw std::invalid_argument(
        sweepTr("a logarithmic grid needs both ends above 0, got %1 to %2").arg(valueText(from), valueText(to)).toStdString());
  std::vector<double> out;
  for (int i = 0; i < count; ++i) {
    const double t = count == 1 ? 0.0 : static_cast<double>(i) / (count - 1);
    const double v = spacing == GridSpacing::Linear ? from + (to - from) * t
                                                    : std::pow(10.0, std::log10(from) + (std::log10(to) - std::log10(from)) * t);
    out.push_back(valueText(v).toDouble());
  }
  return out;
}

QStringList splitValueList(const QString& text) {
  static const QRegularExpression separators(QStringLiteral("[,;\\s]+"));
  return text.split(separators, Qt::SkipEmptyParts);
}

std::vector<double> parseValueList(const QString& text) {
  std::vector<double> out;
  for (const QString& item : splitValueList(text)) {
    bool ok = false;
    const double v = item.toDouble(&ok);
    if (!ok || !std::isfinite(v)) throw std::invalid_argument(sweepTr("'%1' is not a number").arg(item).toStdString());
    out.push_back(v);
  }
  return out;
}

std::vector<double> roundedForIntegers(const std::vector<double>& values) {
  std::vector<double> out;
  for (double v : values) {
    const double r = std::round(v);
    if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  }
  return out;
}

}  // namespace netsmith::gui
