#include "gui/app/help_text.h"

#include <QRegularExpression>

namespace netsmith::gui {

QString helpTextForReaders(const QString& markdown) {
  // A parenthesis that holds a pointer into the code goes whole, with the space before it.
  static const QRegularExpression pointer(
      QStringLiteral(" ?\\((?=[^()]*(?:Note \\[|`(?:gui|engine|tests|installer|packaging|cmake)/|DESIGN\\.md))[^()]*\\)"));
  QString text = markdown;
  text.remove(pointer);
  return text;
}

}  // namespace netsmith::gui
