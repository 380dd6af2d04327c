// netsmith: the desktop console. Opens the project given on the command line (or the last one).
#include <QApplication>
#include <cstring>

#include "gui/app/application.h"

namespace {

// --help and --version print and exit (QCommandLineParser::process), but QApplication comes
// first and aborts when there is no display. Printing needs none, so those use the offscreen
// platform: `netsmith --help` works over ssh and in scripts.
bool onlyPrints(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    for (const char* flag : {"--help", "-h", "-?", "--help-all", "--version", "-v"})
      if (std::strcmp(argv[i], flag) == 0) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (onlyPrints(argc, argv)) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  return netsmith::gui::runApplication(app);
}
