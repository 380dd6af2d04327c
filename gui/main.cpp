// netsmith: the desktop console. Opens the project given on the command line (or the last one).
#include <QApplication>

#include "gui/app/application.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  return netsmith::gui::runApplication(app);
}
