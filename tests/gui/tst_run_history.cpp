// The Training page's run history (issue 17 item 2) and layout (Note [Training page layout]):
// the history follows the disk (a run made or resumed by netsmith-cli in a terminal, a label
// written beside it) without being asked; each run's context menu resumes, renames, overlays,
// opens and deletes it (the actions driven directly, with the dialogs replaced); a folder that a
// process holds is never deleted; and at 1366×740 the page needs no scrolling.
#include <QListWidget>
#include <QMenu>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSplitter>
#include <QTemporaryDir>
#include <QtTest>

#include "engine/train/run_folder.h"
#include "gui/app/main_window.h"
#include "gui/training/run_history.h"
#include "gui/training/run_history_panel.h"
#include "gui/training/training_page.h"

using namespace netsmith;
using namespace netsmith::gui;

namespace {

// A quick real run of the project by netsmith-cli, as a terminal would start it.
int cliTrain(const QStringList& args) {
  QProcess p;
  p.start(QStringLiteral(NETSMITH_CLI), args);
  if (!p.waitForFinished(240000)) return -1;
  return p.exitCode();
}

QAction* actionNamed(QMenu* menu, const QString& name) {
  for (QAction* a : menu->actions())
    if (a->objectName() == name) return a;
  return nullptr;
}

const RunSummary* runIn(const QList<RunSummary>& runs, const QString& folder) {
  for (const RunSummary& r : runs)
    if (r.folder == folder) return &r;
  return nullptr;
}

}  // namespace

