// The first window fits its screen (issue 27 item 3; Note [Window size]): on a 1366×768 screen it
// opened at 1440×900, its bottom and right edge off the screen. The offscreen platform is given a
// 1366×768 screen (its own is 800×600, smaller than the window's minimum) before the application starts.
#include <QApplication>
#include <QScreen>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

#include "gui/app/main_window.h"
#include "gui/app/window_size.h"
#include "support/laptop_window.h"

using namespace netsmith;
using namespace netsmith::gui;

class TestWindowSize : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    test::useOwnSettings("tst_window_size");  // no geometry saved: a first window
    QCOMPARE(QGuiApplication::primaryScreen()->geometry().size(), QSize(1366, 768));
  }

  // The size rule on screens small and large.
  void initialSizeFollowsTheScreen() {
    const QSize minimum(MainWindow::kMinimumWidth, MainWindow::kMinimumHeight);
    // A laptop with a 28 px taskbar: the available area less the frame.
    QCOMPARE(initialWindowSize(QRect(0, 0, 1366, 740), minimum), QSize(1366, 740).shrunkBy(kAssumedFrame));
    // A large screen: the preferred size, not the whole screen.
    QCOMPARE(initialWindowSize(QRect(0, 0, 2560, 1400), minimum), kPreferredWindowSize);
    // Smaller than the minimum: the minimum (the pages scroll).
    QCOMPARE(initialWindowSize(QRect(0, 0, 800, 600), minimum), QSize(900, 600 - kAssumedFrame.top() - kAssumedFrame.bottom()));
  }

  // A real MainWindow with no saved geometry, on the 1366×768 screen: its frame lies on the
  // screen's available area, and it is as large as that allows.
  void firstWindowFitsTheScreen() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QRect available = w.screen()->availableGeometry();
    const QRect frame = w.frameGeometry();
    QVERIFY2(available.contains(frame), qPrintable(QString("frame %1,%2 %3x%4 on %5x%6")
                                                       .arg(frame.x()).arg(frame.y()).arg(frame.width()).arg(frame.height())
                                                       .arg(available.width()).arg(available.height())));
    QVERIFY2(w.width() >= available.width() - 40 && w.height() >= available.height() - 80,
             qPrintable(QString("%1x%2").arg(w.width()).arg(w.height())));
  }
};

int main(int argc, char** argv) {
  QTemporaryDir dir;
  const QString config = dir.filePath("screen.json");
  QFile file(config);
  if (!file.open(QIODevice::WriteOnly)) return 1;
  file.write(R"({"screens":[{"name":"laptop","x":0,"y":0,"width":1366,"height":768,"logicalDpi":96,"logicalBpi":96,"dpr":1}]})");
  file.close();
  qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + config.toUtf8());
  QApplication app(argc, argv);
  TestWindowSize test;
  return QTest::qExec(&test, argc, argv);
}

#include "tst_window_size.moc"
