#include "gui/training/run_history.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QObject>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>

#include <nlohmann/json.hpp>

#include "engine/train/run_folder.h"

namespace netsmith::gui {

QString runsRootFor(const QString& projectPath, const QString& projectName) {
  if (!projectPath.isEmpty()) {
    const QFileInfo info(projectPath);
    return info.dir().filePath(info.completeBaseName() + QStringLiteral(".runs"));
  }
  QString safe = projectName;
  safe.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.-]+")), QStringLiteral("_"));
  return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
      .filePath(QStringLiteral("runs/") + (safe.isEmpty() ? QStringLiteral("untitled") : safe));
}

RunSummary summariseRun(const QString& folder) {
  RunSummary r;
  r.folder = QFileInfo(folder).absoluteFilePath();
  r.name = QFileInfo(folder).fileName();
  r.label = readRunLabel(folder);
  r.hasCheckpoint = !QDir(QDir(folder).filePath(QStringLiteral("checkpoints")))
                         .entryList({QStringLiteral("*.ckpt")}, QDir::Files)
                         .isEmpty();
  QFile f(QDir(folder).filePath(QStringLiteral("events.jsonl")));
  if (!f.open(QIODevice::ReadOnly)) return r;
  bool started = false;
  while (!f.atEnd()) {
    const auto event = parseEngineEvent(f.readLine().trimmed());
    if (!event) continue;
    if (std::holds_alternative<StartedEvent>(*event)) {
      started = true;
      r.status.clear();  // a resumed run starts again
    }
    if (const auto* e = std::get_if<EpochEvent>(&*event)) r.epochs = e->epoch;
    if (const auto* fin = std::get_if<FinishedEvent>(&*event)) {
      r.status = fin->status;
      r.bestValidationError = fin->bestValidationError;
      r.message = fin->message;
      if (fin->epochs > 0) r.epochs = fin->epochs;
    }
  }
  // Started but never finished: still running (a process holds the folder's run.lock), or the
  // engine was killed.
  if (started && r.status.isEmpty())
    r.status = runFolderInUse(folder.toStdString()) ? QStringLiteral("running") : QStringLiteral("interrupted");
  return r;
}

namespace {
// <ts>-sweep<k>-<label>: a sweep's run folder (sweep_command.cpp names them so).
const QRegularExpression kSweepRun(QStringLiteral("^(\\d{8}-\\d{6})-sweep(\\d+)-(.+)$"));
const QRegularExpression kSweepFolder(QStringLiteral("^\\d{8}-\\d{6}-sweep$"));
}  // namespace

QString RunSummary::displayName() const {
  const QString base = sweepLabel.isEmpty() ? name : sweep + QStringLiteral(" · ") + sweepLabel;
  return label.isEmpty() ? base : QStringLiteral("%1 (%2)").arg(label, base);
}

bool RunSummary::resumable() const {
  return hasCheckpoint && (status == QLatin1String("stopped") || status == QLatin1String("failed") ||
                           status == QLatin1String("interrupted"));
}

QString readRunLabel(const QString& folder) {
  QFile f(QDir(folder).filePath(QStringLiteral("label.txt")));
  if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) return {};
  return QString::fromUtf8(f.readLine(4096)).trimmed();
}

bool writeRunLabel(const QString& folder, const QString& label, QString* error) {
  const QString path = QDir(folder).filePath(QStringLiteral("label.txt"));
  const QString text = label.simplified();
  if (text.isEmpty()) {
    if (!QFile::exists(path) || QFile::remove(path)) return true;
    if (error) *error = QObject::tr("cannot remove %1").arg(path);
    return false;
  }
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Text) || f.write(text.toUtf8() + '\n') < 0 || !f.commit()) {
    if (error) *error = QObject::tr("cannot write %1: %2").arg(path, f.errorString());
    return false;
  }
  return true;
}

QHash<QString, QString> readSweepLabels(const QString& sweepFolder) {
  QHash<QString, QString> labels;
  QFile f(QDir(sweepFolder).filePath(QStringLiteral("summary.json")));
  if (!f.open(QIODevice::ReadOnly)) return labels;
  const auto summary = nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
  if (!summary.is_array()) return labels;
  for (const auto& entry : summary) {
    if (!entry.is_object()) continue;
    const auto run = entry.find("run");
    if (run == entry.end() || !run->is_string()) continue;
    QString label;
    if (const auto l = entry.find("label"); l != entry.end() && l->is_string()) label = QString::fromStdString(l->get<std::string>());
    // The settings as the user gave them, when there is no label: "optimizer.alpha=0.003".
    if (const auto s = entry.find("settings"); label.isEmpty() && s != entry.end() && s->is_object()) {
      QStringList parts;
      for (auto it = s->begin(); it != s->end(); ++it)
        parts << QString::fromStdString(it.key()) + QLatin1Char('=') + QString::fromStdString(it.value().dump());
      label = parts.join(QLatin1Char(','));
    }
    // Keyed by folder name: a sweep started with a relative project path wrote relative run paths.
    labels.insert(QFileInfo(QString::fromStdString(run->get<std::string>())).fileName(), label);
  }
  return labels;
}

QList<RunSummary> listRuns(const QString& runsRoot) {
  QList<RunSummary> runs;
  const QDir root(runsRoot);
  QStringList names = root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name | QDir::Reversed);
  QHash<QString, QHash<QString, QString>> sweeps;  // sweep time stamp -> run folder -> label
  for (const QString& name : names) {
    // The sweep's own folder holds variant projects and the summary, not a run.
    if (kSweepFolder.match(name).hasMatch() && !QFile::exists(root.filePath(name + QStringLiteral("/events.jsonl")))) continue;
    RunSummary run = summariseRun(root.filePath(name));
    if (const auto m = kSweepRun.match(name); m.hasMatch()) {
      run.sweep = m.captured(1);
      if (!sweeps.contains(run.sweep)) sweeps.insert(run.sweep, readSweepLabels(root.filePath(run.sweep + QStringLiteral("-sweep"))));
      // The summary's label ("alpha=0.003"), or while the sweep runs, the one in the folder name.
      run.sweepLabel = sweeps[run.sweep].value(name, m.captured(3));
    }
    runs << run;
  }
  return runs;
}

}  // namespace netsmith::gui
