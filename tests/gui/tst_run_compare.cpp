// The run history's Compare (Note [Run differences]): two real short runs that differ in the
// learning rate and a block's width, selected in the history and compared, show those rows (and
// the Run and Result rows, read back from each run's own files) beside both runs' curves; the
// "Compare with" submenu opens the same window; a damaged run shows the message naming its file.
#include <QListWidget>
#include <QMenu>
#include <QProcess>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>
#include <qcustomplot.h>

#include "engine/protocol/learning_curve.h"
#include "gui/training/run_compare_window.h"
#include "gui/training/run_history_panel.h"
#include "support/train_runner.h"

using namespace netsmith;
using namespace netsmith::gui;
using netsmith::test::Json;

namespace {

QAction* actionNamed(QMenu* menu, const QString& name) {
  for (QAction* a : menu->actions())
    if (a->objectName() == name) return a;
  return nullptr;
}

std::string readText(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll().toStdString() : std::string();
}

// The run's best validation error as its own learning_curve.csv has it, as the table words it.
QString bestErrorText(const QString& run) {
  const QString file = run + "/learning_curve.csv";
  double best = 1e9;
  for (const auto& row : protocol::learningCurveFromCsv(readText(file), file.toStdString()))
    if (row.validationError) best = std::min(best, *row.validationError);
  return QString::asprintf("%.2f%%", 100 * best);
}

// The rows under the group heading that starts with `group`: setting → {A, B}.
QMap<QString, QPair<QString, QString>> rowsOf(QTreeWidget* table, const QString& group) {
  QMap<QString, QPair<QString, QString>> rows;
  for (int g = 0; g < table->topLevelItemCount(); ++g) {
    QTreeWidgetItem* heading = table->topLevelItem(g);
    if (!heading->text(0).startsWith(group)) continue;
    for (int i = 0; i < heading->childCount(); ++i)
      rows.insert(heading->child(i)->text(0), {heading->child(i)->text(1), heading->child(i)->text(2)});
  }
  return rows;
}

// The points of the plot's graph named `name`; -1 when there is none.
int pointsOf(QCustomPlot* plot, const QString& name) {
  for (int i = 0; i < plot->graphCount(); ++i)
    if (plot->graph(i)->name() == name) return plot->graph(i)->data()->size();
  return -1;
}

bool inLegend(QCustomPlot* plot, const QString& name) {
  for (int i = 0; i < plot->graphCount(); ++i)
    if (plot->graph(i)->name() == name) return plot->legend->hasItemWithPlottable(plot->graph(i));
  return false;
}

}  // namespace

