// Labels checked against the loss before the first iteration (issue 14): a class label out of
// range, or labels of the wrong width, stop a run before it trains, in the training set and in the
// validation set alike, with the file and the row named; on_error "skip" leaves such samples out
// and counts them in the same warning as the rows the reader skipped.
// netsmith-test-labels: asan

#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <fstream>

#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/data/label_check.h"
#include "support/train_runner.h"
#include "unit/dataset_test_files.h"

using namespace netsmith;
using namespace netsmith::testing;
using netsmith::test::Json;
using netsmith::test::trainInProcess;

namespace {

// Numbers in, `outputs` values out, then `loss`: small enough to train in a blink on one thread.
Json tinyProject(const std::string& trainCsv, const std::string& validationCsv, int outputs,
                 const std::string& loss = "SoftmaxCrossEntropy", const std::string& onError = "error") {
  Json p = {{"format", "netsmith-project"}, {"version", 1}, {"name", "labels"}};
  p["network"]["nodes"] = Json::array({
      {{"id", "x"}, {"type", "Input"}, {"params", {{"shape", {2}}}}, {"pos", {0, 0}}},
      {{"id", "fc"}, {"type", "Affine"}, {"params", {{"n_outmaps", {outputs}}}}, {"pos", {0, 90}}},
      {{"id", "loss"}, {"type", loss}, {"pos", {0, 180}}},
  });
  p["network"]["links"] = Json::array({{{"from", "x"}, {"to", "fc"}}, {{"from", "fc"}, {"to", "loss"}}});
  p["dataset"] = {{"training", {{"format", "csv"}, {"csv", trainCsv}}}, {"scale", 1}, {"shuffle", false},
                  {"on_error", onError}};
  if (!validationCsv.empty()) p["dataset"]["validation"] = {{"format", "csv"}, {"csv", validationCsv}};
  p["config"] = {{"max_epoch", 1}, {"batch_size", 2}, {"seed", 1}};
  p["optimizer"] = {{"solver", "Sgd"}, {"lr", 0.01}};
  p["parallel"] = {{"devices", {"cpu:0"}}, {"threads_per_device", 1}};
  return p;
}

bool hasAll(const QString& text, const QStringList& parts, QString& missing) {
  for (const QString& part : parts)
    if (part.startsWith('!') ? text.contains(part.mid(1)) : !text.contains(part)) {
      missing = part;
      return false;
    }
  return true;
}

}  // namespace

