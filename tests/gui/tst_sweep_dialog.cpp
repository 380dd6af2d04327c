// The Sweep dialog (Training ▸ Sweep…): the values of a grid, values refused with the setting's
// range from the settings table, a real `netsmith-cli sweep` of two learning rates driven through
// the dialog's runner to a table of two completed rows with the best marked, and Stop ending a
// running sweep without leaving its process behind.
#include <signal.h>

#include <QCheckBox>
#include <QComboBox>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <QtTest>
#include <cerrno>

#include "gui/sweep/sweep_dialog.h"
#include "gui/sweep/sweep_window.h"
#include "gui/training/run_history_panel.h"
#include "gui/training/training_page.h"

using namespace netsmith;
using namespace netsmith::gui;

namespace {
QPushButton* buttonTexted(QWidget& w, const QString& text) {
  for (QPushButton* b : w.findChildren<QPushButton*>())
    if (b->text() == text) return b;
  return nullptr;
}

QString cell(const SweepTableModel* m, int row, const QString& column) {
  return m->index(row, m->columnOf(column)).data().toString();
}

bool processExists(qint64 pid) { return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH; }
}  // namespace

class TestSweepDialog : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  QString m_project;  // the MLP sample: solver Momentum, so the learning rate is optimizer.lr

 private slots:
  void initTestCase() {
    qputenv("NETSMITH_CLI", NETSMITH_CLI);
    m_project = m_dir.filePath("mlp.nsproj");
    QVERIFY(QFile::copy(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_mlp.nsproj", m_project));
  }

  void logGridOfLearningRates() {
    const std::vector<double> expected{1e-4, 1e-3, 1e-2, 1e-1};
    QCOMPARE(gridValues(1e-4, 1e-1, 4, GridSpacing::Log), expected);
    QCOMPARE(gridValues(0, 1, 5, GridSpacing::Linear), (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
    QCOMPARE(valueText(1e-5), QStringLiteral("1e-5"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, gridValues(0, 1, 3, GridSpacing::Log));

    ProjectDocument doc;
    doc.load(m_project);
    SweepDialog dialog(&doc);
    // Before anything is chosen or started the table is empty (it showed a row "1 · queued").
    QCOMPARE(dialog.table()->sweepModel()->rowCount(), 0);
    QCOMPARE(SweepRequest{}.plannedRows().size(), size_t{0});
    // The learning rate of the project's solver is offered first, and only that solver's parameters.
    QCOMPARE(dialog.firstAxis()->chosenPath(), QStringLiteral("optimizer.lr"));
    QVERIFY(dialog.firstAxis()->settingBox()->findData(QStringLiteral("optimizer.momentum")) >= 0);
    QCOMPARE(dialog.firstAxis()->settingBox()->findData(QStringLiteral("optimizer.alpha")), -1);
    dialog.firstAxis()->setGrid("1e-4", "1e-1", 4, GridSpacing::Log);
    dialog.setCheckedDevices({"cpu:0"});
    QString error;
    const auto request = dialog.request(&error);
    QVERIFY2(request, qPrintable(error));
    QCOMPARE(request->axes.at(0).values, expected);
    const QStringList args = request->arguments();
    QVERIFY2(args.contains("optimizer.lr=0.0001,0.001,0.01,0.1"), qPrintable(args.join(' ')));
    QCOMPARE(request->plannedRows().size(), size_t{4});

    // An integer setting's log grid is rounded to whole numbers; two settings make every combination.
    dialog.secondAxisBox()->setChecked(true);
    QVERIFY(dialog.secondAxis()->choose("config.batch_size"));
    dialog.secondAxis()->setGrid("16", "256", 5, GridSpacing::Log);
    const auto both = dialog.request(&error);
    QVERIFY2(both, qPrintable(error));
    QCOMPARE(both->axes.at(1).values, (std::vector<double>{16, 32, 64, 128, 256}));
    const auto rows = both->plannedRows();
    QCOMPARE(rows.size(), size_t{20});
    QCOMPARE(rows[1].values, (QStringList{"0.0001", "32"}));  // the first setting slowest, as the CLI
    QCOMPARE(rows[19].index, 20);
  }

  void valuesOutOfRangeAreRefusedWithTheRange() {
    ProjectDocument doc;
    doc.load(m_project);
    SweepDialog dialog(&doc);
    dialog.setCheckedDevices({"cpu:0"});
    dialog.firstAxis()->setList("0.01, -0.5");
    QVERIFY(!dialog.start());
    QCOMPARE(dialog.problemText(), QStringLiteral("Learning rate (lr): -0.5 is out of range: expected a number > 0"));
    QVERIFY(!buttonTexted(dialog, "Start sweep")->isEnabled());
    QVERIFY(!dialog.runner()->isRunning());

    // The solver table's range of momentum, and the settings table's ranges in its words.
    QVERIFY(dialog.firstAxis()->choose("optimizer.momentum"));
    dialog.firstAxis()->setList("0.5 1");
    QCOMPARE(dialog.problemText(), QStringLiteral("momentum: 1 is out of range: expected a number in [0, 1)"));
    QVERIFY(dialog.firstAxis()->choose("config.batch_size"));
    dialog.firstAxis()->setList("32, 0");
    QCOMPARE(dialog.problemText(), QStringLiteral("Batch size: 0 is out of range: expected an integer >= 1"));
    dialog.firstAxis()->setList("32, 2.5");
    QCOMPARE(dialog.problemText(), QStringLiteral("Batch size: 2.5 is not a whole number: expected an integer >= 1"));
    QVERIFY(dialog.firstAxis()->choose("config.augmentation.crop_padding"));
    dialog.firstAxis()->setList("2, 5000");
    QCOMPARE(dialog.problemText(),
             QStringLiteral("Crop padding: 5000 is out of range: expected an integer in [0, 4096]"));
    dialog.firstAxis()->setList("2, abc");
    QCOMPARE(dialog.problemText(), QStringLiteral("Crop padding: 'abc' is not a number"));
    dialog.firstAxis()->setList("2, 4");
    QCOMPARE(dialog.problemText(), QString());
    QVERIFY(buttonTexted(dialog, "Start sweep")->isEnabled());
  }

  void twoLearningRatesRunToATableOfResults() {
    ProjectDocument doc;
    doc.load(m_project);
    SweepDialog dialog(&doc);
    dialog.runner()->setPollInterval(50);
    dialog.firstAxis()->setList("0.003, 0.1");
    dialog.setCheckedDevices({"cpu:0"});
    dialog.setLimits(1, 1000, 300);
    QSignalSpy finished(dialog.runner(), &SweepRunner::finished);
    QVERIFY2(dialog.start(), qPrintable(dialog.statusText()));
    QVERIFY(dialog.runner()->isRunning());
    QVERIFY(finished.wait(180000));
    QCOMPARE(finished.at(0).at(0).toInt(), 0);
    QVERIFY2(dialog.statusText().startsWith("Completed: 2 trainings"), qPrintable(dialog.statusText()));

    const SweepTableModel* model = dialog.table()->sweepModel();
    QCOMPARE(model->rowCount(), 2);
    for (int row = 0; row < 2; ++row) {
      QCOMPARE(cell(model, row, "Status"), QStringLiteral("completed"));
      QCOMPARE(cell(model, row, "Device"), QStringLiteral("cpu:0"));
      QCOMPARE(cell(model, row, "Best epoch"), QStringLiteral("1"));
      bool ok = false;
      const double final = model->index(row, model->columnOf("Final val. error")).data(SweepTableModel::kSortRole).toDouble(&ok);
      QVERIFY(ok && final > 0 && final < 1);
      QVERIFY2(cell(model, row, "Best val. error").endsWith(" %"), qPrintable(cell(model, row, "Best val. error")));
      QVERIFY(QFileInfo(model->rows()[row].runFolder + "/learning_curve.csv").exists());
    }
    QCOMPARE(cell(model, 0, "lr"), QStringLiteral("0.003"));
    QCOMPARE(cell(model, 1, "lr"), QStringLiteral("0.1"));
    QVERIFY(QFileInfo(model->rows()[0].runFolder).fileName().contains("-sweep1-lr=0.003"));
    QVERIFY(QFileInfo(dialog.runner()->sweepFolder() + "/summary.json").exists());

    // The best row: the lower best validation error, bold and starred.
    const auto& rows = model->rows();
    const int best = *rows[0].bestError <= *rows[1].bestError ? 0 : 1;
    QCOMPARE(model->bestRow(), best);
    QVERIFY(model->index(best, 0).data(Qt::FontRole).value<QFont>().bold());
    QVERIFY(!model->index(1 - best, 0).data(Qt::FontRole).value<QFont>().bold());
    QVERIFY(cell(model, best, "#").endsWith(QStringLiteral("★")));

    // Sorting by the best error puts the best row first.
    dialog.table()->sortByColumn(model->columnOf("Best val. error"), Qt::AscendingOrder);
    QCOMPARE(dialog.table()->proxy()->index(0, model->columnOf("lr")).data().toString(), rows[best].values[0]);

    // The best row is selected; Show in Training page asks for its run folder.
    QSignalSpy show(&dialog, &SweepDialog::showRunRequested);
    QVERIFY(buttonTexted(dialog, "Show in Training page")->isEnabled());
    buttonTexted(dialog, "Show in Training page")->click();
    QCOMPARE(show.size(), 1);
    QCOMPARE(show.at(0).at(0).toString(), rows[best].runFolder);
    // What the main window does with it: the run is ticked (overlaid) in the Training page's history.
    TrainingPage page(&doc);
    QVERIFY(showRunInTrainingPage(&page, rows[best].runFolder));
    bool ticked = false;
    for (int i = 0; i < page.historyPanel()->list()->count(); ++i) {
      const QListWidgetItem* item = page.historyPanel()->list()->item(i);
      if (QFileInfo(item->data(Qt::UserRole).toString()).canonicalFilePath() == QFileInfo(rows[best].runFolder).canonicalFilePath())
        ticked = item->checkState() == Qt::Checked;
    }
    QVERIFY(ticked);
    QVERIFY(!page.historyPanel()->overlays().isEmpty());
    QVERIFY(!showRunInTrainingPage(&page, m_dir.filePath("elsewhere")));
  }

  // docs/screenshots/sweep.png: NETSMITH_SWEEP_SCREENSHOT=FILE (run under Xvfb with QT_QPA_PLATFORM=xcb).
  void screenshotOfALearningRateGrid() {
    const QString shot = qEnvironmentVariable("NETSMITH_SWEEP_SCREENSHOT");
    if (shot.isEmpty()) QSKIP("NETSMITH_SWEEP_SCREENSHOT not set");
    ProjectDocument doc;
    doc.load(m_project);
    SweepDialog dialog(&doc);
    dialog.setAvailableDevices(discoverDevices());
    dialog.firstAxis()->setGrid("1e-4", "1e-1", 4, GridSpacing::Log);
    dialog.setCheckedDevices({"cpu:0", "cpu:1"});
    dialog.setLimits(3, 3000, 1000);
    QSignalSpy finished(dialog.runner(), &SweepRunner::finished);
    QVERIFY(dialog.start());
    QVERIFY(finished.wait(300000));
    dialog.resize(1366, 740);
    dialog.show();
    QTest::qWait(300);
    QVERIFY(dialog.grab().save(shot));
  }

  // Training ▸ Sweep…: one dialog per window, shown again by the menu; its Show in Training page
  // ticks the run in the page's history and brings the page to the front.
  void menuOpensOneDialogWiredToTheTrainingPage() {
    ProjectDocument doc;
    doc.load(m_project);
    QWidget window;
    TrainingPage page(&doc);
    int pageShown = 0;
    QString opened;
    const auto open = [&](const QString& file) { opened = file; };
    SweepDialog* dialog = showSweepDialog(&window, &doc, &page, [&] { ++pageShown; }, open);
    QVERIFY(dialog && dialog->isVisible());
    QCOMPARE(showSweepDialog(&window, &doc, &page, [&] { ++pageShown; }, open), dialog);
    // "Open as project" reaches the window's opener with the trial's project file.
    emit dialog->openProjectRequested(m_dir.filePath("trial.nsproj"));
    QCOMPARE(opened, m_dir.filePath("trial.nsproj"));
    const QStringList runs = QDir(m_dir.filePath("mlp.runs")).entryList({"*-sweep1-*"}, QDir::Dirs);
    QVERIFY(!runs.isEmpty());  // made by twoLearningRatesRunToATableOfResults
    emit dialog->showRunRequested(m_dir.filePath("mlp.runs/" + runs.first()));
    QCOMPARE(pageShown, 1);
    QVERIFY(!page.historyPanel()->overlays().isEmpty());
    dialog->hide();
  }

  // Other projects queued: each trains once with its own settings, its row follows its own run
  // folder; "none" as the setting trains the open project once too.
  void queuedProjectsAreRowsOfTheTable() {
    const QString other = m_dir.filePath("other.nsproj");
    QVERIFY(QFile::copy(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_mlp.nsproj", other));
    ProjectDocument doc;
    doc.load(m_project);
    SweepDialog dialog(&doc);
    dialog.runner()->setPollInterval(50);
    dialog.firstAxis()->setList("0.02");
    dialog.addQueuedProject(other);
    dialog.setCheckedDevices({"cpu:0", "cpu:1"});
    dialog.setLimits(1, 500, 200);
    QSignalSpy finished(dialog.runner(), &SweepRunner::finished);
    QVERIFY2(dialog.start(), qPrintable(dialog.problemText()));
    QVERIFY(finished.wait(180000));
    QCOMPARE(finished.at(0).at(0).toInt(), 0);
    const SweepTableModel* model = dialog.table()->sweepModel();
    QCOMPARE(model->rowCount(), 2);
    QCOMPARE(cell(model, 0, "Project"), QStringLiteral("mlp"));
    QCOMPARE(cell(model, 1, "Project"), QStringLiteral("other"));
    QCOMPARE(cell(model, 1, "lr"), QStringLiteral("(own)"));
    QCOMPARE(cell(model, 1, "Status"), QStringLiteral("completed"));
    QCOMPARE(QFileInfo(model->rows()[1].runFolder).absolutePath(), QFileInfo(m_dir.filePath("other.runs")).absoluteFilePath());

    // No setting: the open project and the queued one, once each.
    QVERIFY(dialog.firstAxis()->choose(QString()));
    QString error;
    const auto request = dialog.request(&error);
    QVERIFY2(request, qPrintable(error));
    QVERIFY(!request->arguments().contains("--set"));
    QCOMPARE(request->plannedRows().size(), size_t{2});
    QVERIFY(!dialog.secondAxisBox()->isEnabled());
  }

  void stopEndsARunningSweep() {
    ProjectDocument doc;
    doc.load(m_project);
    SweepDialog dialog(&doc);
    dialog.runner()->setPollInterval(50);
    dialog.firstAxis()->setList("0.01, 0.02");
    dialog.setCheckedDevices({"cpu:0"});
    dialog.setLimits(500, 1000, 200);
    // A sweep started within the second of another reuses its stamp and "<stamp>-sweep" folder
    // (as when the previous test's sweep ended a moment ago): the rows must still find their runs.
    const QDateTime now = QDateTime::currentDateTime();
    for (int s = 0; s < 5; ++s)
      QDir().mkpath(m_dir.filePath("mlp.runs/" + now.addSecs(s).toString("yyyyMMdd-HHmmss") + "-sweep"));
    QSignalSpy finished(dialog.runner(), &SweepRunner::finished);
    QVERIFY(dialog.start());
    const qint64 pid = dialog.runner()->processId();
    QVERIFY(pid > 0);
    // While it runs, the first row follows its run folder: running on cpu:0, epochs and errors coming in.
    const SweepTableModel* model = dialog.table()->sweepModel();
    QVERIFY2(QTest::qWaitFor([&] { return model->rows()[0].epochs >= 2; }, 120000), qPrintable(dialog.statusText()));
    QCOMPARE(cell(model, 0, "Status"), QStringLiteral("running"));
    QCOMPARE(cell(model, 0, "Device"), QStringLiteral("cpu:0"));
    QVERIFY(model->rows()[0].finalError.has_value());
    QCOMPARE(cell(model, 1, "Status"), QStringLiteral("queued"));

    buttonTexted(dialog, "Stop")->click();
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.at(0).at(0).toInt(), 3);  // the CLI's "stopped"
    QVERIFY(!dialog.runner()->isRunning());
    QVERIFY2(!processExists(pid), "the sweep's process is still there");
    QCOMPARE(cell(model, 0, "Status"), QStringLiteral("stopped"));
    QCOMPARE(cell(model, 1, "Status"), QStringLiteral("not run"));
    QVERIFY2(dialog.statusText().startsWith("Stopped"), qPrintable(dialog.statusText()));
    // The stopped training kept a checkpoint to resume from.
    QVERIFY(!QDir(model->rows()[0].runFolder + "/checkpoints").entryList({"*.ckpt"}).isEmpty());
  }

  void closingTheRunnerStopsItsSweep() {
    ProjectDocument doc;
    doc.load(m_project);
    qint64 pid = 0;
    {
      SweepDialog dialog(&doc);
      dialog.firstAxis()->setList("0.01");
      dialog.setCheckedDevices({"cpu:0"});
      dialog.setLimits(500, 1000, 200);
      QVERIFY(dialog.start());
      pid = dialog.runner()->processId();
      QVERIFY(QTest::qWaitFor([&] { return dialog.runner()->rows()[0].status == "running"; }, 60000));
    }
    QVERIFY2(!processExists(pid), "the sweep outlived its dialog");
  }
};

QTEST_MAIN(TestSweepDialog)
#include "tst_sweep_dialog.moc"
