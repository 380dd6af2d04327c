// The Training page's plan shows the training controls a step runs with when they are on —
// gradient accumulation (config.accumulate_gradients), clipping (optimizer.clip_gradient_norm) and
// the weights' moving average (optimizer.ema_decay) — read from the dry run's JSON, and no such
// rows when they are off.
#include <QTemporaryDir>
#include <QtTest>

#include "engine/project/project_io.h"
#include "gui/app/main_window.h"
#include "gui/training/training_page.h"

using namespace netsmith;
using namespace netsmith::gui;

class TestPlanTrainingControls : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

  QString lenet(const QString& name, bool controls) {
    Project p = loadProject(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj");
    p.parallel.devices = {"cpu:0"};
    if (controls) {
      p.config.accumulateGradients = 3;
      p.optimizer.clipGradientNorm = 2.5;
      p.optimizer.emaDecay = 0.998;
    }
    const QString path = m_dir.filePath(name + ".nsproj");
    saveProject(p, path.toStdString());
    return path;
  }

  static QString planOf(const QString& project) {
    MainWindow window;
    window.resize(1366, 768);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window) || !window.openProject(project)) return {};
    window.showPage("training");
    TrainingPage* training = window.trainingPage();
    if (!QTest::qWaitFor([&] { return training->planText().contains("Memory") && !training->planText().contains("updating"); },
                         30000))
      return {};
    return training->planText();
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    qputenv("NETSMITH_CLI", NETSMITH_CLI);
  }

  void rowsWhenOn() {
    const QString text = planOf(lenet("controls", true));
    QVERIFY2(text.contains("Accumulation</td><td>3 micro-batches of 64 per device and step"), qPrintable(text));
    QVERIFY2(text.contains("Gradient clipping</td><td>global norm at most 2.5"), qPrintable(text));
    QVERIFY2(text.contains("Weights</td><td>moving average, decay 0.998"), qPrintable(text));
  }

  void noRowsWhenOff() {
    const QString text = planOf(lenet("plain", false));
    QVERIFY2(text.contains("Memory"), qPrintable(text));
    QVERIFY2(!text.contains("Accumulation") && !text.contains("Gradient clipping") && !text.contains("moving average"),
             qPrintable(text));
  }
};

QTEST_MAIN(TestPlanTrainingControls)
#include "tst_plan_training_controls.moc"
