#include "gui/sweep/sweep_request.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <set>

#include "engine/protocol/json_fields.h"

namespace netsmith::gui {

bool SweepRow::finished() const {
  return status == QLatin1String("completed") || status == QLatin1String("stopped_early") ||
         status == QLatin1String("stopped") || status == QLatin1String("failed") || status == QLatin1String("not run");
}

QString SweepRow::statusText() const {
  // The CLI's words (engine/cli/sweep_command.cpp prints the same).
  if (status == QLatin1String("stopped_early")) return sweepTr("stopped early (epoch %1)").arg(epochs);
  return status;
}

QStringList SweepAxis::valueTexts() const {
  if (setting.isChoice()) return choices;
  QStringList texts;
  for (double v : values) texts << valueText(v);
  return texts;
}

QStringList SweepAxis::option() const {
  if (range) {
    QString spec = QStringLiteral("%1=%2..%3").arg(setting.path, valueText(range->low), valueText(range->high));
    if (range->log) spec += QStringLiteral(":log");
    if (setting.integer) spec += QStringLiteral(":int");
    return {QStringLiteral("--range"), spec};
  }
  return {QStringLiteral("--set"), setting.path + QLatin1Char('=') + valueTexts().join(QLatin1Char(','))};
}

std::optional<QString> SweepAxis::problem() const {
  if (range) {
    if (setting.isChoice()) return sweepTr("%1: a choice has no range: list its values.").arg(setting.label);
    for (double end : {range->low, range->high})
      if (auto why = setting.check(end)) return why;
    if (!(range->low < range->high))
      return sweepTr("%1: a range goes from a lower to a higher value, got %2 to %3")
          .arg(setting.label, valueText(range->low), valueText(range->high));
    if (range->log && range->low <= 0)
      return sweepTr("%1: a logarithmic range needs both ends above 0, got %2 to %3")
          .arg(setting.label, valueText(range->low), valueText(range->high));
    return std::nullopt;
  }
  if (setting.isChoice()) {
    if (choices.isEmpty()) return sweepTr("%1: give at least one of %2.").arg(setting.label, setting.choices.join(QStringLiteral(", ")));
    for (const QString& c : choices)
      if (auto why = setting.checkChoice(c)) return why;
    return std::nullopt;
  }
  if (values.empty()) return sweepTr("%1: give at least one value.").arg(setting.label);
  for (double v : values)
    if (auto why = setting.check(v)) return why;
  return std::nullopt;
}

QStringList SweepRequest::arguments() const {
  QStringList args{QStringLiteral("sweep")};
  if (!resumeFolder.isEmpty()) {
    // A resume continues the study as it was defined: only where it trains may change.
    args << QStringLiteral("--resume") << resumeFolder;
    if (!devices.isEmpty()) args << QStringLiteral("--devices") << devices.join(QLatin1Char(','));
    if (devicesPerTrial > 1) args << QStringLiteral("--devices-per-trial") << QString::number(devicesPerTrial);
    return args << QStringLiteral("--json");
  }
  args << project;
  if (isSearch()) args << QStringLiteral("--search") << QString::fromStdString(study::searchKindName(search));
  for (const SweepAxis& axis : axes) args << axis.option();
  if (!isSearch())
    for (const QString& p : queuedProjects) args << QStringLiteral("--queue") << p;
  if (isSearch() && trials > 0) args << QStringLiteral("--trials") << QString::number(trials);
  if (timeBudgetMinutes > 0) args << QStringLiteral("--time-budget") << QStringLiteral("%1m").arg(timeBudgetMinutes);
  if (earlyStop) args << QStringLiteral("--early-stop") << QString::fromStdString(study::stopRuleName(*earlyStop));
  if (!devices.isEmpty()) args << QStringLiteral("--devices") << devices.join(QLatin1Char(','));
  if (devicesPerTrial > 1) args << QStringLiteral("--devices-per-trial") << QString::number(devicesPerTrial);
  if (maxEpoch > 0) args << QStringLiteral("--max-epoch") << QString::number(maxEpoch);
  if (trainSamples > 0) args << QStringLiteral("--train-samples") << QString::number(trainSamples);
  if (validationSamples > 0) args << QStringLiteral("--validation-samples") << QString::number(validationSamples);
  args << QStringLiteral("--json");
  return args;
}

std::vector<SweepRow> SweepRequest::plannedRows() const {
  // Nothing chosen yet is no training (not one of the project as it is); a search's trials are
  // not known before they are suggested.
  if (isSearch() || !resumeFolder.isEmpty() || (axes.empty() && queuedProjects.isEmpty())) return {};
  // Every combination, the first axis slowest: the order of `netsmith-cli sweep`'s queue.
  std::vector<QStringList> combinations{{}};
  for (const SweepAxis& axis : axes) {
    std::vector<QStringList> next;
    for (const QStringList& c : combinations)
      for (const QString& v : axis.valueTexts()) next.push_back(c + QStringList{v});
    combinations = next;
  }
  std::vector<SweepRow> rows;
  for (const QStringList& c : combinations) {
    SweepRow row;
    row.project = project;
    row.values = c;
    rows.push_back(row);
  }
  for (const QString& p : queuedProjects) {
    SweepRow row;
    row.project = p;
    rows.push_back(row);
  }
  for (size_t i = 0; i < rows.size(); ++i) rows[i].index = static_cast<int>(i) + 1;
  return rows;
}

std::optional<QString> SweepRequest::problem() const {
  if (!resumeFolder.isEmpty()) {
    if (devicesPerTrial > devices.size() && !devices.isEmpty())
      return sweepTr("%1 devices per trial, but %2 devices are ticked.").arg(devicesPerTrial).arg(devices.size());
    return std::nullopt;
  }
  if (project.isEmpty()) return sweepTr("Save the project first: the sweep trains the project file.");
  if (isSearch() && axes.empty()) return sweepTr("Choose at least one setting to search.");
  if (axes.empty() && queuedProjects.isEmpty())
    return sweepTr("Choose a setting and its values, or queue other projects.");
  std::set<QString> paths;
  for (const SweepAxis& axis : axes) {
    if (!paths.insert(axis.setting.path).second)
      return sweepTr("%1 is chosen twice: choose another second setting.").arg(axis.setting.label);
    if (axis.range && !isSearch())
      return sweepTr("%1: a range is for a random or Bayesian search; a grid takes a list of values.").arg(axis.setting.label);
    if (auto why = axis.problem()) return why;
    if (axis.setting.path == QLatin1String("config.max_epoch") && maxEpoch > 0)
      return sweepTr("Max epoch is swept: leave the max epoch limit at the project's.");
  }
  if (devicesPerTrial > devices.size() && !devices.isEmpty())
    return sweepTr("%1 devices per trial, but %2 devices are ticked.").arg(devicesPerTrial).arg(devices.size());
  return std::nullopt;
}

QString valueTextOf(const nlohmann::json& value) {
  if (value.is_string()) return QString::fromStdString(value.get<std::string>());
  if (value.is_number()) return valueText(value.get<double>());
  return QString::fromStdString(value.dump());
}

QString runsFolderOf(const QString& projectFile) {
  const QFileInfo info(projectFile);
  return QDir(info.absolutePath()).filePath(info.completeBaseName() + QStringLiteral(".runs"));
}

std::optional<QString> applySummary(const QByteArray& text, std::vector<SweepRow>& rows, const QStringList& axisPaths) {
  using protocol::FieldReader;
  const auto json = protocol::Json::parse(text.toStdString(), nullptr, false);
  if (json.is_discarded() || !json.is_array()) return sweepTr("the sweep's summary is not a JSON array");
  const size_t planned = rows.size();
  try {
    for (size_t i = 0; i < json.size(); ++i) {
      const FieldReader r(json[i], protocol::Where{"sweep summary", "[" + std::to_string(i) + "]"});
      if (i >= rows.size()) {
        // A trial the log had not shown yet (the summary is read when the study ends).
        SweepRow added;
        added.index = static_cast<int>(i) + 1;
        added.project = QString::fromStdString(r.text("project"));
        if (const auto settings = r.object("settings"))
          for (const QString& path : axisPaths) added.values << valueTextOf(settings->raw(path.toStdString().c_str()));
        rows.push_back(added);
      }
      SweepRow& row = rows[i];
      row.status = QString::fromStdString(r.text("status", "not run"));
      row.device = QString::fromStdString(r.text("device"));
      row.finalError = r.optionalNumber("final_validation_error");
      row.bestError = r.optionalNumber("best_validation_error");
      row.bestEpoch = r.integer("best_epoch");
      row.epochs = r.integer("epochs", row.epochs);
      row.seconds = r.number("seconds", row.seconds);
      row.runFolder = QString::fromStdString(r.text("run", row.runFolder.toStdString()));
      row.trialProject = QString::fromStdString(r.text("trial_project", row.trialProject.toStdString()));
      row.message = QString::fromStdString(r.text("message"));
      if (r.has("stopped_early")) row.stoppedEarly = QString::fromStdString(r.text("stopped_early"));
    }
  } catch (const protocol::ReadError& e) {
    return QString::fromStdString(e.what());
  }
  if (planned > 0 && json.size() != planned)
    return sweepTr("the sweep's summary has %1 rows, %2 were planned").arg(json.size()).arg(planned);
  return std::nullopt;
}

}  // namespace netsmith::gui