class TestRunCompare : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  QString m_runs, m_older, m_newer;

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    Json a = test::smallFashionMlp();
    Json b = a;
    b["optimizer"]["lr"] = 0.02;
    b["network"]["nodes"][1]["params"]["n_outmaps"] = {32};
    m_runs = m_dir.filePath("mlp.runs");
    m_older = m_runs + "/20260101-100000";
    m_newer = m_runs + "/20260101-110000";
    for (const auto& [project, run, epochs] : {std::tuple{a, m_older, "2"}, std::tuple{b, m_newer, "3"}}) {
      const std::string path = test::saveProject(m_dir, QFileInfo(run).fileName().toStdString(), project);
      QProcess p;
      p.start(QStringLiteral(NETSMITH_CLI), {"train", QString::fromStdString(path), "--run-dir", run, "--max-epoch", epochs,
                                             "--train-samples", "256", "--validation-samples", "128", "--quiet"});
      QVERIFY(p.waitForFinished(240000));
      QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    }
  }

  void twoSelectedRunsCompared() {
    RunHistoryPanel history;
    history.setRunsRoot(m_runs);
    QCOMPARE(history.list()->count(), 2);
    // Select both (Ctrl+click in the list); the menu of either offers them.
    history.list()->item(0)->setSelected(true);
    QVERIFY(!actionNamed(history.contextMenuFor(m_newer), "compareSelected"));  // one selected: not yet
    history.list()->item(1)->setSelected(true);
    QCOMPARE(history.selectedFolders(), QStringList({m_newer, m_older}));
    QAction* compare = actionNamed(history.contextMenuFor(m_newer), "compareSelected");
    QVERIFY(compare);
    compare->trigger();
    auto* window = history.findChild<RunCompareWindow*>();
    QVERIFY(window);
    QVERIFY2(window->error().isEmpty(), qPrintable(window->error()));
    QVERIFY(window->isVisible());
    QVERIFY(window->windowTitle().contains("20260101-100000 → 20260101-110000"));  // A is the older run

    QTreeWidget* table = window->differences();
    QCOMPARE(table->topLevelItemCount(), 4);
    const auto settings = rowsOf(table, "Settings");
    QCOMPARE(settings.size(), 1);
    QCOMPARE(settings.value("optimizer.lr"), qMakePair(QString("0.01"), QString("0.02")));
    const auto network = rowsOf(table, "Network");
    QCOMPARE(network.size(), 1);
    QCOMPARE(network.value("fc1 (Affine): n_outmaps"), qMakePair(QString("[64]"), QString("[32]")));
    const auto run = rowsOf(table, "Run");
    QCOMPARE(run.value("Max epoch (--max-epoch)"), qMakePair(QString("2"), QString("3")));
    const auto result = rowsOf(table, "Result");
    QCOMPARE(result.value("Epochs trained"), qMakePair(QString("2"), QString("3")));
    // Listed when it differs (on 128 samples two runs can reach the same error).
    const auto best = qMakePair(bestErrorText(m_older), bestErrorText(m_newer));
    if (best.first == best.second) QVERIFY(!result.contains("Best validation error"));
    else QCOMPARE(result.value("Best validation error"), best);

    // Both curves: A's two epochs and B's three, each named in the legend.
    QCustomPlot* plot = window->plot();
    QCOMPARE(pointsOf(plot, "A · 20260101-100000 training loss"), 2);
    QCOMPARE(pointsOf(plot, "A · 20260101-100000 validation error"), 2);
    QCOMPARE(pointsOf(plot, "B · 20260101-110000 training loss"), 3);
    QCOMPARE(pointsOf(plot, "B · 20260101-110000 validation error"), 3);
    QVERIFY(inLegend(plot, "A · 20260101-100000 training loss") && inLegend(plot, "B · 20260101-110000 validation error"));
    QVERIFY(!inLegend(plot, "training loss (iteration)"));  // no run of its own
    window->close();
  }

  // From one run's menu: Compare with ▸ the other. Equal runs: every group says so.
  void compareWithSubmenu() {
    RunHistoryPanel history;
    history.setRunsRoot(m_runs);
    QMenu* menu = history.contextMenuFor(m_older);
    QAction* with = actionNamed(menu, "compareWith");
    QVERIFY(with && with->menu() && with->isEnabled());
    QCOMPARE(with->menu()->actions().size(), 1);
    QCOMPARE(with->menu()->actions()[0]->data().toString(), m_newer);
    with->menu()->actions()[0]->trigger();
    auto* window = history.findChild<RunCompareWindow*>();
    QVERIFY(window && window->error().isEmpty());
    QCOMPARE(rowsOf(window->differences(), "Settings").size(), 1);
    window->close();
    QTest::qWait(10);

    RunCompareWindow same(m_older, "A", m_older, "A");
    for (int g = 0; g < same.differences()->topLevelItemCount(); ++g) {
      QVERIFY(same.differences()->topLevelItem(g)->text(0).endsWith(": no differences"));
      QCOMPARE(same.differences()->topLevelItem(g)->childCount(), 0);
    }
  }

  void damagedRunNamesTheFile() {
    const QString damaged = m_dir.filePath("damaged");
    std::filesystem::copy(m_older.toStdString(), damaged.toStdString(), std::filesystem::copy_options::recursive);
    QFile json(damaged + "/run.json");
    QVERIFY(json.open(QIODevice::WriteOnly | QIODevice::Truncate));
    json.write("{\"run_id\": ");
    json.close();
    RunCompareWindow window(damaged, "damaged", m_newer, "B");
    QVERIFY(window.error().contains(damaged + "/run.json"));
    QVERIFY(window.error().contains("not valid JSON"));
    QCOMPARE(window.differences()->topLevelItemCount(), 1);
    QVERIFY(window.differences()->topLevelItem(0)->text(0).startsWith("Cannot compare: "));
  }
};

QTEST_MAIN(TestRunCompare)
#include "tst_run_compare.moc"
