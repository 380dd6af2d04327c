// std::string <-> QString, UTF-8 both ways: the engine's strings meet Qt's widgets here.
#pragma once

#include <QString>
#include <string>

namespace netsmith::gui {

inline QString qs(const std::string& s) { return QString::fromStdString(s); }
inline std::string ss(const QString& s) { return s.toStdString(); }

}  // namespace netsmith::gui
