// How the Training page writes its figures for people: durations ("1:05", "2:03:04") and
// numbers ("0.1234"), with "–" for a value that is not there.
#pragma once

#include <QLocale>
#include <QString>

#include "gui/run/engine_event.h"

namespace netsmith::gui {

inline QString durationText(double seconds) {
  if (!hasValue(seconds) || seconds < 0) return QStringLiteral("–");
  const qint64 s = static_cast<qint64>(seconds + 0.5);
  return s >= 3600 ? QStringLiteral("%1:%2:%3").arg(s / 3600).arg(s / 60 % 60, 2, 10, QLatin1Char('0')).arg(s % 60, 2, 10, QLatin1Char('0'))
                   : QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

inline QString numberText(double v, int precision = 4) {
  return hasValue(v) ? QLocale().toString(v, 'g', precision) : QStringLiteral("–");
}

}  // namespace netsmith::gui
