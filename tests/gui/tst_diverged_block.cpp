// Note [Divergence] in the console: a run of the MLP sample at learning rate 1e6, started from the
// Training page of the main window, fails, and the block the engine named is marked on the Edit
// page's canvas (orange outline, "diverged here", the reason and advice in its tooltip); no other
// block is; a new run clears the mark when it starts.
#include <QFile>
#include <QStandardPaths>
#include <QtTest>

#include <fstream>

#include "gui/app/main_window.h"
#include "gui/edit/edit_page.h"
#include "gui/edit/graph_items.h"
#include "gui/edit/graph_scene.h"
#include "gui/training/training_page.h"

using namespace netsmith::gui;
using Json = nlohmann::json;

class TestDivergedBlock : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

  QStringList markedBlocks(MainWindow& window) {
    QStringList marked;
    for (QGraphicsItem* item : window.editPage()->scene()->items())
      if (item->type() == NodeItem::kType && !static_cast<NodeItem*>(item)->runFailure().isEmpty())
        marked << static_cast<NodeItem*>(item)->id();
    return marked;
  }

 private slots:
  void initTestCase() {
    qputenv("NETSMITH_CLI", NETSMITH_CLI);
    QStandardPaths::setTestModeEnabled(true);
  }

  void divergedBlockIsMarked() {
    std::ifstream in(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_mlp.nsproj");
    Json p = Json::parse(in);
    p["optimizer"] = {{"solver", "Adam"}, {"alpha", 1e6}};
    const QString path = m_dir.filePath("adam.nsproj");
    std::ofstream(path.toStdString()) << p.dump(1);

    MainWindow window;
    QVERIFY(window.openProject(path));
    TrainingPage* training = window.trainingPage();
    training->setExtraArguments({"--max-epoch", "1", "--train-samples", "1024", "--validation-samples", "128"});
    QVERIFY(markedBlocks(window).isEmpty());
    QVERIFY(training->start());
    QVERIFY(QTest::qWaitFor([&] { return !training->isRunning(); }, 240000));
    QVERIFY2(training->lastOutcome() && training->lastOutcome()->status == RunOutcome::Status::Failed,
             qPrintable(training->statusText()));
    const QStringList marked = markedBlocks(window);
    QCOMPARE(marked.size(), 1);
    NodeItem* item = window.editPage()->scene()->nodeItem(marked[0]);
    QVERIFY2(training->logText().contains("block '" + marked[0] + "'"), qPrintable(training->logText()));
    QVERIFY2(item->toolTip().contains("diverged here") && item->toolTip().contains("lower the learning rate"),
             qPrintable(item->toolTip()));
    QVERIFY(item->runFailure().contains("pass"));

    // A new run clears the mark as it starts (and marks again when it fails the same way).
    QVERIFY(training->start());
    QVERIFY(markedBlocks(window).isEmpty());
    QVERIFY(QTest::qWaitFor([&] { return !training->isRunning(); }, 240000));
    QCOMPARE(markedBlocks(window), marked);
  }
};

QTEST_MAIN(TestDivergedBlock)
#include "tst_diverged_block.moc"
