// The main window's file handling as a person meets it in the second hour: runs trained before a
// project's first Save move with it and show (Note [Runs before the first Save]), a new project
// takes its file's name, the title says each name once, and Ctrl+Y / Ctrl+Shift+S are bound.
#include <QAction>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

#include "gui/app/main_window.h"
#include "gui/evaluation/evaluation_page.h"
#include "gui/training/run_history.h"
#include "gui/training/training_page.h"

using namespace netsmith;
using namespace netsmith::gui;

class TestMainWindowFiles : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

  static bool hasKey(QAction* action, const QKeySequence& key) {
    return action && action->shortcuts().contains(key);
  }

 private slots:
  void initTestCase() {
    qputenv("NETSMITH_CLI", NETSMITH_CLI);
    // The application's data (the unsaved projects' runs, recovery copies) in this test's folder.
    qputenv("XDG_DATA_HOME", m_dir.filePath("data").toUtf8());
    qputenv("XDG_CONFIG_HOME", m_dir.filePath("config").toUtf8());
    QCoreApplication::setOrganizationName("Netsmith");
    QCoreApplication::setApplicationName("Netsmith");
  }

  void runsBeforeTheFirstSaveMoveWithTheProject() {
    MainWindow w;
    QVERIFY(w.newFromSample(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj"));
    QVERIFY(w.document()->path().isEmpty());
    const QString name = QString::fromStdString(w.document()->settings().name);
    const QString unsavedRoot = runsRootFor({}, name);
    QVERIFY2(unsavedRoot.startsWith(m_dir.path()), qPrintable(unsavedRoot));
    TrainingPage* training = w.trainingPage();
    training->setExtraArguments({"--max-epoch", "1", "--train-samples", "256", "--validation-samples", "128"});
    QVERIFY2(training->start(), qPrintable(training->statusText()));
    const QString run = training->currentRunFolder();
    QVERIFY2(run.startsWith(unsavedRoot), qPrintable(run));
    QVERIFY(QTest::qWaitFor([&] { return !training->isRunning(); }, 120000));
    QVERIFY2(training->lastOutcome() && training->lastOutcome()->status == RunOutcome::Status::Completed,
             qPrintable(training->statusText()));

    const QString project = m_dir.filePath("mine/lenet_copy.nsproj");
    QVERIFY(QDir().mkpath(m_dir.filePath("mine")));
    QVERIFY(w.saveAsFile(project));
    // The run is in the project's own runs folder, the history and the Evaluation page show it.
    const QString moved = m_dir.filePath("mine/lenet_copy.runs/") + QFileInfo(run).fileName();
    QVERIFY2(QFileInfo::exists(moved + "/run.json"), qPrintable(moved));
    QVERIFY(!QFileInfo::exists(run));
    const QList<RunSummary> history = training->history();
    QCOMPARE(history.size(), 1);
    QCOMPARE(history.front().folder, QFileInfo(moved).absoluteFilePath());
    QCOMPARE(history.front().status, QString("completed"));
    w.showPage("evaluation");
    QVERIFY(!w.evaluationPage()->showsTrainFirst());
    QVERIFY2(w.statusBar()->currentMessage().contains("1 run trained before the first save moved"),
             qPrintable(w.statusBar()->currentMessage()));
    // The Training page names the run where it is now.
    QCOMPARE(training->currentRunFolder(), QFileInfo(moved).absoluteFilePath());
    QVERIFY2(training->statusText().contains(QFileInfo(moved).absoluteFilePath()) && !training->statusText().contains(unsavedRoot),
             qPrintable(training->statusText()));
    // The sample's own name is kept, and shown beside the file's.
    QCOMPARE(QString::fromStdString(w.document()->settings().name), name);
    QCOMPARE(w.windowTitle(), QString("lenet_copy.nsproj[*] — %1 — Netsmith").arg(name));
  }

  void aNewProjectTakesItsFilesName() {
    MainWindow w;
    w.document()->newProject();
    QCOMPARE(w.windowTitle(), QString("Untitled[*] — Netsmith"));
    QVERIFY(w.saveAsFile(m_dir.filePath("cats")));
    QCOMPARE(w.document()->path(), m_dir.filePath("cats.nsproj"));
    QCOMPARE(w.document()->settings().name, std::string("cats"));
    QCOMPARE(w.windowTitle(), QString("cats.nsproj[*] — Netsmith"));
    // Saved with it: opened again, the project is "cats".
    ProjectDocument again;
    again.load(m_dir.filePath("cats.nsproj"));
    QCOMPARE(again.settings().name, std::string("cats"));
    QVERIFY(!w.document()->isModified());
  }

  void redoAndSaveAsHaveTheirUsualKeys() {
    MainWindow w;
    auto* redo = w.findChild<QAction*>("redo");
    auto* saveAs = w.findChild<QAction*>("saveAs");
    QVERIFY(hasKey(redo, QKeySequence(Qt::CTRL | Qt::Key_Y)));
    QVERIFY(hasKey(redo, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)));
    QVERIFY(hasKey(saveAs, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S)));
    // Each key once, so that Qt does not report it as ambiguous.
    for (QAction* a : w.findChildren<QAction*>())
      for (const QKeySequence& key : a->shortcuts())
        for (QAction* b : w.findChildren<QAction*>())
          if (a != b && b->shortcuts().contains(key) && !key.isEmpty())
            QVERIFY2(false, qPrintable(QString("%1 is bound to '%2' and '%3'").arg(key.toString(), a->text(), b->text())));
  }
};

QTEST_MAIN(TestMainWindowFiles)
#include "tst_main_window_files.moc"
