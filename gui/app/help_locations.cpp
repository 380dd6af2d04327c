#include "gui/app/help_locations.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>

namespace netsmith::gui {

namespace {

constexpr int kSourceTreeLevels = 4;  // build/bin/netsmith, build/tests/tst_x: two levels up

// The environment's folder first, then the installed one relative to bin/, then the source tree's,
// then the package's.
QStringList candidates(const char* variable, const QString& installed, const QString& inSourceTree) {
  QStringList out;
  const QString fromEnv = qEnvironmentVariable(variable);
  if (!fromEnv.isEmpty()) out << fromEnv;
  const QDir bin(QCoreApplication::applicationDirPath());
  out << QDir::cleanPath(bin.filePath(QStringLiteral("../") + installed));
  QDir up = bin;
  for (int level = 0; level < kSourceTreeLevels && up.cdUp(); ++level) out << up.filePath(inSourceTree);
  out << QStringLiteral("/usr/") + installed;  // an executable copied elsewhere, the package installed
  out.removeDuplicates();
  return out;
}

bool hasSamples(const QString& folder) {
  return !QDir(folder).entryList({QStringLiteral("*.nsproj")}, QDir::Files).isEmpty();
}

}  // namespace

QStringList documentationCandidates() {
  return candidates("NETSMITH_DOCS", QStringLiteral("share/doc/netsmith"), QStringLiteral("docs"));
}

QStringList samplesCandidates() {
  return candidates("NETSMITH_SAMPLES", QStringLiteral("share/netsmith/projects"), QStringLiteral("projects"));
}

QString documentationFolder() {
  for (const QString& folder : documentationCandidates())
    if (QFileInfo::exists(QDir(folder).filePath(QStringLiteral("gui.md")))) return QDir(folder).absolutePath();
  return {};
}

QString samplesFolder() {
  for (const QString& folder : samplesCandidates())
    if (hasSamples(folder)) return QDir(folder).absolutePath();
  return {};
}

QList<SampleProject> listSamples(const QString& folder) {
  QList<SampleProject> samples;
  if (folder.isEmpty()) return samples;
  for (const QFileInfo& info : QDir(folder).entryInfoList({QStringLiteral("*.nsproj")}, QDir::Files)) {
    SampleProject s{info.absoluteFilePath(), info.completeBaseName()};
    QFile f(info.absoluteFilePath());
    if (f.open(QIODevice::ReadOnly)) {
      const QString name = QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("name")).toString();
      if (!name.isEmpty()) s.name = name;
    }
    samples << s;
  }
  std::sort(samples.begin(), samples.end(), [](const SampleProject& a, const SampleProject& b) {
    return a.name.localeAwareCompare(b.name) < 0;
  });
  return samples;
}

QString pageHelpHeading(const QString& page) {
  if (page == QLatin1String("edit")) return QStringLiteral("Edit — the network");
  if (page == QLatin1String("dataset")) return QStringLiteral("Dataset");
  if (page == QLatin1String("config")) return QStringLiteral("Config");
  if (page == QLatin1String("training")) return QStringLiteral("Training");
  if (page == QLatin1String("evaluation")) return QStringLiteral("Evaluation");
  return {};
}

}  // namespace netsmith::gui
