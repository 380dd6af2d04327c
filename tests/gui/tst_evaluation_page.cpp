// The Evaluation page: evaluate's JSON read into the model (a fixed sample), the CSV of the
// per-class table, predictions.csv, the "train first" state, and end to end a real short run
// evaluated through `netsmith-cli evaluate --json` with the matrix, the table, the samples with
// their images, an evaluation read back from the run folder, and the ONNX and CSV exports; a run
// on a dataset with classes.txt shows the names on the matrix axes, in the per-class table and
// on the samples (Note [Run class names]).
#include <qcustomplot.h>

#include <QLabel>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QComboBox>
#include <QtTest>

#include "gui/evaluation/confusion_matrix_plot.h"
#include "gui/evaluation/evaluation_page.h"
#include "gui/evaluation/evaluation_result.h"
#include "gui/evaluation/sample_browser.h"
#include "support/named_dataset.h"

using namespace netsmith;
using namespace netsmith::gui;

namespace {

// Three classes, six samples; the shape of docs/evaluation.md ("evaluate --json"), plus a key
// this GUI does not know.
const QByteArray kSample = R"({"accuracy":0.5,"binary":false,"classes":3,
 "confusion_matrix":[[2,0,0],[1,1,0],[0,2,0]],"correct":3,
 "dataset":{"csv":"","format":"idx","images":"/d/t10k-images.gz","labels":"/d/t10k-labels.gz","name":"validation",
            "sample_shape":[1,28,28],"scale":0.00392156862745098},
 "devices":["cpu:0","cpu:1"],"error":0.5,
 "files":{"json":"/r/evaluation/validation-best/evaluation.json","predictions":"/r/evaluation/validation-best/predictions.csv",
          "report":"/r/evaluation/validation-best/report.txt"},
 "macro":{"f_measure":0.3777777777777778,"precision":0.3888888888888889,"recall":0.5},
 "output_head":"softmax",
 "parameters":{"meta":{"epoch":4,"validation_error":0.2},"path":"/r/best.nsparams","which":"best"},
 "per_class":[{"class":0,"f_measure":0.8,"name":"T-shirt, top","precision":0.6666666666666666,"predicted":3,"recall":1,"support":2,"true_positives":2},
              {"class":1,"f_measure":0.3333333333333333,"name":"Trouser","precision":0.3333333333333333,"predicted":3,"recall":0.5,"support":2,"true_positives":1},
              {"class":2,"f_measure":0,"name":"","precision":0,"predicted":0,"recall":0,"support":2,"true_positives":0}],
 "project":"Three","run":"/r","samples":6,"seconds":0.25,"something_new":[1,2],
 "worst":[{"index":4,"likelihoods":[0.1,0.85,0.05],"predicted_class":1,"predicted_likelihood":0.85,"true_class":2,"true_likelihood":0.05},
          {"index":2,"likelihoods":[0.6,0.3,0.1],"predicted_class":0,"predicted_likelihood":0.6,"true_class":1,"true_likelihood":0.3}]})";

}  // namespace

