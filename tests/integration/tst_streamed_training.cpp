// Training from a dataset streamed out of its packed sample store (Note [Sample storage], [Sample
// feed]) is the same training as from the same images held in memory: one parameters_sha256 in
// reproducible mode on 1 and 2 workers, whichever way the samples were kept. The plan states the
// storage and size on disk; the events and the progress line carry the data's share of the step.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include "engine/data/folder/dataset_builder.h"
#include "engine/data/sample_store.h"
#include "support/cli_runner.h"
#include "unit/dataset_test_files.h"

using namespace netsmith;
using namespace netsmith::test;

const QString kClasses[] = {"bird", "cat", "dög"};  // sorted: labels 0, 1, 2

class StreamedTrainingTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString path(const QString& rel) const { return m_dir.filePath(rel); }

  // A project training an MLP on DIR/training.csv (3x8x8 images, 3 classes), reproducible.
  QString project(const QString& name, const QString& dataset, const std::vector<std::string>& devices) {
    QFile sample(sourcePath("projects/fashion_mnist_mlp.nsproj"));
    if (!sample.open(QIODevice::ReadOnly)) return {};
    Json p = Json::parse(sample.readAll().toStdString());
    for (Json& node : p["network"]["nodes"]) {
      if (node["id"] == "x") node["params"]["shape"] = {3, 8, 8};
      if (node["id"] == "fc3") node["params"]["n_outmaps"] = {3};
    }
    p["dataset"]["training"] = {{"format", "csv"}, {"csv", (dataset + "/training.csv").toStdString()}};
    p["dataset"]["validation"] = {{"format", "csv"}, {"csv", (dataset + "/validation.csv").toStdString()}};
    p["config"]["batch_size"] = 32;
    p["config"]["deterministic"] = true;
    p["config"]["max_epoch"] = 2;
    p["parallel"]["devices"] = devices;
    p["parallel"]["lr_policy"] = "keep_logical_batch";
    const QString file = path(name + ".nsproj");
    QFile out(file);
    if (!out.open(QIODevice::WriteOnly)) return {};
    out.write(QByteArray::fromStdString(p.dump(2)));
    return file;
  }

  std::string trainedSha(const QString& projectFile, const QString& runDir, CliRun* keep = nullptr) {
    const CliRun r = runCli({"train", projectFile, "--run-dir", runDir, "--events", "-"}, 300000);
    if (keep) *keep = r;
    if (r.exitCode != 0) qWarning("%s", (r.stdoutText + r.stderrText).constData());
    return r.last("finished").value("parameters_sha256", std::string());
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    // 3 class folders of 40 RGB images each; dataset create writes the PNGs and the store.
    for (int c = 0; c < 3; ++c) {
      const QString folder = path("source/" + kClasses[c]);
      QVERIFY(QDir().mkpath(folder));
      for (int i = 0; i < 40; ++i)
        QVERIFY(testing::writePng(folder + QString("/%1.png").arg(i), 8, 8, PNG_COLOR_TYPE_RGB, 8, [&](int x, int y, int ch) {
          return (c * 70 + ch * 50 + (x * 3 + y * 5 + i * 7) % 40) % 256;
        }));
    }
    FolderDatasetOptions o;
    o.source = path("source").toStdString();
    o.output = path("streamed").toStdString();
    o.validationPercent = 20;
    buildFolderDataset(o);
    QVERIFY(QFileInfo::exists(path("streamed/training.nsstore")));
    // The same dataset without its stores: the images are decoded and held in memory.
    QVERIFY(QDir().mkpath(path("held")));
    QVERIFY(QFile::copy(path("streamed/training.csv"), path("held/training.csv")));
    QVERIFY(QFile::copy(path("streamed/validation.csv"), path("held/validation.csv")));
    QVERIFY(QFile::copy(path("streamed/classes.txt"), path("held/classes.txt")));
    QVERIFY(QDir().rename(path("streamed/images"), path("held/images")));  // the store needs no images
  }

  void planStatesWhereTheDataIsKept() {
    const CliRun r = runCli({"train", project("plan", path("streamed"), {"cpu:0"}), "--dry-run", "--json"});
    QCOMPARE(r.exitCode, 0);
    const Json plan = Json::parse(r.stdoutText.toStdString());
    const Json& data = plan.at("data");
    QCOMPARE(data.size(), size_t{1});  // the dry run does not load the validation set
    QCOMPARE(data[0].at("storage").get<std::string>(), std::string("streamed"));
    QCOMPARE(data[0].at("shape"), (Json{3, 8, 8}));
    QVERIFY(data[0].at("disk_bytes").get<int64_t>() >= 96 * 192);
    QVERIFY(data[0].at("memory_bytes").get<int64_t>() < 96 * 192);  // labels, not samples
    QVERIFY(plan.at("memory_bytes_needed").get<int64_t>() > 0);
    const CliRun held = runCli({"train", project("plan-held", path("held"), {"cpu:0"}), "--dry-run"});
    QVERIFY2(held.stdoutText.contains("held in memory as bytes"), held.stdoutText.constData());
  }

  void streamedTrainsLikeHeldOn1And2Workers() {
    CliRun streamedRun;
    const std::string streamed1 = trainedSha(project("s1", path("streamed"), {"cpu:0"}), path("run-s1"), &streamedRun);
    const std::string held1 = trainedSha(project("h1", path("held"), {"cpu:0"}), path("run-h1"));
    const std::string streamed2 = trainedSha(project("s2", path("streamed"), {"cpu:0", "cpu:1"}), path("run-s2"));
    const std::string held2 = trainedSha(project("h2", path("held"), {"cpu:0", "cpu:1"}), path("run-h2"));
    QVERIFY(!streamed1.empty());
    QCOMPARE(held1, streamed1);
    QCOMPARE(streamed2, streamed1);
    QCOMPARE(held2, streamed1);
    // Every device's iteration figures carry the data's share; the epoch summary its fraction.
    const std::vector<Json> iterations = streamedRun.ofKind("iteration");
    QVERIFY(!iterations.empty());
    for (const Json& e : iterations)
      for (const Json& d : e.at("devices")) QVERIFY(d.at("data_ms").get<double>() > 0);
    const Json epoch = streamedRun.last("epoch");
    const double share = epoch.at("scaling").at("data_share").get<double>();
    QVERIFY2(share > 0 && share < 1, epoch.dump().c_str());
  }

  // The folder names are the class names of the trained run's evaluation.
  void evaluatesWithTheFolderNames() {
    const CliRun r = runCli({"evaluate", path("run-s1"), "--json"});
    QVERIFY2(r.exitCode == 0, r.stderrText.constData());
    const Json j = Json::parse(r.stdoutText.toStdString());
    QCOMPARE(j.at("class_names").get<std::vector<std::string>>(),
             (std::vector<std::string>{"bird", "cat", "dög"}));
    QCOMPARE(j.at("per_class").size(), size_t{3});
    QCOMPARE(j.at("per_class")[2].at("name").get<std::string>(), std::string("dög"));
  }

  void progressLineShowsTheDataShare() {
    const CliRun r = runCli({"train", project("bar", path("streamed"), {"cpu:0"}), "--run-dir", path("run-bar")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(QRegularExpression("samples/s data [0-9]+% ETA").match(QString::fromUtf8(r.stdoutText)).hasMatch(),
             r.stdoutText.constData());
  }
};

QTEST_GUILESS_MAIN(StreamedTrainingTest)
#include "tst_streamed_training.moc"
