#include "gui/document/recovery_store.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QStandardPaths>

#include "engine/core/error.h"
#include "engine/project/project_io.h"
#include "gui/document/project_document.h"

namespace netsmith::gui {

RecoveryStore::RecoveryStore(QString folder) : m_folder(std::move(folder)) {
  if (m_folder.isEmpty())
    m_folder = QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath(QStringLiteral("recovery"));
}

QString RecoveryStore::baseNameFor(const QString& path) const {
  // One file per document: named by a hash of its path (unsaved documents share "untitled").
  if (path.isEmpty()) return QStringLiteral("untitled");
  return QString::fromLatin1(QCryptographicHash::hash(path.toUtf8(), QCryptographicHash::Sha1).toHex().left(16));
}

void RecoveryStore::write(const ProjectDocument& doc) {
  if (!QDir().mkpath(m_folder)) throw Error(format("{}: cannot create the recovery folder", ss(m_folder)));
  const QDir dir(m_folder);
  const QString base = baseNameFor(doc.path());
  const QString file = dir.filePath(base + QStringLiteral(".nsproj"));
  Project project = doc.toProject();
  saveProject(project, ss(file));

  QJsonObject note{{"original", doc.path()},
                   {"name", qs(doc.settings().name)},
                   {"saved_at", QDateTime::currentDateTime().toString(Qt::ISODate)}};
  QSaveFile out(dir.filePath(base + QStringLiteral(".json")));
  if (!out.open(QIODevice::WriteOnly) || out.write(QJsonDocument(note).toJson()) < 0 || !out.commit())
    throw Error(format("{}: cannot write the recovery note", ss(out.fileName())));
}

void RecoveryStore::discard(const QString& path) {
  const QDir dir(m_folder);
  const QString base = baseNameFor(path);
  QFile::remove(dir.filePath(base + QStringLiteral(".nsproj")));
  QFile::remove(dir.filePath(base + QStringLiteral(".json")));
}

void RecoveryStore::discard(const RecoveryEntry& entry) {
  QFile::remove(entry.recoveryFile);
  QString note = entry.recoveryFile;
  note.replace(QStringLiteral(".nsproj"), QStringLiteral(".json"));
  QFile::remove(note);
}

QList<RecoveryEntry> RecoveryStore::pending() const {
  QList<RecoveryEntry> out;
  const QDir dir(m_folder);
  for (const QString& name : dir.entryList({QStringLiteral("*.json")}, QDir::Files)) {
    QFile f(dir.filePath(name));
    if (!f.open(QIODevice::ReadOnly)) continue;
    const QJsonObject note = QJsonDocument::fromJson(f.readAll()).object();
    QString project = dir.filePath(name);
    project.replace(project.size() - 5, 5, QStringLiteral(".nsproj"));
    if (!QFile::exists(project)) continue;
    out.push_back({project, note.value("original").toString(), note.value("name").toString(),
                   QDateTime::fromString(note.value("saved_at").toString(), Qt::ISODate)});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.savedAt > b.savedAt; });
  return out;
}

}  // namespace netsmith::gui