class TestEvaluationPage : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    qputenv("NETSMITH_CLI", NETSMITH_CLI);
  }

  void parsesTheEvaluateJson() {
    QString why;
    const auto r = parseEvaluation(kSample, &why);
    QVERIFY2(r, qPrintable(why));
    QCOMPARE(r->run, QString("/r"));
    QCOMPARE(r->samples, 6LL);
    QCOMPARE(r->classes, 3LL);
    QCOMPARE(r->correct, 3LL);
    QCOMPARE(r->accuracy, 0.5);
    QCOMPARE(r->macroPrecision, 0.3888888888888889);
    QCOMPARE(r->macroFMeasure, 0.3777777777777778);
    QCOMPARE(r->datasetFormat, QString("idx"));
    QCOMPARE(r->images, QString("/d/t10k-images.gz"));
    QCOMPARE(r->sampleShape, (QVector<long long>{1, 28, 28}));
    QCOMPARE(r->scale, 0.00392156862745098);
    QCOMPARE(r->parametersWhich, QString("best"));
    QCOMPARE(r->bestEpoch, 4LL);
    QCOMPARE(r->devices, (QStringList{"cpu:0", "cpu:1"}));
    QCOMPARE(r->confusion.size(), 3);
    QCOMPARE(r->confusion[2], (QVector<long long>{0, 2, 0}));
    QCOMPARE(r->perClass.size(), 3);
    QCOMPARE(r->perClass[0].name, QString("T-shirt, top"));
    QCOMPARE(r->perClass[1].recall, 0.5);
    QCOMPARE(r->perClass[0].predicted, 3LL);
    QCOMPARE(r->className(1), QString("Trouser"));
    QCOMPARE(r->className(2), QString("2"));  // no name: its number
    QCOMPARE(r->worst.size(), 2);
    QCOMPARE(r->worst[0].index, 4LL);
    QCOMPARE(r->worst[0].trueLikelihood(), 0.05);
    QCOMPARE(r->worst[0].predictedLikelihood(), 0.85);
    QVERIFY(r->worst[0].misclassified());
    QCOMPARE(r->predictionsFile, QString("/r/evaluation/validation-best/predictions.csv"));
  }

  void refusesWhatIsNotAnEvaluation() {
    QString why;
    QVERIFY(!parseEvaluation(R"({"error":"/r: has no parameters.nsparams"})", &why));
    QCOMPARE(why, QString("/r: has no parameters.nsparams"));
    QVERIFY(!parseEvaluation("not json", &why));
    QVERIFY(!parseEvaluation(R"({"accuracy":"x"})", &why));
    QVERIFY(why.contains("confusion_matrix"));
    // A key of the wrong type is named (engine/protocol's reader), never read as something else.
    QVERIFY(!parseEvaluation(R"({"confusion_matrix":[[1,"x"],[0,1]]})", &why));
    QCOMPARE(why, QString("evaluation report: confusion_matrix[0][1]: expected an integer, got \"x\""));
    QVERIFY(!parseEvaluation(R"({"confusion_matrix":[[1,0],[0,1]],"per_class":[{"class":"a"}]})", &why));
    QCOMPARE(why, QString("evaluation report: per_class[0].class: expected an integer, got \"a\""));
    QVERIFY(!parseEvaluation(R"({"confusion_matrix":[[1,0],[0,1]],"worst":[7]})", &why));
    QCOMPARE(why, QString("evaluation report: worst[0]: expected an object, got 7"));
    // Missing keys take their defaults.
    const auto bare = parseEvaluation(R"({"confusion_matrix":[[1,0],[0,1]]})");
    QVERIFY(bare);
    QCOMPARE(bare->confusion[0], (QVector<long long>{1, 0}));
    QCOMPARE(bare->classes, 2LL);
    QCOMPARE(bare->scale, 1.0);
  }

  void perClassCsvAndPredictions() {
    const auto r = parseEvaluation(kSample);
    QVERIFY(r);
    const QStringList lines = perClassCsv(*r).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 5);
    QCOMPARE(lines[0], QString("class,name,precision,recall,f_measure,support"));
    QCOMPARE(lines[1], QString("0,\"T-shirt, top\",0.666666667,1,0.8,2"));
    QCOMPARE(lines[4], QString("macro,,0.388888889,0.5,0.377777778,6"));

    const QString file = m_dir.filePath("predictions.csv");
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("index,true_class,predicted_class,likelihood_0,likelihood_1\n0,0,0,0.9,0.1\n1,1,0,0.7,0.3\n2,1,1,0.2,0.8\n");
    f.close();
    QCOMPARE(readPredictions(file).size(), 3);
    QCOMPARE(readPredictions(file, 2).size(), 2);
    const auto wrong = readPredictions(file, 0, true);
    QCOMPARE(wrong.size(), 1);
    QCOMPARE(wrong[0].index, 1LL);
    QCOMPARE(wrong[0].likelihoods, (QVector<double>{0.7, 0.3}));
  }

  // class_names names a class that per_class does not; predictions.csv with name columns (quoted
  // names holding commas and quotes) reads by its header.
  void classNamesAndNamedPredictions() {
    const auto r = parseEvaluation(R"({"confusion_matrix":[[1,0],[1,0]],"class_names":["cat","dog"],
                                       "per_class":[{"class":0,"name":"Cat"}]})");
    QVERIFY(r);
    QCOMPARE(r->classNames, (QStringList{"cat", "dog"}));
    QCOMPARE(r->className(0), QString("Cat"));  // per_class first
    QCOMPARE(r->className(1), QString("dog"));
    QCOMPARE(r->className(2), QString("2"));

    const QString file = m_dir.filePath("named_predictions.csv");
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("index,true_class,predicted_class,true_class_name,predicted_class_name,likelihood_0,likelihood_1\n"
            "0,0,0,\"T-shirt, top\",\"T-shirt, top\",0.9,0.1\n"
            "1,1,0,\"Trouser \"\"wide\"\"\",\"T-shirt, top\",0.7,0.3\n");
    f.close();
    const auto rows = readPredictions(file);
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows[1].index, 1LL);
    QCOMPARE(rows[1].trueClass, 1);
    QCOMPARE(rows[1].predictedClass, 0);
    QCOMPARE(rows[1].likelihoods, (QVector<double>{0.7, 0.3}));
  }

  void matrixCellsCarryTheirCounts() {
    const auto r = parseEvaluation(kSample);
    ConfusionMatrixPlot plot;
    plot.setMatrix(r->confusion, {"a", "b", "c"});
    QCOMPARE(plot.cellText(0, 0), QString("2"));
    QCOMPARE(plot.cellText(2, 1), QString("2"));
    QCOMPARE(plot.cellText(1, 2), QString("0"));
    QCOMPARE(plot.cellValue(1, 0), 0.5);  // share of the row
    QCOMPARE(plot.plot()->itemCount(), 9);
  }

  // A real run on a dataset with classes.txt, evaluated through the page: the names label the
  // matrix's axes, the per-class rows, the sample table and the selected sample's caption.
  void namedRunShowsItsClassNames() {
    const test::NamedDataset d = test::writeNamedDataset(m_dir.filePath("named"));
    const QString run = m_dir.filePath("named-run");
    QProcess train;
    train.start(NETSMITH_CLI, {"train", d.project, "--run-dir", run, "--quiet"});
    QVERIFY(train.waitForFinished(120000));
    QVERIFY2(train.exitCode() == 0, train.readAllStandardError().constData());

    ProjectDocument doc;
    doc.load(d.project);
    EvaluationPage page(&doc);
    QVERIFY(page.selectRun(run));
    QSignalSpy evaluated(&page, &EvaluationPage::evaluated);
    QVERIFY(page.evaluate());
    QVERIFY(evaluated.wait(120000));
    QVERIFY2(evaluated.first().first().toBool(), qPrintable(page.statusText()));
    QStringList names;
    for (const auto& n : d.names) names << QString::fromStdString(n);
    QCOMPARE(page.result()->classNames, names);

    for (QCPAxis* axis : {page.confusionMatrix()->plot()->xAxis, page.confusionMatrix()->plot()->yAxis}) {
      const auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(axis->ticker());
      QVERIFY(ticker);
      QCOMPARE(ticker->ticks().values(), names);
    }
    for (int c = 0; c < 3; ++c) QCOMPARE(page.perClassTable()->item(c, 0)->text(), QString("%1 %2").arg(c).arg(names[c]));

    SampleBrowser* samples = page.samples();
    QCOMPARE(samples->filter(), SampleBrowser::Filter::Worst);
    QVERIFY(!samples->rows().isEmpty());
    const SamplePrediction& worst = samples->rows()[0];
    QCOMPARE(samples->table()->item(0, 2)->text(), names[worst.trueClass]);
    QCOMPARE(samples->table()->item(0, 3)->text(), names[worst.predictedClass]);
    const auto* caption = samples->findChild<QLabel*>("sampleCaption");
    QVERIFY(caption);
    QVERIFY2(caption->text().contains(names[worst.trueClass].toHtmlEscaped()) &&
                 caption->text().contains(names[worst.predictedClass].toHtmlEscaped()),
             qPrintable(caption->text()));
    // Every sample, read from predictions.csv (whose name cells are quoted): 15 of each class.
    samples->setFilter(SampleBrowser::Filter::All);
    QCOMPARE(samples->rows().size(), 45);
    for (int i = 0; i < samples->rows().size(); ++i) {
      QCOMPARE(samples->rows()[i].trueClass, i % 3);
      QCOMPARE(samples->rows()[i].likelihoods.size(), 3);
      QCOMPARE(samples->table()->item(i, 2)->text(), names[i % 3]);
    }
  }

  void trainFirstWithoutRuns() {
    QTemporaryDir dir;
    QVERIFY(QFile::copy(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj", dir.filePath("p.nsproj")));
    ProjectDocument doc;
    doc.load(dir.filePath("p.nsproj"));
    EvaluationPage page(&doc);
    QVERIFY(page.showsTrainFirst());
    QVERIFY(!page.evaluate());
  }

  void realRunEvaluatedAndExported() {
    QProcess help;
    help.start(NETSMITH_CLI, {"--help"});
    QVERIFY(help.waitForFinished(30000));
    if (!help.readAllStandardOutput().contains("evaluate"))
      QSKIP("this netsmith-cli has no 'evaluate' command yet (issue 6's engine part)");

    const QString project = m_dir.filePath("lenet.nsproj");
    QVERIFY(QFile::copy(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj", project));
    const QString run = m_dir.filePath("lenet.runs/20260101-120000");
    QProcess train;
    train.start(NETSMITH_CLI, {"train", project, "--run-dir", run, "--max-epoch", "1", "--train-samples", "1024",
                               "--validation-samples", "256"});
    QVERIFY(train.waitForFinished(300000));
    QVERIFY2(train.exitCode() == 0, train.readAllStandardError().constData());

    ProjectDocument doc;
    doc.load(project);
    EvaluationPage page(&doc);
    QVERIFY(!page.showsTrainFirst());
    QCOMPARE(page.selectedRun(), QFileInfo(run).absoluteFilePath());
    QVERIFY(!page.result());  // nothing evaluated yet
    QSignalSpy evaluated(&page, &EvaluationPage::evaluated);
    QVERIFY(page.evaluate());
    QVERIFY(page.isEvaluating());
    QVERIFY(evaluated.wait(300000));
    QVERIFY2(evaluated.first().first().toBool(), qPrintable(page.statusText()));
    const EvaluationResult r = *page.result();
    QCOMPARE(r.classes, 10LL);
    QCOMPARE(r.samples, 10000LL);  // the whole validation set: --validation-samples limits training only
    long long total = 0, diagonal = 0;
    for (int t = 0; t < r.confusion.size(); ++t)
      for (int p = 0; p < r.confusion[t].size(); ++p) total += r.confusion[t][p], diagonal += t == p ? r.confusion[t][p] : 0;
    QCOMPARE(total, r.samples);
    QCOMPARE(diagonal, r.correct);
    QCOMPARE(page.confusionMatrix()->cellText(3, 3), QString::number(r.confusion[3][3]));
    QCOMPARE(page.perClassTable()->rowCount(), 11);  // ten classes and the macro average
    QCOMPARE(page.perClassTable()->item(10, 0)->text(), QString("Macro average"));
    QVERIFY(page.summaryText().contains("Accuracy"));

    // Samples: the worst-classified, with images read from the dataset.
    SampleBrowser* samples = page.samples();
    QCOMPARE(samples->filter(), SampleBrowser::Filter::Worst);
    QCOMPARE(samples->rows().size(), r.worst.size());
    QVERIFY(!samples->rows().isEmpty());
    QVERIFY(samples->rows()[0].misclassified());
    QTRY_VERIFY_WITH_TIMEOUT(samples->imagesLoaded(), 60000);
    QVERIFY(!samples->table()->item(0, 0)->icon().isNull());
    samples->setFilter(SampleBrowser::Filter::All);
    QCOMPARE(samples->rows().size(), SampleBrowser::kMaxRows);
    samples->setFilter(SampleBrowser::Filter::Misclassified);
    QVERIFY(!samples->rows().isEmpty());
    for (const auto& s : samples->rows()) QVERIFY(s.misclassified());
    // One cell of the matrix: true 3, predicted 3.
    samples->showCell(3, 3);
    QCOMPARE(samples->rows().size(), std::min<long long>(r.confusion[3][3], SampleBrowser::kMaxRows));

    // Exports.
    const QString csv = m_dir.filePath("per_class.csv");
    QVERIFY(page.exportCsv(csv));
    QFile csvFile(csv);
    QVERIFY(csvFile.open(QIODevice::ReadOnly));
    QCOMPARE(csvFile.readAll().count('\n'), 12);
    const QString onnx = m_dir.filePath("lenet.onnx");
    QSignalSpy exported(&page, &EvaluationPage::exported);
    QVERIFY(page.exportOnnx(onnx));
    QVERIFY(exported.wait(300000));
    QVERIFY2(exported.first().first().toBool(), qPrintable(exported.first().at(1).toString()));
    QVERIFY(QFileInfo(onnx).size() > 1000);

    // Another page on the same project shows the evaluation kept in the run folder at once.
    EvaluationPage again(&doc);
    QVERIFY(again.result());
    QCOMPARE(again.result()->correct, r.correct);
    QVERIFY(again.statusText().contains("Press Evaluate to run it again"));

    // A failure is said in the engine's words: best parameters of a run whose file is gone.
    QVERIFY(QFile::remove(run + "/best.nsparams") || !QFile::exists(run + "/best.nsparams"));
    page.setParameters("best");
    QSignalSpy failed(&page, &EvaluationPage::evaluated);
    QVERIFY(page.evaluate());
    QVERIFY(failed.wait(120000));
    QVERIFY(!failed.first().first().toBool());
    QVERIFY2(page.statusText().startsWith("Cannot evaluate") && page.statusText().contains("best"), qPrintable(page.statusText()));
  }

  // Issue 17: the "Show" box was sized for its first three entries, so a confusion-matrix cell's
  // entry ("True T-shirt/top, predicted Shirt") was cut off; it now grows with its entry.
  void showBoxFitsACellsEntry() {
    SampleBrowser browser;
    browser.resize(900, 400);
    browser.show();
    EvaluationResult r;
    r.classNames = {"T-shirt/top", "Trouser", "Pullover with a rather long name", "Dress"};
    browser.setResult(r);
    QCoreApplication::processEvents();
    browser.showCell(0, 2);
    QCoreApplication::processEvents();
    auto* box = browser.findChild<QComboBox*>("sampleFilter");
    QVERIFY(box);
    QCOMPARE(box->currentText(), QString("True T-shirt/top, predicted Pullover with a rather long name"));
    const int textWidth = box->fontMetrics().horizontalAdvance(box->currentText());
    QVERIFY2(box->width() >= textWidth, qPrintable(QString("box %1 px, text %2 px").arg(box->width()).arg(textWidth)));
  }
};

QTEST_MAIN(TestEvaluationPage)
#include "tst_evaluation_page.moc"
