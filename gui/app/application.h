// The `netsmith` program: command line, application identity, the main window.
#pragma once

#include <QTranslator>

class QApplication;

namespace netsmith::gui {

// English plural forms for every "%n ...(s)" text of the program (Qt's numerus texts, which read
// "1 layer(s)", "2 core(s)" without a translation): "(s)" and "(es)" are dropped for n = 1 and
// kept as "s" / "es" otherwise, so tr("%n core(s)", nullptr, 2) reads "2 cores" and
// tr("%n layer(s)", nullptr, 1) "1 layer". Texts without %n are left alone.
class EnglishPlurals : public QTranslator {
  Q_OBJECT
 public:
  using QTranslator::QTranslator;
  bool isEmpty() const override { return false; }
  QString translate(const char* context, const char* sourceText, const char* disambiguation = nullptr,
                    int n = -1) const override;
};

// Parses the command line (a project to open; hidden --screenshot PAGE=FILE.png options) and runs
// the event loop. Returns the exit code.
int runApplication(QApplication& app);

}  // namespace netsmith::gui