class TestDatasetLabelChecks : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  int m_case = 0;

  QString folder() {
    const QString f = QString("case%1").arg(++m_case);
    QDir(m_dir.path()).mkpath(f);
    return m_dir.filePath(f) + "/";
  }

  netsmith::test::TrainedRun train(const QString& d, const Json& project) {
    const std::string path = netsmith::test::saveProject(m_dir, QString("p%1").arg(m_case).toStdString(), project);
    return trainInProcess(m_dir, path, TrainOptions{});
  }

  static QByteArray goodRows(int n, int classes) {
    QByteArray s = "x__0,x__1,y\n";
    for (int i = 0; i < n; ++i) s += QByteArray::number(i) + ",1," + QByteArray::number(i % classes) + "\n";
    return s;
  }

 private slots:
  void initTestCase() { QVERIFY(m_dir.isValid()); }

  // A run must fail before its first iteration, with the file, the row and what was expected.
  void runStopsBeforeTraining_data() {
    QTest::addColumn<QString>("which");  // "training" or "validation": the file that holds the bad label
    QTest::addColumn<QByteArray>("bad");
    QTest::addColumn<QString>("loss");
    QTest::addColumn<int>("outputs");
    QTest::addColumn<QStringList>("expected");
    const QByteArray header = "x__0,x__1,y\n";
    QTest::newRow("validation label 10 of 10 classes")
        << "validation" << header + "1,2,0\n3,4,9\n5,6,10\n" << "SoftmaxCrossEntropy" << 10
        << QStringList{"row 4", "label 10", "10 classes", "0 to 9"};
    QTest::newRow("training label 99999")
        << "training" << header + "1,2,1\n3,4,99999\n" << "SoftmaxCrossEntropy" << 10
        << QStringList{"row 3", "label 99999", "0 to 9", "If the dataset really has that many classes",
                       "project set-classes"};
    QTest::newRow("one-hot label of a SquaredError")
        << "validation" << header + "1,2,2\n3,4,3\n" << "SquaredError" << 3
        << QStringList{"row 3", "label 3", "0 to 2", "'fc'"};
    QTest::newRow("target of the wrong width")
        << "training" << QByteArray("x__0,x__1,y__0,y__1\n1,2,0.5,1\n3,4,1,0\n") << "SquaredError" << 3
        << QStringList{"2 values", "3 values", "'fc'"};
    QTest::newRow("vector labels for a class-index loss")
        << "validation" << QByteArray("x__0,x__1,y__0,y__1\n1,2,0,1\n") << "SoftmaxCrossEntropy" << 3
        << QStringList{"2 values", "one class index"};
  }

  void runStopsBeforeTraining() {
    QFETCH(QString, which);
    QFETCH(QByteArray, bad);
    QFETCH(QString, loss);
    QFETCH(int, outputs);
    QFETCH(QStringList, expected);
    const QString d = folder();
    const QString good = d + "good.csv", broken = d + "broken.csv";
    writeText(good, goodRows(6, std::min(outputs, 3)));
    writeText(broken, bad);
    const bool inTraining = which == "training";
    const Json project = tinyProject((inTraining ? broken : good).toStdString(), (inTraining ? good : broken).toStdString(),
                                     outputs, loss.toStdString());
    const auto run = train(d, project);
    QCOMPARE(QString::fromStdString(run.result.status), QString("failed"));
    const QString message = QString::fromStdString(run.result.message);
    qInfo("%s", qPrintable(message));
    QString missing;
    QVERIFY2(hasAll(message, QStringList{broken} + expected, missing),
             qPrintable(QString("no '%1' in: %2").arg(missing, message)));
    QVERIFY2(run.events->ofKind("iteration").empty() && run.events->ofKind("epoch").empty(),
             "the run trained before finding the bad label");
  }

  // on_error "skip": out-of-range labels are skipped like any other bad row, and counted with them.
  void skipModeSkipsBadLabels() {
    const QString d = folder();
    writeText(d + "train.csv", goodRows(6, 3));
    writeText(d + "val.csv", "x__0,x__1,y\n1,2,0\n3,4,7\n5,oops,1\n7,8,2\n9,10,3\n");
    const Json project = tinyProject((d + "train.csv").toStdString(), (d + "val.csv").toStdString(), 3,
                                     "SoftmaxCrossEntropy", "skip");
    const auto run = train(d, project);
    QCOMPARE(QString::fromStdString(run.result.status), QString("completed"));
    QString warning;
    for (const std::string& w : run.events->warnings())
      if (QString::fromStdString(w).contains("val.csv")) warning = QString::fromStdString(w);
    qInfo("%s", qPrintable(warning));
    QString missing;
    QVERIFY2(hasAll(warning, {d + "val.csv", "skipped 3 of 5 rows", "row 3", "label 7", "row 4", "'oops'", "row 6",
                              "label 3", "!row 2", "!row 5"},
                    missing),
             qPrintable(QString("no '%1' in: %2").arg(missing, warning)));
  }

  // An IDX label of 200 for 10 classes names the labels file and the sample's index.
  void idxLabelOutOfRange() {
    const QString d = folder();
    writeBytes(d + "images.idx", idxBytes(0x08, {4, 1, 2}, {1, 2, 3, 4, 5, 6, 7, 8}));
    writeBytes(d + "labels.idx", idxBytes(0x08, {4}, {1, 9, 200, 0}));
    Json project = tinyProject("", "", 10);
    project["dataset"]["training"] = {{"format", "idx"}, {"images", (d + "images.idx").toStdString()},
                                      {"labels", (d + "labels.idx").toStdString()}};
    project["network"]["nodes"][0]["params"]["shape"] = {1, 1, 2};
    const auto run = train(d, project);
    QCOMPARE(QString::fromStdString(run.result.status), QString("failed"));
    const QString message = QString::fromStdString(run.result.message);
    qInfo("%s", qPrintable(message));
    QString missing;
    // The label speaks first (a broken row); the head's command follows as the other way out.
    QVERIFY2(hasAll(message, {d + "labels.idx", "index 2", "label 200", "0 to 9", "project set-classes"}, missing),
             qPrintable(QString("no '%1' in: %2").arg(missing, message)));

    project["dataset"]["on_error"] = "skip";
    const auto skipped = train(d, project);
    QCOMPARE(QString::fromStdString(skipped.result.status), QString("completed"));
    const auto warnings = skipped.events->warnings();
    QVERIFY(!warnings.empty());
    QString w;
    for (const auto& s : warnings)
      if (QString::fromStdString(s).contains("labels.idx")) w = QString::fromStdString(s);
    QVERIFY2(hasAll(w, {d + "labels.idx", "skipped 1 of 4", "index 2", "label 200"}, missing),
             qPrintable(QString("no '%1' in: %2").arg(missing, w)));
  }

  // checkLabels itself, on datasets made in memory.
  void checkLabelsDirectly() {
    Dataset d;
    d.source = d.labelSource = "mem.csv";
    d.sampleShape = {1};
    d.size = 5;
    d.features = {0, 1, 2, 3, 4};
    d.labels = {0, 4, 1, 7, 2};
    d.rows = {2, 3, 5, 6, 7};  // row 4 was a blank line
    d.numClasses = 8;
    const LabelRule rule{"SoftmaxCrossEntropy 'loss'", "'fc'", 3, true};
    QString message;
    try {
      Dataset copy = d;
      checkLabels(copy, rule, "error");
    } catch (const Error& e) {
      message = QString::fromStdString(e.what());
    }
    qInfo("%s", qPrintable(message));
    QString missing;
    QVERIFY2(hasAll(message, {"mem.csv: row 3: label 4", "0 to 2", "2 of the 5 samples", "the largest 7", "!row 6"},
                    missing),
             qPrintable(QString("no '%1' in: %2").arg(missing, message)));

    checkLabels(d, rule, "skip");
    QCOMPARE(d.size, 3);
    QCOMPARE(d.features, (std::vector<float>{0, 2, 4}));
    QCOMPARE(d.labels, (std::vector<float>{0, 1, 2}));
    QCOMPARE(d.rows, (std::vector<int64_t>{2, 5, 7}));
    QCOMPARE(d.numClasses, 3);
    QCOMPARE(d.warnings.size(), size_t{1});
    const QString w = QString::fromStdString(d.warnings[0]);
    QVERIFY2(hasAll(w, {"mem.csv: skipped 2 of 5 rows", "row 3: label 4", "row 6: label 7"}, missing),
             qPrintable(QString("no '%1' in: %2").arg(missing, w)));

    // Labels that are all bad leave nothing: an error, in skip mode too.
    Dataset all = d;
    all.labels = {5, 6, 7};
    QVERIFY_THROWS_EXCEPTION(Error, checkLabels(all, rule, "skip"));

    // A target taken as is must be finite.
    Dataset targets;
    targets.source = targets.labelSource = "t.idx";
    targets.sampleShape = {1};
    targets.size = 2;
    targets.features = {0, 1};
    targets.labelWidth = 2;
    targets.labels = {0.5f, 1, std::nanf(""), 0};
    const LabelRule squared{"SquaredError 'loss'", "'fc'", 2, false};
    try {
      checkLabels(targets, squared, "error");
      QFAIL("a NaN target was accepted");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains("t.idx: index 1 (0-based)"), e.what());
    }
    checkLabels(targets, squared, "skip");
    QCOMPARE(targets.size, 1);
    QVERIFY2(QString::fromStdString(targets.warnings.at(0)).contains("skipped 1 of 2 samples"),
             targets.warnings.at(0).c_str());
  }

  // The reader's own skipped rows and the label check's share one warning, in file order.
  void oneWarningForReaderAndLabels() {
    const QString d = folder();
    writeText(d + "v.csv", "x__0,x__1,y\n1,2,9\n3,x,0\n5,6,1\n");
    Dataset data = loadDataSource(csvSpec(d + "v.csv"), 1.0, "skip");
    QCOMPARE(data.warnings.size(), size_t{1});
    checkLabels(data, LabelRule{"SoftmaxCrossEntropy 'loss'", "'fc'", 3, true}, "skip");
    QCOMPARE(data.size, 1);
    QCOMPARE(data.warnings.size(), size_t{1});
    const QString w = QString::fromStdString(data.warnings[0]);
    QVERIFY2(w.contains("skipped 2 of 3 rows") && w.indexOf("row 2") < w.indexOf("row 3"), qPrintable(w));
  }

  // A file whose rows are nearly all bad gives a warning of bounded size that still counts them all.
  void longSkipListIsBounded() {
    const QString d = folder();
    QByteArray csv = "x__0,y\n0,0\n";
    for (int i = 0; i < 5000; ++i) csv += "1,5\n";
    writeText(d + "many.csv", csv);
    Dataset data = loadDataSource(csvSpec(d + "many.csv"), 1.0, "skip");
    checkLabels(data, LabelRule{"SoftmaxCrossEntropy 'loss'", "'fc'", 3, true}, "skip");
    QCOMPARE(data.size, 1);
    const QString w = QString::fromStdString(data.warnings.at(0));
    QVERIFY2(w.contains("skipped 5000 of 5001 rows") && w.contains("and 4900 more"), qPrintable(w.left(300)));
    QVERIFY2(w.size() < 20000, qPrintable(QString::number(w.size())));
  }
};

QTEST_GUILESS_MAIN(TestDatasetLabelChecks)
#include "tst_dataset_label_checks.moc"
