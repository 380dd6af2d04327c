// Note [Memory before launch] on simulated GPUs: each GPU's estimate is within 15% of the memory
// the simulator had in use at the run's peak (its CUDA context included, and without it), on the
// samples and the templates and on two GPUs; a batch that does not fit
// NETSMITH_SIMULATED_GPU_MEMORY_MB is refused before anything trains, naming the GPU and the
// largest batch that fits; that batch trains, filling the GPU to within 15% of its memory.
#include <QTemporaryDir>
#include <QtTest>

#include "support/memory_check.h"

using namespace netsmith::test;

class SimMemoryEstimateTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  int m_runs = 0;

  QString runDir() { return m_dir.filePath(QString("run%1").arg(++m_runs)); }

  void check(const QString& project, const QString& devices, int trainSamples = 1024) {
    const auto compared = compareMemory(project, devices, runDir(), {}, trainSamples);
    QCOMPARE(compared.size(), size_t(devices.count(',') + 1));
    for (const MemoryComparison& c : compared) {
      qInfo("%s %s", qPrintable(QFileInfo(project).baseName()), qPrintable(c.text()));
      QVERIFY2(c.device.rfind("cuda:", 0) == 0 && c.measured > c.base && c.base > 0, qPrintable(c.text()));
      QVERIFY2(c.ratio() > 0.85 && c.ratio() < 1.15, qPrintable(c.text()));
      // The tensors alone, the context aside: the part the graph and the solver decide.
      const double tensors = double(c.estimate - c.base) / double(c.measured - c.base);
      QVERIFY2(tensors > 0.85 && tensors < 1.15, qPrintable(c.text() + QString(", tensors ratio %1").arg(tensors)));
    }
  }

 private slots:
  void samples_data() {
    QTest::addColumn<QString>("sample");
    for (const char* s : {"fashion_mnist_lenet", "fashion_mnist_mlp", "fashion_mnist_resnet"}) QTest::newRow(s) << s;
  }
  void samples() {
    QFETCH(QString, sample);
    check(QString::fromStdString(saveProject(m_dir, sample.toStdString(), sampleProject(sample.toStdString()))), "cuda:0");
  }

  void twoGpus() {
    check(QString::fromStdString(saveProject(m_dir, "lenet2", sampleProject("fashion_mnist_lenet"))), "cuda:0,cuda:1");
  }

  void folderSample() {
    const QString project = folderSampleProject(m_dir);
    QVERIFY(!project.isEmpty());
    check(project, "cuda:0", 480);
  }

  void templates_data() {
    QTest::addColumn<QString>("id");
    for (const auto& t : netsmith::networkTemplates()) QTest::newRow(t.id.c_str()) << QString::fromStdString(t.id);
  }
  void templates() {
    QFETCH(QString, id);
    check(templateProject(m_dir, id.toStdString()), "cuda:0", 256);
  }

  void refusedThenLargestBatchTrains() {
    const QStringList small{"NETSMITH_SIMULATED_GPU_MEMORY_MB=1024"};
    Json p = sampleProject("fashion_mnist_lenet");
    p["config"]["batch_size"] = 8192;
    const QString big = QString::fromStdString(saveProject(m_dir, "big", p));
    const CliRun refused = runCli({"train", big, "--devices", "cuda:0", "--events", "-", "--run-dir", runDir()}, 600000, {}, small);
    QCOMPARE(refused.exitCode, 1);
    QVERIFY(refused.ofKind("started").empty());  // refused before the workers start
    const QString why = QString::fromStdString(refused.last("finished").value("message", "")) + refused.stderrText;
    const QRegularExpression fits("cuda:0 needs about .* at a batch of 8192 per device but it has .*: a batch of at most (\\d+) per device fits");
    const QRegularExpressionMatch m = fits.match(why);
    QVERIFY2(m.hasMatch(), qPrintable(why));
    const int64_t largest = m.captured(1).toLongLong();
    QVERIFY(largest > 64 && largest < 8192);

    // The dry run says the same as a warning, with the largest batch in its JSON.
    const CliRun plan = runCli({"train", big, "--devices", "cuda:0", "--dry-run", "--json"}, 600000, {}, small);
    QCOMPARE(plan.exitCode, 0);
    const Json planJson = Json::parse(plan.stdoutText.toStdString());
    QCOMPARE(planJson.at("memory").at(0).at("largest_batch").get<int64_t>(), largest);
    QVERIFY(planJson.at("warnings").dump().find("will not fit in memory") != std::string::npos);

    p["config"]["batch_size"] = largest;
    const QString fit = QString::fromStdString(saveProject(m_dir, "fit", p));
    const auto compared = compareMemory(fit, "cuda:0", runDir(), small, int(2 * largest));
    QCOMPARE(compared.size(), size_t{1});
    qInfo("largest batch %lld: %s", static_cast<long long>(largest), qPrintable(compared[0].text()));
    QVERIFY2(compared[0].measured > 0.85 * 1024.0 * (1 << 20), qPrintable(compared[0].text()));

    // One sample per device more than the largest is refused.
    p["config"]["batch_size"] = largest + 1;
    const CliRun over = runCli({"train", QString::fromStdString(saveProject(m_dir, "over", p)), "--devices", "cuda:0",
                                "--events", "-", "--run-dir", runDir()}, 600000, {}, small);
    QCOMPARE(over.exitCode, 1);
    QVERIFY(over.ofKind("started").empty());
  }
};

QTEST_GUILESS_MAIN(SimMemoryEstimateTest)
#include "tst_sim_memory_estimate.moc"
