// Note [Classifier head] in the GUI: a training dataset with 3 classes for LeNet's 10 outputs. The
// Edit page's probe counts the classes off the GUI thread; the Training page (above the plan)
// and the Config page show "The dataset has 3 classes but the network outputs 10" with a button
// "Set the head to 3 classes"; a click sets fc2's n_outmaps to [3] as one undo step, the line and
// the plan's warning go, and Ctrl+Z brings n_outmaps [10], the line and the warning back.
#include <QImage>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>
#include <fstream>

#include "engine/project/project_io.h"
#include "gui/widgets/class_count_bar.h"
#include "gui/app/main_window.h"
#include "gui/config/config_page.h"
#include "gui/document/dataset_shape_probe.h"
#include "gui/edit/edit_page.h"
#include "gui/training/training_page.h"

using namespace netsmith;
using namespace netsmith::gui;

class TestClassCountGui : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

  // A CSV of 28x28 gray PNGs labelled 0..classes-1 (two images each), and LeNet training on it.
  QString projectWithClasses(int classes) {
    const QString folder = m_dir.filePath(QString("classes%1").arg(classes));
    QDir().mkpath(folder);
    QString csv = "x:image,y:label\n";
    for (int i = 0; i < 2 * classes; ++i) {
      QImage image(28, 28, QImage::Format_Grayscale8);
      image.fill(static_cast<uint>(10 * i));
      const QString name = QString("img%1.png").arg(i);
      if (!image.save(folder + "/" + name)) return {};
      csv += name + "," + QString::number(i % classes) + "\n";
    }
    QFile file(folder + "/training.csv");
    if (!file.open(QIODevice::WriteOnly)) return {};
    file.write(csv.toUtf8());
    file.close();
    Project p = loadProject(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj");
    p.dataset.training = DataSourceSpec{};
    p.dataset.training.format = "csv";
    p.dataset.training.csv = (folder + "/training.csv").toStdString();
    p.dataset.validation = DataSourceSpec{};
    const QString path = folder + "/lenet.nsproj";
    saveProject(p, path.toStdString());
    return path;
  }

  static int headOutputs(MainWindow& window) {
    return window.document()->graph()->node("fc2")->params["n_outmaps"].at(0).get<int>();
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    qputenv("NETSMITH_CLI", NETSMITH_CLI);
  }

  void buttonSetsTheHeadUndoably() {
    const QString project = projectWithClasses(3);
    QVERIFY(!project.isEmpty());
    MainWindow window;
    window.resize(1366, 740);
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QVERIFY(window.openProject(project));
    window.editPage()->datasetShapeProbe()->waitForIdle();
    QCOMPARE(window.document()->graph()->datasetSamples()->classes, int64_t{3});

    window.showPage("training");
    TrainingPage* training = window.trainingPage();
    auto* bar = training->findChild<ClassCountBar*>();
    QVERIFY(bar);
    QVERIFY(bar->isVisible());
    QCOMPARE(bar->text(), QString("⚠ The dataset has 3 classes but the network outputs 10 (head 'fc2', Affine)"));
    QCOMPARE(bar->button()->text(), QString("Set the head to 3 classes"));
    auto* configBar = window.configPage()->findChild<ClassCountBar*>();
    QVERIFY(configBar);
    QCOMPARE(configBar->text(), bar->text());
    QTRY_VERIFY2_WITH_TIMEOUT(training->planText().contains("The dataset has 3 classes but the network outputs 10") &&
                                  !training->planText().contains("updating"),
                              qPrintable(training->planText()), 20000);

    const int steps = window.document()->undoStack()->count();
    QTest::mouseClick(bar->button(), Qt::LeftButton);
    QCOMPARE(headOutputs(window), 3);
    QCOMPARE(window.document()->undoStack()->count(), steps + 1);
    QCOMPARE(window.document()->undoStack()->undoText(), QString("Set the head fc2 to 3 classes"));
    QVERIFY(bar->isHidden());
    QVERIFY(configBar->isHidden());
    QTRY_VERIFY2_WITH_TIMEOUT(training->planText().contains("Logical batch") && !training->planText().contains("updating") &&
                                  !training->planText().contains("The dataset has"),
                              qPrintable(training->planText()), 20000);

    QTest::keyClick(&window, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(headOutputs(window), 10);
    QVERIFY(bar->isVisible());
    QCOMPARE(bar->button()->text(), QString("Set the head to 3 classes"));
    QTRY_VERIFY2_WITH_TIMEOUT(training->planText().contains("The dataset has 3 classes") && !training->planText().contains("updating"),
                              qPrintable(training->planText()), 20000);
    window.document()->undoStack()->setClean();  // no "save changes?" on close
  }

  // More classes than outputs: the trainer refuses, and the line offers the count that fixes it.
  void moreClassesThanOutputs() {
    const QString project = projectWithClasses(12);
    QVERIFY(!project.isEmpty());
    MainWindow window;
    QVERIFY(window.openProject(project));
    window.editPage()->datasetShapeProbe()->waitForIdle();
    auto* bar = window.configPage()->findChild<ClassCountBar*>();
    QVERIFY(bar);
    QCOMPARE(bar->text(), QString("⚠ The dataset has 12 classes but the network outputs 10 (head 'fc2', Affine)"));
    QCOMPARE(bar->button()->text(), QString("Set the head to 12 classes"));
    QTest::mouseClick(bar->button(), Qt::LeftButton);
    QCOMPARE(headOutputs(window), 12);
    QVERIFY(bar->text().isEmpty());
    window.document()->undoStack()->undo();
    QCOMPARE(headOutputs(window), 10);
    QVERIFY(!bar->text().isEmpty());
    window.document()->undoStack()->setClean();
  }
};

QTEST_MAIN(TestClassCountGui)
#include "tst_class_count_gui.moc"
