#include "gui/training/unsaved_runs.h"

#include <QCoreApplication>
#include <QDir>
#include <filesystem>
#include <system_error>

#include "engine/train/run_folder.h"

namespace fs = std::filesystem;

namespace netsmith::gui {

namespace {

QString tr(const char* text, int n = -1) { return QCoreApplication::translate("AdoptedRuns", text, nullptr, n); }

// rename(2) when both lie on one file system; else a copy that is removed from the old place
// only once it is whole.
bool moveFolder(const fs::path& from, const fs::path& to, QString& why) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (!ec) return true;
  if (ec != std::errc::cross_device_link) {
    why = QString::fromStdString(ec.message());
    return false;
  }
  fs::copy(from, to, fs::copy_options::recursive, ec);
  if (ec) {
    why = QString::fromStdString(ec.message());
    fs::remove_all(to, ec);
    return false;
  }
  fs::remove_all(from, ec);
  return true;
}

}  // namespace

AdoptedRuns adoptRuns(const QString& fromRoot, const QString& toRoot) {
  AdoptedRuns out;
  const QDir from(fromRoot);
  if (!from.exists()) return out;
  const QStringList names = from.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
  if (names.isEmpty()) return out;
  if (!QDir().mkpath(toRoot)) {
    for (const QString& name : names) out.failed << tr("%1: cannot create %2").arg(name, toRoot);
    return out;
  }
  for (const QString& name : names) {
    const QString folder = from.filePath(name);
    if (runFolderInUse(folder.toStdString())) {
      out.inUse << name;
      continue;
    }
    QString target = name;
    for (int n = 2; QDir(toRoot).exists(target); ++n) target = name + QStringLiteral("-%1").arg(n);
    QString why;
    if (moveFolder(folder.toStdString(), QDir(toRoot).filePath(target).toStdString(), why)) {
      out.moved << target;
      out.movedFrom << name;
    } else {
      out.failed << tr("%1: %2").arg(name, why);
    }
  }
  return out;
}

QString AdoptedRuns::summary(const QString& toRoot) const {
  QStringList parts;
  if (!moved.isEmpty())
    parts << (moved.size() == 1 ? tr("1 run trained before the first save moved to %1")
                                : tr("%1 runs trained before the first save moved to %2").arg(moved.size()))
                 .arg(QDir::toNativeSeparators(toRoot));
  if (!inUse.isEmpty()) parts << tr("the run training now moves there when it ends");
  if (!failed.isEmpty()) parts << tr("not moved: %1").arg(failed.join(QStringLiteral("; ")));
  return parts.join(QStringLiteral("; "));
}

}  // namespace netsmith::gui
