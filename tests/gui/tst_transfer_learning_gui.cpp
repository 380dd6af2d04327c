// Transfer learning in the GUI (issue 18 item 5): the property panel's "Frozen" and
// "Learning-rate multiplier" for layers with parameters (undoable, saved as "frozen"/"lr_mult"),
// a frozen block drawn differently, the Config page's initial parameters chosen from a previous run
// of the project, and the Training page's log showing the engine's load report of a real run
// started from that run with a layer frozen.
#include <QCheckBox>
#include <QDeadlineTimer>
#include <QDoubleSpinBox>
#include <QFile>
#include <QImage>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QTemporaryDir>
#include <QToolButton>
#include <QUndoStack>
#include <QtTest>
#include <fstream>

#include "gui/config/config_page.h"
#include "gui/document/project_document.h"
#include "gui/edit/edit_page.h"
#include "gui/edit/graph_items.h"
#include "gui/edit/graph_scene.h"
#include "gui/edit/property_panel.h"
#include "gui/training/training_page.h"

using namespace netsmith;
using namespace netsmith::gui;

namespace {

QImage render(NodeItem* item) {
  QImage image(static_cast<int>(NodeItem::kWidth) + 8, static_cast<int>(NodeItem::kHeight) + 8, QImage::Format_ARGB32);
  image.fill(Qt::white);
  QPainter painter(&image);
  QStyleOptionGraphicsItem option;
  item->paint(&painter, &option, nullptr);
  return image;
}

Json readJson(const QString& path) { return Json::parse(std::ifstream(path.toStdString())); }

}  // namespace

class TestTransferLearningGui : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  QString m_project;

 private slots:
  void initTestCase() {
    qputenv("NETSMITH_CLI", NETSMITH_CLI);
    m_project = m_dir.filePath("mlp.nsproj");
    QVERIFY(QFile::copy(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_mlp.nsproj", m_project));
    QFile::setPermissions(m_project, QFile::ReadOwner | QFile::WriteOwner);
  }

  void propertyPanelFreezesUndoably() {
    ProjectDocument doc;
    doc.load(m_project);
    EditPage page(&doc);
    PropertyPanel* panel = page.properties();
    panel->showNode("relu1");
    QVERIFY(!panel->frozenEditor() && !panel->lrMultEditor());  // no parameters: no fields
    panel->showNode("fc1");
    QVERIFY(panel->frozenEditor() && panel->lrMultEditor());
    QVERIFY(!panel->frozenEditor()->isChecked());
    QCOMPARE(panel->lrMultEditor()->value(), 1.0);

    const QImage plain = render(page.scene()->nodeItem("fc1"));
    panel->frozenEditor()->setChecked(true);
    QVERIFY(doc.graph()->node("fc1")->frozen);
    NodeItem* item = page.scene()->nodeItem("fc1");
    QVERIFY(item->isFrozen());
    QVERIFY2(item->summaryText().startsWith("frozen · "), qPrintable(item->summaryText()));
    // Drawn differently: the fill of the body changes.
    const QImage frozen = render(item);
    const QPoint inside(11, static_cast<int>(NodeItem::kHeight / 2));  // between the stripe and the text
    QVERIFY(plain.pixelColor(inside) != frozen.pixelColor(inside));
    QVERIFY(frozen != plain);

    panel->lrMultEditor()->setValue(2.5);
    QCOMPARE(doc.graph()->node("fc1")->lrMult, 2.5);
    QVERIFY2(item->summaryText().startsWith(QString("frozen · lr ×%1 · ").arg(QLocale().toString(2.5))),
             qPrintable(item->summaryText()));
    doc.undoStack()->undo();
    QCOMPARE(doc.graph()->node("fc1")->lrMult, 1.0);
    QCOMPARE(panel->lrMultEditor()->value(), 1.0);
    doc.undoStack()->undo();
    QVERIFY(!doc.graph()->node("fc1")->frozen);
    QVERIFY(!panel->frozenEditor()->isChecked());
    QVERIFY(!item->isFrozen());
    doc.undoStack()->redo();
    doc.undoStack()->redo();

    const QString saved = m_dir.filePath("edited.nsproj");
    doc.save(saved);
    const Json json = readJson(saved);
    QCOMPARE(json["network"]["nodes"][1]["frozen"], Json(true));
    QCOMPARE(json["network"]["nodes"][1]["lr_mult"], Json(2.5));
    QVERIFY(!json["network"]["nodes"][3].contains("frozen"));
  }

  // The Config page offers this project's finished runs; the Training page's log shows the report
  // of a run started from one, with fc1 frozen.
  void initialParametersFromAPreviousRunAndTheLoadReport() {
    ProjectDocument doc;
    doc.load(m_project);
    ConfigPage config(&doc);
    QVERIFY(config.findChild<QToolButton*>("config.initial_parameters.choose"));
    QVERIFY(config.previousRuns().isEmpty());
    TrainingPage training(&doc);
    training.setExtraArguments({"--max-epoch", "1", "--train-samples", "128", "--validation-samples", "64"});
    QVERIFY(training.start());
    QVERIFY(QTest::qWaitFor([&] { return !training.isRunning(); }, 240000));
    QVERIFY2(training.lastOutcome() && training.lastOutcome()->status == RunOutcome::Status::Completed,
             qPrintable(training.logText()));
    // A folder without parameters is not offered.
    QVERIFY(QDir().mkpath(m_dir.filePath("mlp.runs/00000000-000000")));
    const QStringList runs = config.previousRuns();
    QCOMPARE(runs.size(), 1);
    QVERIFY(QFileInfo::exists(runs[0] + "/parameters.nsparams"));

    config.chooseInitialParameters(runs[0]);
    QCOMPARE(QString::fromStdString(doc.settings().config.initialParameters), runs[0]);
    QVERIFY(config.errorFor("config.initial_parameters").isEmpty());
    doc.undoStack()->undo();
    QVERIFY(doc.settings().config.initialParameters.empty());
    doc.undoStack()->redo();

    EditPage edit(&doc);
    edit.properties()->showNode("fc1");
    edit.properties()->frozenEditor()->setChecked(true);
    QVERIFY(training.start());
    QVERIFY(QTest::qWaitFor([&] { return !training.isRunning(); }, 240000));
    const QString log = training.logText();
    QVERIFY2(training.lastOutcome() && training.lastOutcome()->status == RunOutcome::Status::Completed, qPrintable(log));
    QVERIFY2(log.contains(QString("Initial parameters from %1/parameters.nsparams: 6 blob(s) loaded, 0 new").arg(runs[0])),
             qPrintable(log));
  }
};

QTEST_MAIN(TestTransferLearningGui)
#include "tst_transfer_learning_gui.moc"
