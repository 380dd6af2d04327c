// The Sweep dialog's studies (Training ▸ Sweep…, docs/gui.md "Sweeps"): the command line of a
// random or Bayesian search with ranges, choices, a layer's parameter, budgets and devices per
// trial; a real random study of the MLP sample whose rows come one by one from the study's
// trials.jsonl, trials stopped early marked, the parallel-coordinates plot with a line per trial
// (dashed when stopped early, dotted when failed, thick when selected, a click selecting its row)
// and the importance bars with one per setting; "Open as project" giving the trial's project,
// which the main window opens; Resume continuing a stopped study; a damaged trials.jsonl or
// study.json said, not crashed on.
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "gui/app/main_window.h"
#include "gui/sweep/importance_chart.h"
#include "gui/sweep/parallel_coordinates_plot.h"
#include "gui/sweep/study_log.h"
#include "gui/sweep/sweep_dialog.h"

using namespace netsmith;
using namespace netsmith::gui;

namespace {
QPushButton* buttonTexted(QWidget& w, const QString& text) {
  for (QPushButton* b : w.findChildren<QPushButton*>())
    if (b->text() == text) return b;
  return nullptr;
}

// The arguments after `option`, for each time it appears.
QStringList valuesOf(const QStringList& args, const QString& option) {
  QStringList out;
  for (int i = 0; i + 1 < args.size(); ++i)
    if (args[i] == option) out << args[i + 1];
  return out;
}

bool writeFile(const QString& path, const QByteArray& text) {
  QFile f(path);
  return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
}
}  // namespace

