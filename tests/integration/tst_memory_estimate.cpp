// Note [Memory before launch] on CPU workers: the plan's estimate of the process's memory is
// within 15% of its measured peak (VmHWM) on every sample project (the folder sample on a small
// folder made as its comment says: a streamed store) and every network template, on one worker
// and on two (whose backward-weights copies of the whole batch differ).
#include <QTemporaryDir>
#include <QtTest>

#include "support/memory_check.h"

using namespace netsmith::test;

class MemoryEstimateTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;

  void check(const QString& project, const QString& devices, int trainSamples = 1024) {
    static int runs = 0;
    const auto compared = compareMemory(project, devices, m_dir.filePath(QString("run%1").arg(++runs)), {}, trainSamples);
    QCOMPARE(compared.size(), size_t{1});
    const MemoryComparison& c = compared.front();
    qInfo("%s %s", qPrintable(QFileInfo(project).baseName()), qPrintable(c.text()));
    QCOMPARE(QString::fromStdString(c.device), QString("cpu"));
    QVERIFY2(c.measured > 0 && c.base > 0, qPrintable(c.text()));
    QVERIFY2(c.ratio() > 0.85 && c.ratio() < 1.15, qPrintable(c.text()));
  }

 private slots:
  void samples_data() {
    QTest::addColumn<QString>("sample");
    QTest::addColumn<QString>("devices");
    for (const char* s : {"fashion_mnist_lenet", "fashion_mnist_mlp", "fashion_mnist_resnet"})
      for (const char* d : {"cpu:0", "cpu:0,cpu:1"}) QTest::newRow(qPrintable(QString("%1 %2").arg(s, d))) << s << d;
  }
  void samples() {
    QFETCH(QString, sample);
    QFETCH(QString, devices);
    Json p = sampleProject(sample.toStdString());
    const QString path = QString::fromStdString(saveProject(m_dir, sample.toStdString(), p));
    check(path, devices);
  }

  void folderSample() {
    const QString project = folderSampleProject(m_dir);
    QVERIFY(!project.isEmpty());
    check(project, "cpu:0", 480);
  }

  void templates_data() {
    QTest::addColumn<QString>("id");
    for (const auto& t : netsmith::networkTemplates()) QTest::newRow(t.id.c_str()) << QString::fromStdString(t.id);
  }
  void templates() {
    QFETCH(QString, id);
    check(templateProject(m_dir, id.toStdString()), "cpu:0", 256);
  }
};

QTEST_GUILESS_MAIN(MemoryEstimateTest)
#include "tst_memory_estimate.moc"
