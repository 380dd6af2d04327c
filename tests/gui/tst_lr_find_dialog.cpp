// The Optimizer panel's "Find a learning rate…" (gui/config/lr_find_dialog.h): a real range test
// of the MLP sample as saved, the loss plotted against the rate with the suggestion marked, and
// "Use this rate" setting the solver's learning rate as one undo step; an unsaved project is
// refused; a damaged result is a message, not a crash.
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <qcustomplot.h>

#include "gui/config/config_page.h"
#include "gui/config/lr_find_dialog.h"
#include "gui/document/settings_edit.h"
#include "support/train_runner.h"

using namespace netsmith;
using namespace netsmith::gui;
using namespace netsmith::test;

class TestLrFindDialog : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

 private slots:
  void initTestCase() { qputenv("NETSMITH_CLI", NETSMITH_CLI); }

  void rangeTestSuggestsAndSetsTheRate() {
    const std::string file = saveProject(m_dir, "mlp", sampleProject("fashion_mnist_mlp"));
    ProjectDocument doc;
    doc.load(QString::fromStdString(file));
    ConfigPage page(&doc);
    QVERIFY(page.findChild<QPushButton*>(QStringLiteral("findLearningRate")));
    LrFindDialog dialog(&doc);
    dialog.setRange(QStringLiteral("1e-5"), QStringLiteral("10"), 40);
    QSignalSpy finished(&dialog, &LrFindDialog::finished);
    QVERIFY(dialog.start());
    QVERIFY(!dialog.useButton()->isEnabled());
    QVERIFY2(finished.wait(300000), qPrintable(dialog.statusText()));
    QVERIFY2(dialog.suggestedRate().has_value(), qPrintable(dialog.statusText()));
    QVERIFY(dialog.statusText().startsWith(QStringLiteral("Suggested learning rate")));
    const int points = dialog.plot()->graph(0)->dataCount();
    QVERIFY2(points >= 20 && points <= 40, qPrintable(QString::number(points)));
    QCOMPARE(dialog.plot()->graph(1)->dataCount(), points);
    QCOMPARE(dialog.plot()->graph(2)->data()->at(0)->key, *dialog.suggestedRate());
    QVERIFY(dialog.useButton()->isEnabled());
    // docs/screenshots/lr-find.png: NETSMITH_LR_FIND_SCREENSHOT=FILE (under Xvfb, QT_QPA_PLATFORM=xcb).
    if (const QString shot = qEnvironmentVariable("NETSMITH_LR_FIND_SCREENSHOT"); !shot.isEmpty()) {
      dialog.show();
      QTest::qWait(300);
      QVERIFY(dialog.grab().save(shot));
    }
    const Json before = settingValue(doc, QStringLiteral("optimizer.lr"));
    dialog.useButton()->click();
    QCOMPARE(settingValue(doc, QStringLiteral("optimizer.lr")).get<double>(), *dialog.suggestedRate());
    doc.undoStack()->undo();
    QCOMPARE(settingValue(doc, QStringLiteral("optimizer.lr")), before);
  }

  void unsavedProjectsAndDamagedResultsAreSaid() {
    ProjectDocument doc;
    doc.newProject();
    LrFindDialog dialog(&doc);
    QVERIFY(!dialog.start());
    QVERIFY(dialog.statusText().contains(QStringLiteral("Save the project")));
    QVERIFY(!dialog.showResult("{\"points\": 3"));
    QVERIFY(dialog.statusText().contains(QStringLiteral("could not be read")));
    QVERIFY(!dialog.suggestedRate());
    QVERIFY(!dialog.useSuggestedRate());
  }
};

QTEST_MAIN(TestLrFindDialog)
#include "tst_lr_find_dialog.moc"
