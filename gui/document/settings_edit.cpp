#include "gui/document/settings_edit.h"

#include <QLocale>
#include <algorithm>

#include "engine/core/error.h"
#include "engine/project/project_io.h"

namespace netsmith::gui {

namespace {
Json::json_pointer pointerOf(const QString& path) {
  std::string s = "/" + ss(path);
  std::replace(s.begin(), s.end(), '.', '/');
  return Json::json_pointer(s);
}
}  // namespace

Json settingValue(const ProjectDocument& doc, const QString& path) {
  const Json json = projectToJson(doc.toProject());
  const auto pointer = pointerOf(path);
  return json.contains(pointer) ? json.at(pointer) : Json();
}

QString applySetting(ProjectDocument* doc, const QString& path, const Json& value) {
  return applySettings(doc, path, {{path, value}});
}

QString applySettings(ProjectDocument* doc, const QString& path, const std::vector<std::pair<QString, Json>>& changes) {
  Json candidate = projectToJson(doc->toProject());
  for (const auto& [changed, value] : changes) {
    const auto pointer = pointerOf(changed);
    if (value.is_null()) {
      if (candidate.contains(pointer)) candidate.at(pointer.parent_pointer()).erase(pointer.back());
    } else {
      candidate[pointer] = value;
    }
  }
  Project parsed;
  try {
    parsed = parseProject(candidate, ss(doc->path()), ProjectParseOptions{.checkNetwork = false});
  } catch (const Error& e) {
    QString message = qs(e.what());
    // The loader names the file; the field is what the user needs.
    if (!doc->path().isEmpty()) message.remove(doc->path() + QStringLiteral(": "));
    return message;
  }
  const Project before = doc->settings();
  if (projectToJson(parsed) == projectToJson(doc->toProject())) return {};  // nothing changed
  doc->undoStack()->push(new SettingsCommand(doc, before, parsed, path));
  return {};
}

Json valueFromText(const QString& text) {
  const QString t = text.trimmed();
  bool ok = false;
  const qlonglong i = t.toLongLong(&ok);
  if (ok) return i;
  const double d = QLocale::c().toDouble(t, &ok);
  if (ok) return d;
  // A fraction, as people write a scale or a rate: "1/255", "1 / 1e3".
  if (const qsizetype slash = t.indexOf(QLatin1Char('/')); slash > 0) {
    bool okNumerator = false, okDenominator = false;
    const double numerator = QLocale::c().toDouble(t.left(slash).trimmed(), &okNumerator);
    const double denominator = QLocale::c().toDouble(t.mid(slash + 1).trimmed(), &okDenominator);
    if (okNumerator && okDenominator && denominator != 0) return numerator / denominator;
  }
  if (t == QLatin1String("true")) return true;
  if (t == QLatin1String("false")) return false;
  return ss(t);
}

}  // namespace netsmith::gui
