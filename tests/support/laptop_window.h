// GUI tests of what a laptop screen shows (issue 27 item 3): the test's own settings, so that no
// window size or page saved by another run decides the layout, and a real MainWindow of 1366×740
// (a 1366×768 screen less its taskbar) showing one page.
#pragma once

#include <QCoreApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QtTest>
#include <memory>

#include "gui/app/main_window.h"

namespace netsmith::test {

// Settings of this test alone, empty; the engine the build made.
inline void useOwnSettings(const char* testName) {
  qputenv("NETSMITH_CLI", NETSMITH_CLI);
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName(QStringLiteral("NetsmithTest"));
  QCoreApplication::setApplicationName(QString::fromLatin1(testName));
  QSettings().clear();
}

// A shown MainWindow of 1366×740 on `page` ("edit", "training", ...), with `project` open when
// given; null when it cannot be shown or the project cannot be opened.
inline std::unique_ptr<gui::MainWindow> laptopWindow(const QString& page, const QString& project = {}) {
  auto window = std::make_unique<gui::MainWindow>();
  window->resize(1366, 740);
  window->show();
  window->showPage(page);
  if (!QTest::qWaitForWindowExposed(window.get())) return nullptr;
  if (!project.isEmpty() && !window->openProject(project)) return nullptr;
  QTest::qWait(50);  // the layout settles, queued replots run
  return window;
}

}  // namespace netsmith::test