class TestSweepStudy : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  QString m_project;  // the MLP sample: solver Momentum (learning rate optimizer.lr), blocks fc1, fc2, fc3
  QString m_studyFolder;  // made by aRandomStudyFillsItsRowsFromTheLog

  // A random study of the learning rate (a log range) and the solver (a choice) on two CPU workers.
  void setUpRandomStudy(SweepDialog& dialog, int trials, int maxEpoch, int trainSamples) {
    dialog.searchBox()->setSearch(study::SearchKind::Random);
    dialog.searchBox()->setBudgets(trials, 0, study::StopRule::Asha);
    dialog.firstAxis()->setRange("1e-4", "0.05", GridSpacing::Log);
    dialog.secondAxisBox()->setChecked(true);
    QVERIFY(dialog.secondAxis()->choose("optimizer.solver"));
    dialog.secondAxis()->setList("Sgd, Momentum");
    dialog.setCheckedDevices({"cpu:0", "cpu:1"});
    dialog.setLimits(maxEpoch, trainSamples, 300);
  }

 private slots:
  void initTestCase() {
    qputenv("NETSMITH_CLI", NETSMITH_CLI);
    // The main window's settings and recovery copies in this test's folder.
    qputenv("XDG_DATA_HOME", m_dir.filePath("data").toUtf8());
    qputenv("XDG_CONFIG_HOME", m_dir.filePath("config").toUtf8());
    m_project = m_dir.filePath("mlp.nsproj");
    QVERIFY(QFile::copy(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_mlp.nsproj", m_project));
  }

  void aSearchBuildsItsCommandLine() {
    ProjectDocument doc;
    doc.load(m_project);
    SweepDialog dialog(&doc);
    // Choice settings and the layers' parameters are offered beside the numbers.
    QComboBox* settings = dialog.firstAxis()->settingBox();
    for (const char* path : {"optimizer.solver", "config.precision", "network.fc1.n_outmaps", "network.fc2.n_outmaps"})
      QVERIFY2(settings->findData(QString(path)) >= 0, path);
    QCOMPARE(settings->findData(QStringLiteral("network.x.shape")), -1);  // the Input's shape is the dataset's

    dialog.searchBox()->setSearch(study::SearchKind::Bayesian);
    dialog.searchBox()->setBudgets(10, 30, study::StopRule::Median);
    dialog.firstAxis()->setRange("1e-4", "1e-1", GridSpacing::Log);
    dialog.secondAxisBox()->setChecked(true);
    QVERIFY(dialog.secondAxis()->choose("network.fc1.n_outmaps"));
    dialog.secondAxis()->setRange("32", "512", GridSpacing::Log);
    dialog.setCheckedDevices({"cpu:0", "cpu:1"});
    dialog.setDevicesPerTrial(2);
    QString error;
    auto request = dialog.request(&error);
    QVERIFY2(request, qPrintable(error));
    const QStringList args = request->arguments();
    QCOMPARE(valuesOf(args, "--search"), QStringList{"bayes"});
    QCOMPARE(valuesOf(args, "--range"), (QStringList{"optimizer.lr=0.0001..0.1:log", "network.fc1.n_outmaps=32..512:log:int"}));
    QCOMPARE(valuesOf(args, "--trials"), QStringList{"10"});
    QCOMPARE(valuesOf(args, "--time-budget"), QStringList{"30m"});
    QCOMPARE(valuesOf(args, "--early-stop"), QStringList{"median"});
    QCOMPARE(valuesOf(args, "--devices"), QStringList{"cpu:0,cpu:1"});
    QCOMPARE(valuesOf(args, "--devices-per-trial"), QStringList{"2"});
    QVERIFY(request->plannedRows().empty());  // a search's trials come from its log
    // The line beside Start says what will run.
    QCOMPARE(dialog.findChild<QLabel*>("sweepPreview")->text(),
             QStringLiteral("Bayesian search (TPE): 10 trials within 30 min, 1 at a time (2 devices each), weak trials stopped "
                            "by the median rule — lr: 0.0001 … 0.1 (log); n_outmaps: 32 … 512 (log), whole numbers"));

    // A choice: listed values, checked against the setting's choices.
    QVERIFY(dialog.secondAxis()->choose("optimizer.solver"));
    dialog.secondAxis()->setList("Sgd, Momentum");
    request = dialog.request(&error);
    QVERIFY2(request, qPrintable(error));
    QCOMPARE(valuesOf(request->arguments(), "--set"), QStringList{"optimizer.solver=Sgd,Momentum"});
    dialog.secondAxis()->setList("Sgd, Adamm");
    QVERIFY(dialog.problemText().startsWith("Solver: 'Adamm' is not one of "));
    dialog.secondAxis()->setList("Sgd");

    // Ranges are checked with the setting's range; more devices per trial than ticked is refused.
    dialog.firstAxis()->setRange("0", "1e-1", GridSpacing::Linear);
    QCOMPARE(dialog.problemText(), QStringLiteral("Learning rate (lr): 0 is out of range: expected a number > 0"));
    dialog.firstAxis()->setRange("1e-1", "1e-4", GridSpacing::Log);
    QVERIFY(dialog.problemText().contains("a range goes from a lower to a higher value"));
    dialog.firstAxis()->setRange("1e-4", "1e-1", GridSpacing::Log);
    dialog.setDevicesPerTrial(3);
    QCOMPARE(dialog.problemText(), QStringLiteral("3 devices per trial, but 2 devices are ticked."));
    dialog.setDevicesPerTrial(1);
    QCOMPARE(dialog.problemText(), QString());

    // Back to a grid: the range becomes a grid of values, sent as a list.
    dialog.searchBox()->setSearch(study::SearchKind::Grid);
    request = dialog.request(&error);
    QVERIFY2(request, qPrintable(error));
    QVERIFY(valuesOf(request->arguments(), "--range").isEmpty());
    QCOMPARE(valuesOf(request->arguments(), "--search"), QStringList{});
    QCOMPARE(valuesOf(request->arguments(), "--set").first(), QStringLiteral("optimizer.lr=0.0001,0.001,0.01,0.1"));
  }

  void aRandomStudyFillsItsRowsFromTheLog() {
    ProjectDocument doc;
    doc.load(m_project);
    SweepDialog dialog(&doc);
    dialog.runner()->setPollInterval(50);
    setUpRandomStudy(dialog, 8, 2, 1000);
    QSignalSpy finished(dialog.runner(), &SweepRunner::finished);
    QVERIFY2(dialog.start(), qPrintable(dialog.statusText()));
    const SweepTableModel* model = dialog.table()->sweepModel();
    QCOMPARE(model->rowCount(), 0);  // nothing is known before the study suggests it
    // Rows appear while the study runs, as trials are suggested.
    QVERIFY2(QTest::qWaitFor([&] { return model->rowCount() >= 1; }, 60000), qPrintable(dialog.statusText()));
    QVERIFY(dialog.runner()->isRunning());
    QVERIFY(finished.wait(300000));
    QCOMPARE(finished.at(0).at(0).toInt(), 0);
    QCOMPARE(model->rowCount(), 8);
    m_studyFolder = dialog.runner()->sweepFolder();
    QVERIFY(QFileInfo::exists(m_studyFolder + "/trials.jsonl"));

    // Every row has its values and an end; trials stopped early say so, with the rule's reason.
    int stoppedEarly = 0;
    const int status = model->columnOf("Status");
    for (int row = 0; row < 8; ++row) {
      const SweepRow& r = model->rows()[static_cast<size_t>(row)];
      QCOMPARE(r.index, row + 1);
      QCOMPARE(r.values.size(), 2);
      QVERIFY2(r.values[1] == "Sgd" || r.values[1] == "Momentum", qPrintable(r.values.join("|")));
      QVERIFY2(r.status == "completed" || r.status == "stopped_early", qPrintable(r.status));
      QVERIFY(QFileInfo::exists(r.trialProject));
      if (r.status != "stopped_early") continue;
      ++stoppedEarly;
      const QModelIndex cell = model->index(row, status);
      QCOMPARE(cell.data().toString(), QStringLiteral("stopped early (epoch %1)").arg(r.epochs));
      QVERIFY2(cell.data(Qt::ToolTipRole).toString().startsWith("Stopped early: "), qPrintable(cell.data(Qt::ToolTipRole).toString()));
      QVERIFY(cell.data(Qt::BackgroundRole).value<QBrush>().color().isValid());
    }
    QVERIFY2(stoppedEarly > 0, "ASHA stopped no trial of eight");
    QVERIFY2(dialog.statusText().contains("stopped early"), qPrintable(dialog.statusText()));

    // The study view: a line per trial through the two settings and the error; a bar per setting.
    ParallelCoordinatesPlot* plot = dialog.studyView()->plot();
    QCOMPARE(plot->lineCount(), 8);
    // In the study's order: its lists first, then its ranges (the table keeps the dialog's).
    QCOMPARE(plot->axisTitles(), (QStringList{"solver", "lr", "best val. error"}));
    QCOMPARE(plot->lineOf(0)->data()->size(), 3);
    ImportanceChart* importance = dialog.studyView()->importance();
    QCOMPARE(importance->importance().size(), size_t{2});
    QCOMPARE(importance->bars()->data()->size(), 2);
    QCOMPARE(importance->note(), QString());
    // A stopped-early line is dashed; the selected row's line is drawn thick.
    for (int row = 0; row < 8; ++row)
      if (model->rows()[static_cast<size_t>(row)].status == "stopped_early")
        QCOMPARE(plot->lineOf(row)->pen().style(), Qt::DashLine);
    dialog.table()->selectTrial(2);
    QCOMPARE(dialog.table()->selectedTrial(), 2);
    QVERIFY(plot->lineOf(2)->pen().widthF() > 3);
    QVERIFY(plot->lineOf(3)->pen().widthF() < 2);
    // A click on a line selects its row: a point of a line where no other line passes
    // within QCustomPlot's selection tolerance (it takes the topmost line within it).
    dialog.resize(1366, 768);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    plot->replot();
    const auto pixelAt = [&](int trial, double key) {
      const auto* d = plot->lineOf(trial)->data().data();
      const int segment = key < 1 ? 0 : 1;
      const double t = key - segment;
      const double y = d->at(segment)->value + (d->at(segment + 1)->value - d->at(segment)->value) * t;
      return QPointF(plot->xAxis->coordToPixel(key), plot->yAxis->coordToPixel(y));
    };
    QPointF click;
    double clearance = 0;
    int clicked = -1;
    for (int trial = 0; trial < 8; ++trial) {
      if (trial == 2) continue;  // the selected one
      for (double key = 0.05; key < 1.96; key += 0.01) {
        double nearest = 1e9;
        for (int other = 0; other < 8; ++other)
          if (other != trial) nearest = std::min(nearest, std::abs(pixelAt(other, key).y() - pixelAt(trial, key).y()));
        if (nearest > clearance) {
          clearance = nearest;
          click = pixelAt(trial, key);
          clicked = trial;
        }
      }
    }
    QVERIFY2(clearance > plot->selectionTolerance(), qPrintable(QString("clearance %1 px").arg(clearance)));
    QTest::mouseClick(plot, Qt::LeftButton, {}, click.toPoint());
    QCOMPARE(dialog.table()->selectedTrial(), clicked);
    QVERIFY(plot->lineOf(clicked)->pen().widthF() > 3);
    dialog.table()->selectTrial(2);

    // "Open as project": the selected trial's own project, with its values.
    QSignalSpy open(&dialog, &SweepDialog::openProjectRequested);
    QVERIFY(buttonTexted(dialog, "Open as project")->isEnabled());
    buttonTexted(dialog, "Open as project")->click();
    QCOMPARE(open.size(), 1);
    const QString trialProject = open.at(0).at(0).toString();
    QCOMPARE(trialProject, model->rows()[2].trialProject);
    ProjectDocument trial;
    trial.load(trialProject);
    QCOMPARE(QString::fromStdString(trial.settings().optimizer.solver), model->rows()[2].values[1]);
    QVERIFY(!buttonTexted(dialog, "Resume")->isEnabled());  // it ended with its budget used
  }

  void resumeContinuesAStoppedStudy() {
    ProjectDocument doc;
    doc.load(m_project);
    SweepDialog dialog(&doc);
    dialog.runner()->setPollInterval(50);
    setUpRandomStudy(dialog, 3, 200, 2000);
    dialog.searchBox()->setBudgets(3, 0, study::StopRule::Off);
    QSignalSpy finished(dialog.runner(), &SweepRunner::finished);
    QVERIFY(dialog.start());
    const SweepTableModel* model = dialog.table()->sweepModel();
    QVERIFY2(QTest::qWaitFor([&] { return model->rowCount() >= 1 && model->rows()[0].epochs >= 1; }, 120000),
             qPrintable(dialog.statusText()));
    buttonTexted(dialog, "Stop")->click();
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.at(0).at(0).toInt(), 3);
    QVERIFY(buttonTexted(dialog, "Resume")->isEnabled());
    QVERIFY(dialog.statusText().contains("Resume continues the study"));
    const QString folder = dialog.runner()->sweepFolder();

    // Resumed (and stopped again at once: the point is the command and the rows).
    QVERIFY(dialog.resume());
    QVERIFY(dialog.runner()->isRunning());
    QCOMPARE(valuesOf(dialog.runner()->request().arguments(), "--resume"), QStringList{folder});
    QVERIFY2(QTest::qWaitFor([&] { return model->rowCount() >= 1 && model->rows()[0].status == "running"; }, 60000),
             qPrintable(dialog.statusText()));
    QCOMPARE(dialog.runner()->sweepFolder(), folder);
    dialog.stop();
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.at(1).at(0).toInt(), 3);
  }

  void aDamagedLogIsSaidNotCrashedOn() {
    QVERIFY2(!m_studyFolder.isEmpty(), "needs aRandomStudyFillsItsRowsFromTheLog");
    const QString copy = m_dir.filePath("damaged-sweep");
    QVERIFY(QDir().mkpath(copy));
    QVERIFY(QFile::copy(m_studyFolder + "/study.json", copy + "/study.json"));
    QFile log(m_studyFolder + "/trials.jsonl");
    QVERIFY(log.open(QIODevice::ReadOnly));
    QList<QByteArray> lines = log.readAll().split('\n');
    int damaged = 0;
    while (!lines[damaged].contains("validation_error")) ++damaged;
    lines[damaged] = "{\"event\": \"epoch\", \"trial\": 0, \"epo";  // torn in the middle, then more lines
    QVERIFY(writeFile(copy + "/trials.jsonl", lines.join('\n')));
    StudyLog study(copy);
    study.update();
    const QString where = QStringLiteral("trials.jsonl:%1: not a JSON object").arg(damaged + 1);
    QVERIFY2(study.error().contains(where), qPrintable(study.error()));
    QCOMPARE(study.trials().size(), size_t{8});  // the lines after it are still read
    std::vector<SweepRow> rows;
    study.applyTo(rows, {"optimizer.lr", "optimizer.solver"});
    QCOMPARE(rows.size(), size_t{8});
    QVERIFY2(rows[0].values.size() == 2 && (rows[0].values[1] == "Sgd" || rows[0].values[1] == "Momentum"),
             qPrintable(rows[0].values.join('|')));  // in the columns' order, not the study's
    StudyView view;
    view.setStudy(&study, -1);
    QVERIFY(view.summaryText().contains(where));

    QVERIFY(writeFile(copy + "/study.json", "{\"format\": \"netsmith-study\", \"search\": 3"));
    StudyLog broken(copy);
    QVERIFY(!broken.update());
    QVERIFY2(broken.error().contains("study.json: not valid JSON"), qPrintable(broken.error()));
    view.setStudy(&broken, -1);  // no definition: an empty view, no crash

    // A failed trial: grey and dotted at "failed" above the error axis, its row red.
    QVERIFY(writeFile(copy + "/trials.jsonl", lines.join('\n') + "{\"event\":\"ended\",\"trial\":3,\"status\":\"failed\",\"message\":\"diverged\"}\n"));
    QFile::remove(copy + "/study.json");
    QVERIFY(QFile::copy(m_studyFolder + "/study.json", copy + "/study.json"));
    StudyLog withFailure(copy);
    withFailure.update();
    view.setStudy(&withFailure, -1);
    QCOMPARE(view.plot()->lineOf(3)->pen().style(), Qt::DotLine);
    QVERIFY(view.plot()->lineOf(3)->data()->at(2)->value > 1);
    QVERIFY(view.summaryText().contains("1 failed"));

    std::vector<SweepRow> summaryRows;
    QVERIFY(applySummary("[{\"trial\": 1, \"status\": 7}]", summaryRows, {}).has_value());
  }

  // Training ▸ Sweep… in the main window: "Open as project" opens the trial's project there.
  void aTrialOpensInTheMainWindow() {
    QVERIFY2(!m_studyFolder.isEmpty(), "needs aRandomStudyFillsItsRowsFromTheLog");
    const QStringList trials = QDir(m_studyFolder).entryList({"3-*.nsproj"});
    QCOMPARE(trials.size(), 1);
    const QString trial = QDir(m_studyFolder).filePath(trials.first());
    MainWindow w;
    QVERIFY(w.openProject(m_project));
    QAction* sweep = nullptr;
    for (QAction* a : w.findChildren<QAction*>())
      if (a->text() == "S&weep…") sweep = a;
    QVERIFY(sweep);
    sweep->trigger();
    auto* dialog = w.findChild<SweepDialog*>();
    QVERIFY(dialog);
    emit dialog->openProjectRequested(trial);
    QCOMPARE(QFileInfo(w.document()->path()).canonicalFilePath(), QFileInfo(trial).canonicalFilePath());
    dialog->hide();
  }

  // docs/screenshots/sweep-study.png: NETSMITH_STUDY_SCREENSHOT=FILE (run under Xvfb with QT_QPA_PLATFORM=xcb).
  void screenshotOfARandomStudy() {
    const QString shot = qEnvironmentVariable("NETSMITH_STUDY_SCREENSHOT");
    if (shot.isEmpty()) QSKIP("NETSMITH_STUDY_SCREENSHOT not set");
    ProjectDocument doc;
    doc.load(m_project);
    SweepDialog dialog(&doc);
    dialog.setAvailableDevices(discoverDevices());
    dialog.searchBox()->setSearch(study::SearchKind::Random);
    dialog.searchBox()->setBudgets(10, 0, study::StopRule::Asha);
    dialog.firstAxis()->setRange("1e-4", "1", GridSpacing::Log);
    dialog.secondAxisBox()->setChecked(true);
    QVERIFY(dialog.secondAxis()->choose("network.fc1.n_outmaps"));
    dialog.secondAxis()->setRange("16", "512", GridSpacing::Log);
    dialog.setCheckedDevices({"cpu:0", "cpu:1"});
    dialog.setLimits(4, 3000, 1000);
    QSignalSpy finished(dialog.runner(), &SweepRunner::finished);
    QVERIFY(dialog.start());
    QVERIFY(finished.wait(600000));
    dialog.table()->selectBest();
    dialog.resize(1366, 768);
    dialog.show();
    QTest::qWait(500);
    QVERIFY(dialog.grab().save(shot));
  }
};

QTEST_MAIN(TestSweepStudy)
#include "tst_sweep_study.moc"