class TestRunHistory : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  QString m_project;
  QString m_runs;

  // Trains the MLP sample into runs/<name>, stopping it after its first iterations (a checkpoint).
  QString stoppedRun(const QString& name) {
    const QString folder = m_runs + "/" + name;
    QProcess p;
    p.start(QStringLiteral(NETSMITH_CLI), {"train", m_project, "--run-dir", folder, "--max-epoch", "2", "--train-samples",
                                           "1280", "--validation-samples", "256", "--events", "-"});
    p.waitForStarted();
    bool sent = false;
    QByteArray out;
    while (p.state() != QProcess::NotRunning) {
      p.waitForReadyRead(100);
      out += p.readAllStandardOutput();
      if (!sent && out.contains("\"event\":\"iteration\"")) {
        p.write("stop\n");
        sent = true;
      }
    }
    return p.exitCode() == 3 ? QFileInfo(folder).absoluteFilePath() : QString();
  }

 private slots:
  void initTestCase() {
    qputenv("NETSMITH_CLI", NETSMITH_CLI);
    // Delete moves runs to the desktop's trash: this test's own.
    QVERIFY(QDir().mkpath(m_dir.filePath("data")));
    qputenv("XDG_DATA_HOME", m_dir.filePath("data").toUtf8());
    m_project = m_dir.filePath("mlp.nsproj");
    QVERIFY(QFile::copy(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_mlp.nsproj", m_project));
    m_runs = m_dir.filePath("mlp.runs");
  }

  // Note [Training page layout]: at 1366×740 the Training page fits its window without a scroll
  // bar, the run history and the log included; at 1920×1080 the charts get the room.
  void layoutFitsWithoutScrolling_data() {
    QTest::addColumn<QSize>("window");
    QTest::newRow("1366x740") << QSize(1366, 740);
    QTest::newRow("1920x1080") << QSize(1920, 1080);
  }
  void layoutFitsWithoutScrolling() {
    QFETCH(QSize, window);
    MainWindow w;
    w.resize(window);
    w.show();
    w.showPage(QStringLiteral("training"));
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTest::qWait(100);
    TrainingPage* page = w.trainingPage();
    QScrollArea* area = nullptr;
    for (QWidget* p = page->parentWidget(); p && !area; p = p->parentWidget()) area = qobject_cast<QScrollArea*>(p);
    QVERIFY(area);
    const QString sizes = QStringLiteral("page minimum %1x%2, viewport %3x%4")
                              .arg(page->minimumSizeHint().width())
                              .arg(page->minimumSizeHint().height())
                              .arg(area->viewport()->width())
                              .arg(area->viewport()->height());
    QVERIFY2(area->verticalScrollBar()->maximum() == 0, qPrintable(sizes));
    QVERIFY2(area->horizontalScrollBar()->maximum() == 0, qPrintable(sizes));
    // Everything a person needs during a run is on screen, not collapsed.
    for (const char* name : {"runHistory", "engineLog", "planSummary", "deviceTable", "startButton", "resumeRunButton"}) {
      auto* widget = page->findChild<QWidget*>(name);
      QVERIFY2(widget, name);
      QVERIFY2(widget->isVisibleTo(page), name);
      const QRect shown(widget->mapTo(page, QPoint(0, 0)), widget->size());
      QVERIFY2(page->rect().contains(shown) && widget->height() >= 20,
               qPrintable(QString("%1 at %2,%3 %4x%5; %6").arg(name).arg(shown.x()).arg(shown.y()).arg(shown.width())
                              .arg(shown.height()).arg(sizes)));
    }
    qInfo() << window << sizes;
  }

  // A run made by netsmith-cli in a terminal, its resume, and a label written beside it appear
  // in the history by themselves (QFileSystemWatcher), with no refreshHistory() call.
  void historyFollowsTheDisk() {
    ProjectDocument doc;
    doc.load(m_project);
    TrainingPage page(&doc);
    RunHistoryPanel* history = page.historyPanel();
    QCOMPARE(history->runs().size(), 0);  // mlp.runs does not exist yet: its parent is watched
    const QString folder = stoppedRun("cli-run");
    QVERIFY(!folder.isEmpty());
    QVERIFY2(QTest::qWaitFor([&] { return runIn(history->runs(), folder) != nullptr; }, 10000), "the new run was not listed");
    QVERIFY(QTest::qWaitFor([&] { return runIn(history->runs(), folder)->status == "stopped"; }, 10000));
    QVERIFY(runIn(history->runs(), folder)->resumable());
    // Resumed in the terminal, on two workers: completed.
    QCOMPARE(cliTrain({"train", "--resume", folder, "--devices", "cpu:0,cpu:1", "--events", m_dir.filePath("e.jsonl")}), 0);
    QVERIFY2(QTest::qWaitFor([&] { return runIn(history->runs(), folder)->status == "completed"; }, 10000),
             qPrintable(runIn(history->runs(), folder)->status));
    QCOMPARE(runIn(history->runs(), folder)->epochs, 2LL);
    // A label written by another program.
    QString error;
    QVERIFY(writeRunLabel(folder, "from the terminal", &error));
    QVERIFY(QTest::qWaitFor([&] { return runIn(history->runs(), folder)->label == "from the terminal"; }, 10000));
    QVERIFY(history->list()->item(0)->text().startsWith("from the terminal (cli-run)"));
  }

  // The context menu's actions on a stopped run: Resume (the page resumes it to completion in
  // the same folder), Overlay on the chart, Rename, Open folder, and Delete (to the trash, after a question;
  // never while a process holds the folder; never without a question).
  void contextMenuActions() {
    const QString folder = stoppedRun("menu-run");
    QVERIFY(!folder.isEmpty());
    ProjectDocument doc;
    doc.load(m_project);
    TrainingPage page(&doc);
    RunHistoryPanel* history = page.historyPanel();
    QVERIFY(runIn(history->runs(), folder));

    // Overlay on the chart: ticks it, the chart gets its curve.
    QMenu* menu = history->contextMenuFor(folder);
    QAction* overlay = actionNamed(menu, "overlay");
    QVERIFY(overlay && !overlay->isChecked());
    overlay->trigger();
    QCOMPARE(history->overlays().size(), 1);

    // Rename: a label in the run folder, shown in the list and on the overlay.
    history->askLabel = [](const QString& current) -> std::optional<QString> {
      return current.isEmpty() ? std::optional<QString>("wider") : std::nullopt;
    };
    actionNamed(history->contextMenuFor(folder), "rename")->trigger();
    QCOMPARE(readRunLabel(folder), QString("wider"));
    QCOMPARE(runIn(history->runs(), folder)->label, QString("wider"));
    QCOMPARE(history->overlays().value(0).label, QString("wider"));  // still compared after the refresh

    // Open folder: the folder's URL goes to the desktop.
    QUrl opened;
    history->openUrl = [&](const QUrl& url) { opened = url; };
    actionNamed(history->contextMenuFor(folder), "openFolder")->trigger();
    QCOMPARE(opened, QUrl::fromLocalFile(folder));

    // Resume: enabled for a stopped run with a checkpoint; the page continues it in its folder.
    menu = history->contextMenuFor(folder);
    QVERIFY(actionNamed(menu, "resume")->isEnabled());
    QVERIFY(actionNamed(menu, "resumeOnTickedDevices")->isEnabled());
    actionNamed(menu, "resume")->trigger();
    QVERIFY(page.isRunning());
    QCOMPARE(page.currentRunFolder(), folder);
    // While it trains, it can be neither resumed nor deleted.
    menu = history->contextMenuFor(folder);
    QVERIFY(!actionNamed(menu, "resume")->isEnabled());
    QVERIFY(!actionNamed(menu, "delete")->isEnabled());
    QVERIFY(QTest::qWaitFor([&] { return !page.isRunning(); }, 240000));
    QVERIFY2(page.lastOutcome() && page.lastOutcome()->status == RunOutcome::Status::Completed,
             qPrintable(page.statusText() + "\n" + page.logText()));
    QVERIFY(QTest::qWaitFor([&] { return runIn(history->runs(), folder)->status == "completed"; }, 10000));
    QVERIFY(!actionNamed(history->contextMenuFor(folder), "resume")->isEnabled());  // completed: nothing to resume

    // Delete while another process holds the folder: refused, nothing asked, nothing moved.
    int asked = 0;
    history->ask = [&](const QString&, const QString&) { return ++asked, true; };
    {
      const auto lock = RunFolderLock::acquire(folder.toStdString());
      QVERIFY(!history->deleteRun(folder));
      QVERIFY2(history->lastError().contains("in use"), qPrintable(history->lastError()));
      QCOMPARE(asked, 0);
      QVERIFY(QFileInfo::exists(folder + "/checkpoints"));
    }
    // Declined: stays.
    history->ask = [&](const QString&, const QString&) { return ++asked, false; };
    QVERIFY(!history->deleteRun(folder));
    QCOMPARE(asked, 1);
    QVERIFY(QFileInfo::exists(folder + "/parameters.nsparams"));
    // Confirmed: gone from the runs folder and the list, its files in the trash (or, where there
    // is no trash, deleted only after a second question).
    asked = 0;
    history->ask = [&](const QString&, const QString&) { return ++asked, true; };
    actionNamed(history->contextMenuFor(folder), "delete")->trigger();
    QVERIFY(!QFileInfo::exists(folder));
    QVERIFY(!runIn(history->runs(), folder));
    const QString trashed = m_dir.filePath("data/Trash/files/menu-run/parameters.nsparams");
    QVERIFY2(QFileInfo::exists(trashed) || asked == 2, qPrintable(QString("asked %1 time(s)").arg(asked)));
  }

  // A run another process is training (it holds run.lock) is "running", not "interrupted": the
  // history showed a run in progress as interrupted and resumable.
  void aRunInProgressIsRunning() {
    QTemporaryDir dir;
    const QString folder = dir.filePath("20261126-010000");
    QVERIFY(QDir().mkpath(folder));
    QFile events(folder + "/events.jsonl");
    QVERIFY(events.open(QIODevice::WriteOnly));
    events.write(R"({"event":"started","version":1,"max_epoch":3})" "\n" R"({"event":"epoch","epoch":1})" "\n");
    events.close();
    QVERIFY(QDir().mkpath(folder + "/checkpoints"));
    QFile(folder + "/checkpoints/e0001_i000000.ckpt").open(QIODevice::WriteOnly);
    {
      const auto lock = netsmith::RunFolderLock::acquire(folder.toStdString());
      QVERIFY(lock->unlockedReason().empty());
      const RunSummary running = summariseRun(folder);
      QCOMPARE(running.status, QString("running"));
      QVERIFY(!running.resumable());
    }
    const RunSummary killed = summariseRun(folder);  // the lock is gone: the engine was killed
    QCOMPARE(killed.status, QString("interrupted"));
    QVERIFY(killed.resumable());
  }
};

QTEST_MAIN(TestRunHistory)
#include "tst_run_history.moc"
