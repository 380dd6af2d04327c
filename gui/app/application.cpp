#include "gui/app/application.h"

#include <QApplication>
#include <QMainWindow>

namespace netsmith::gui {

int runApplication(QApplication& app) {
  QMainWindow window;
  window.show();
  return app.exec();
}

}  // namespace netsmith::gui
