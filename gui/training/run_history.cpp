#include "gui/training/run_history.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>

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
  // Started but never finished: still running, or the engine was killed.
  if (started && r.status.isEmpty()) r.status = QStringLiteral("interrupted");
  return r;
}

QList<RunSummary> listRuns(const QString& runsRoot) {
  QList<RunSummary> runs;
  const QDir root(runsRoot);
  QStringList names = root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name | QDir::Reversed);
  for (const QString& name : names) runs << summariseRun(root.filePath(name));
  return runs;
}

}  // namespace netsmith::gui
