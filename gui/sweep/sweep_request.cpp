#include "gui/sweep/sweep_request.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <set>

#include "engine/protocol/json_fields.h"

namespace netsmith::gui {

namespace {
}  // namespace

bool SweepRow::finished() const {
  return status == QLatin1String("completed") || status == QLatin1String("stopped") ||
         status == QLatin1String("failed") || status == QLatin1String("not run");
}

QStringList SweepRequest::arguments() const {
  QStringList args{QStringLiteral("sweep"), project};
  for (const SweepAxis& axis : axes) {
    QStringList texts;
    for (double v : axis.values) texts << valueText(v);
    args << QStringLiteral("--set") << axis.setting.path + QLatin1Char('=') + texts.join(QLatin1Char(','));
  }
  for (const QString& p : queuedProjects) args << QStringLiteral("--queue") << p;
  if (!devices.isEmpty()) args << QStringLiteral("--devices") << devices.join(QLatin1Char(','));
  if (maxEpoch > 0) args << QStringLiteral("--max-epoch") << QString::number(maxEpoch);
  if (trainSamples > 0) args << QStringLiteral("--train-samples") << QString::number(trainSamples);
  if (validationSamples > 0) args << QStringLiteral("--validation-samples") << QString::number(validationSamples);
  args << QStringLiteral("--json");
  return args;
}

std::vector<SweepRow> SweepRequest::plannedRows() const {
  // Nothing chosen yet is no training (not one of the project as it is).
  if (axes.empty() && queuedProjects.isEmpty()) return {};
  // Every combination, the first axis slowest: the order of `netsmith-cli sweep`'s queue.
  std::vector<QStringList> combinations{{}};
  for (const SweepAxis& axis : axes) {
    std::vector<QStringList> next;
    for (const QStringList& c : combinations)
      for (double v : axis.values) next.push_back(c + QStringList{valueText(v)});
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
  if (project.isEmpty()) return sweepTr("Save the project first: the sweep trains the project file.");
  if (axes.empty() && queuedProjects.isEmpty())
    return sweepTr("Choose a setting and its values, or queue other projects.");
  std::set<QString> paths;
  for (const SweepAxis& axis : axes) {
    if (!paths.insert(axis.setting.path).second)
      return sweepTr("%1 is chosen twice: choose another second setting.").arg(axis.setting.label);
    if (axis.values.empty()) return sweepTr("%1: give at least one value.").arg(axis.setting.label);
    for (double v : axis.values)
      if (auto why = axis.setting.check(v)) return why;
    if (axis.setting.path == QLatin1String("config.max_epoch") && maxEpoch > 0)
      return sweepTr("Max epoch is swept: leave the max epoch limit at the project's.");
  }
  return std::nullopt;
}

QString runsFolderOf(const QString& projectFile) {
  const QFileInfo info(projectFile);
  return QDir(info.absolutePath()).filePath(info.completeBaseName() + QStringLiteral(".runs"));
}

std::optional<QString> applySummary(const QByteArray& text, std::vector<SweepRow>& rows) {
  using protocol::FieldReader;
  const auto json = protocol::Json::parse(text.toStdString(), nullptr, false);
  if (json.is_discarded() || !json.is_array()) return sweepTr("the sweep's summary is not a JSON array");
  try {
    for (size_t i = 0; i < json.size() && i < rows.size(); ++i) {
      const FieldReader r(json[i], protocol::Where{"sweep summary", "[" + std::to_string(i) + "]"});
      SweepRow& row = rows[i];
      row.status = QString::fromStdString(r.text("status", "not run"));
      row.device = QString::fromStdString(r.text("device"));
      row.finalError = r.optionalNumber("final_validation_error");
      row.bestError = r.optionalNumber("best_validation_error");
      row.bestEpoch = r.integer("best_epoch");
      row.seconds = r.number("seconds", row.seconds);
      row.runFolder = QString::fromStdString(r.text("run", row.runFolder.toStdString()));
      row.message = QString::fromStdString(r.text("message"));
    }
  } catch (const protocol::ReadError& e) {
    return QString::fromStdString(e.what());
  }
  if (json.size() != rows.size())
    return sweepTr("the sweep's summary has %1 rows, %2 were planned").arg(json.size()).arg(rows.size());
  return std::nullopt;
}

}  // namespace netsmith::gui
