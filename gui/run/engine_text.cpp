#include "gui/run/engine_text.h"

#include <QCoreApplication>
#include <QRegularExpression>

namespace netsmith::gui {

QString withoutEngineName(QString text) {
  static const QRegularExpression prefix(QStringLiteral("^netsmith-cli(?: [a-z-]+)?: (?:error: )?"),
                                         QRegularExpression::MultilineOption);
  return text.remove(prefix);
}

QString engineTextForPeople(const QString& text, const NetworkSpec& network, const QString& engineFile) {
  QString out = withoutEngineName(text);
  if (!engineFile.isEmpty())
    out.replace(engineFile, QCoreApplication::translate("netsmith", "the project"));
  static const QRegularExpression node(QStringLiteral("network\\.nodes\\[(\\d+)\\](?:\\.params)?(?:\\.([A-Za-z_][A-Za-z0-9_]*))?"));
  QString result;
  qsizetype last = 0;
  for (auto it = node.globalMatch(out); it.hasNext();) {
    const QRegularExpressionMatch m = it.next();
    const size_t i = m.captured(1).toULongLong();
    result += out.mid(last, m.capturedStart() - last);
    if (i < network.nodes.size()) {
      result += QCoreApplication::translate("netsmith", "block '%1'").arg(QString::fromStdString(network.nodes[i].id));
      if (!m.captured(2).isEmpty()) result += QStringLiteral(", ") + m.captured(2);
    } else {
      result += m.captured(0);
    }
    last = m.capturedEnd();
  }
  return result + out.mid(last);
}

}  // namespace netsmith::gui
