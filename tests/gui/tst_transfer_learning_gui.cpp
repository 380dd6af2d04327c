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
#include <QLineEdit>
#include <QMenu>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QTemporaryDir>
#include <QToolButton>
#include <QUndoStack>
#include <QtTest>
#include <fstream>

#include "gui/config/config_page.h"
#include "gui/document/project_document.h"
#include "gui/edit/canvas_menus.h"
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
  // Note [Editing several blocks]: freezing a backbone is one selection and one click, with one
  // undo step, from the panel or the context menu; a shared parameter edits every block.
  void severalBlocksAtOnce() {
    ProjectDocument doc;
    doc.load(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj");
    EditPage page(&doc);
    PropertyPanel* panel = page.properties();
    page.scene()->selectNodes({"conv1", "relu1", "conv2", "fc1"});
    QCOMPARE(panel->nodeIds().size(), 4);
    QVERIFY(panel->frozenEditor() && panel->lrMultEditor());
    // Convolution, ReLU and Affine share no parameter; the two Convolutions below do.
    QVERIFY(!panel->editorFor("kernel"));
    const int steps = doc.undoStack()->count();
    panel->frozenEditor()->setChecked(true);
    for (const char* id : {"conv1", "conv2", "fc1"}) QVERIFY2(doc.graph()->node(id)->frozen, id);
    QVERIFY(!doc.graph()->node("relu1")->frozen);  // nothing to freeze
    QCOMPARE(doc.undoStack()->count(), steps + 1);  // one undo step
    panel->lrMultEditor()->setValue(0.5);
    for (const char* id : {"conv1", "conv2", "fc1"}) QCOMPARE(doc.graph()->node(id)->lrMult, 0.5);
    QCOMPARE(doc.undoStack()->count(), steps + 2);
    doc.undoStack()->undo();
    doc.undoStack()->undo();
    for (const char* id : {"conv1", "conv2", "fc1"}) QVERIFY(!doc.graph()->node(id)->frozen);

    // Mixed values show as mixed.
    panel->showNode("conv1");
    panel->frozenEditor()->setChecked(true);
    page.scene()->selectNodes({"conv1", "conv2"});
    QCOMPARE(panel->frozenEditor()->checkState(), Qt::PartiallyChecked);
    auto* outmaps = qobject_cast<QLineEdit*>(panel->editorFor("outmaps"));
    QVERIFY(outmaps);
    QVERIFY(outmaps->text().isEmpty() && outmaps->placeholderText() == "mixed");  // 16 and 32
    QCOMPARE(qobject_cast<QLineEdit*>(panel->editorFor("kernel"))->text(), QString("5,5"));
    // A shared parameter: both Convolutions at once; a value one of them refuses changes neither.
    outmaps->setText("24");
    outmaps->setModified(true);
    emit outmaps->editingFinished();
    QCOMPARE(doc.graph()->node("conv1")->params["outmaps"], Json(24));
    QCOMPARE(doc.graph()->node("conv2")->params["outmaps"], Json(24));
    auto* kernel = qobject_cast<QLineEdit*>(panel->editorFor("kernel"));
    kernel->setText("3");
    kernel->setModified(true);
    emit kernel->editingFinished();
    QVERIFY2(panel->errorText().contains("no block was changed"), qPrintable(panel->errorText()));
    QCOMPARE(doc.graph()->node("conv1")->params["kernel"], Json({5, 5}));

    // The block context menu: Freeze / Unfreeze the selection.
    page.scene()->selectNodes({"conv1", "conv2", "fc1", "fc2"});
    QMenu* menu = page.canvasMenus()->nodeMenu("conv2");
    QAction* freeze = menu->findChild<QAction*>("freezeLayers");
    QVERIFY(freeze && freeze->isEnabled());
    QCOMPARE(freeze->text(), QString("&Freeze 3 layer(s)"));  // conv1 is frozen already
    const int before = doc.undoStack()->count();
    freeze->trigger();
    for (const char* id : {"conv1", "conv2", "fc1", "fc2"}) QVERIFY2(doc.graph()->node(id)->frozen, id);
    QCOMPARE(doc.undoStack()->count(), before + 1);
    delete menu;
    menu = page.canvasMenus()->nodeMenu("conv2");
    QVERIFY(!menu->findChild<QAction*>("freezeLayers")->isEnabled());
    menu->findChild<QAction*>("unfreezeLayers")->trigger();
    for (const char* id : {"conv1", "conv2", "fc1", "fc2"}) QVERIFY2(!doc.graph()->node(id)->frozen, id);
    delete menu;
  }

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
