// The Edit page: palette from the registry, canvas items following the document, links refused
// with a message, the property editor writing typed values, copy/paste through the clipboard,
// delete and undo, blocks marked red with the validator's sentence.
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QUndoStack>
#include <QtTest>

#include "engine/ops/op_registry.h"
#include "gui/edit/edit_page.h"
#include "gui/edit/graph_items.h"
#include "gui/edit/graph_scene.h"
#include "gui/edit/palette_widget.h"
#include "gui/edit/property_panel.h"

using namespace netsmith;
using namespace netsmith::gui;

namespace {
QString lenetPath() { return QStringLiteral(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj"); }
void setLine(QWidget* editor, const QString& text) {
  auto* line = qobject_cast<QLineEdit*>(editor);
  QVERIFY(line);
  line->setText(text);
  line->setModified(true);
  emit line->editingFinished();
}
}  // namespace

class TestEditPage : public QObject {
  Q_OBJECT
 private slots:
  void paletteListsEveryRegistryOp() {
    PaletteWidget palette;
    QStringList expected;
    for (const OpSchema* s : OpRegistry::builtin().all()) expected << qs(s->name);
    QCOMPARE(palette.layerNames(), expected);
    palette.setFilter("pool");
    QVERIFY(palette.visibleLayerNames().contains("MaxPooling"));
    QVERIFY(!palette.visibleLayerNames().contains("ReLU"));
    palette.setFilter("");
    QCOMPARE(palette.visibleLayerNames().size(), expected.size());
  }

  void canvasFollowsDocumentAndUndo() {
    ProjectDocument doc;
    doc.load(lenetPath());
    EditPage page(&doc);
    QCOMPARE(page.scene()->nodeItem("conv1")->shapeText(), QString("→ 16,28,28  ·  416 params"));
    QCOMPARE(page.scene()->linkItems().size(), 10);
    QVERIFY(page.statusText().contains("network valid"));

    const QString id = page.addLayer("Dropout", QPointF(300, 300));
    QCOMPARE(id, QString("dropout1"));
    QVERIFY(page.scene()->nodeItem(id));
    // A dangling block is invalid: red, with the validator's sentence.
    QVERIFY(page.scene()->nodeItem(id)->hasProblems());
    QVERIFY(page.statusText().contains("problem"));
    QVERIFY(page.scene()->nodeItem(id)->toolTip().contains("has no input"));

    QVERIFY(!page.requestLink("relu1", "conv2"));  // conv2's only port is taken
    QVERIFY(page.lastMessage().contains("Link refused"));
    QVERIFY(page.requestLink("relu3", id));
    QCOMPARE(page.scene()->linkItems().size(), 11);

    // A drag reported by the scene becomes one undo step.
    emit page.scene()->nodesMoved({{id, {QPointF(300, 300), QPointF(320, 310)}}});
    QCOMPARE(page.scene()->nodeItem(id)->pos(), QPointF(320, 310));
    doc.undoStack()->undo();
    QCOMPARE(page.scene()->nodeItem(id)->pos(), QPointF(300, 300));
    doc.undoStack()->undo();  // the link
    QCOMPARE(page.scene()->linkItems().size(), 10);
    doc.undoStack()->undo();  // the block
    QVERIFY(!page.scene()->nodeItem(id));
    QVERIFY(!doc.isModified());
  }

  void deleteSelectionAndUndo() {
    ProjectDocument doc;
    doc.load(lenetPath());
    EditPage page(&doc);
    page.scene()->selectNodes({"relu2"});
    page.deleteSelection();
    QVERIFY(!page.scene()->nodeItem("relu2"));
    QCOMPARE(page.scene()->linkItems().size(), 8);
    QVERIFY(page.scene()->nodeItem("conv2")->hasProblems());  // its output is now unused
    doc.undoStack()->undo();
    QVERIFY(page.scene()->nodeItem("relu2"));
    QCOMPARE(page.scene()->linkItems().size(), 10);
    QVERIFY(!page.scene()->nodeItem("conv2")->hasProblems());
    // A selected link alone.
    for (auto* link : page.scene()->linkItems())
      if (link->from() == "x") link->setSelected(true);
    page.deleteSelection();
    QCOMPARE(doc.graph()->spec().links.size(), size_t{9});
    doc.undoStack()->undo();
    QCOMPARE(doc.graph()->spec().links[0].from, std::string("x"));
  }

  void copyPasteThroughClipboard() {
    ProjectDocument doc;
    doc.load(lenetPath());
    EditPage page(&doc);
    page.scene()->selectNodes({"conv1", "relu1"});
    page.copySelection();
    page.paste();
    QVERIFY(doc.graph()->node("conv2") && doc.graph()->node("conv3"));
    QVERIFY(page.scene()->nodeItem("conv3"));
    QCOMPARE(page.scene()->selectedNodeIds(), QStringList({"conv3", "relu4"}));
    QCOMPARE(doc.graph()->spec().links.back().from, std::string("conv3"));
    doc.undoStack()->undo();
    QVERIFY(!doc.graph()->node("conv3"));
  }

  void propertyEditorWritesTypedValues() {
    ProjectDocument doc;
    doc.load(lenetPath());
    EditPage page(&doc);
    page.scene()->selectNodes({"conv1"});
    PropertyPanel* panel = page.properties();
    QCOMPARE(panel->nodeId(), QString("conv1"));
    auto* outmaps = qobject_cast<QSpinBox*>(panel->editorFor("outmaps"));
    QVERIFY(outmaps);
    QCOMPARE(outmaps->value(), 16);
    outmaps->setValue(32);
    const NodeSpec* conv1 = doc.graph()->node("conv1");
    QVERIFY(conv1->params["outmaps"].is_number_integer());
    QCOMPARE(conv1->params["outmaps"].get<int>(), 32);
    QCOMPARE(page.scene()->nodeItem("conv1")->shapeText().left(10), QString("→ 32,28,28"));

    setLine(panel->editorFor("kernel"), "7,7");
    QVERIFY2(panel->errorText().isEmpty(), qPrintable(panel->errorText()));
    QCOMPARE(doc.graph()->node("conv1")->params["kernel"], Json::array({7, 7}));

    // Refused by the registry's validator: the sentence is shown, nothing changes.
    const int steps = doc.undoStack()->count();
    setLine(panel->editorFor("kernel"), "3");
    QVERIFY2(panel->errorText().contains("kernel"), qPrintable(panel->errorText()));
    setLine(panel->editorFor("pad"), "a,b");
    QVERIFY(panel->errorText().contains("integers"));
    QCOMPARE(doc.undoStack()->count(), steps);
    QCOMPARE(doc.graph()->node("conv1")->params["kernel"], Json::array({7, 7}));

    auto* withBias = qobject_cast<QCheckBox*>(panel->editorFor("with_bias"));
    QVERIFY(withBias);
    withBias->setChecked(false);
    QVERIFY(doc.graph()->node("conv1")->params["with_bias"].is_boolean());
    QCOMPARE(doc.graph()->node("conv1")->params["with_bias"].get<bool>(), false);
    // Back to the default: the key leaves the project file.
    withBias->setChecked(true);
    QVERIFY(!doc.graph()->node("conv1")->params.contains("with_bias"));

    // Undo puts the editors back.
    doc.undoStack()->undo();
    QCOMPARE(withBias->isChecked(), false);

    // Every registry parameter has an editor of its type.
    for (const OpSchema* schema : OpRegistry::builtin().all()) {
      const QString id = page.addLayer(qs(schema->name), QPointF(500, 0));
      page.scene()->selectNodes({id});
      QCOMPARE(panel->nodeId(), id);
      for (const ParamSpec& p : schema->params) {
        QWidget* e = panel->editorFor(qs(p.name));
        QVERIFY2(e, p.name.c_str());
        if (p.type == ParamType::Int) QVERIFY(qobject_cast<QSpinBox*>(e));
        if (p.type == ParamType::Bool) QVERIFY(qobject_cast<QCheckBox*>(e));
        if (p.type == ParamType::String && !p.choices.empty()) QVERIFY(qobject_cast<QComboBox*>(e));
        if (p.type == ParamType::Ints || p.type == ParamType::Float) QVERIFY(qobject_cast<QLineEdit*>(e));
      }
    }
  }

  void renameThroughPanel() {
    ProjectDocument doc;
    doc.load(lenetPath());
    EditPage page(&doc);
    page.scene()->selectNodes({"fc1"});
    PropertyPanel* panel = page.properties();
    panel->idEditor()->setText("conv1");
    emit panel->idEditor()->editingFinished();
    QVERIFY(panel->errorText().contains("already used"));
    panel->idEditor()->setText("hidden");
    emit panel->idEditor()->editingFinished();
    QVERIFY(doc.graph()->node("hidden"));
    QVERIFY(page.scene()->nodeItem("hidden"));
    QCOMPARE(panel->nodeId(), QString("hidden"));
    QVERIFY(doc.graph()->analysis().valid);
  }

  void autoArrangeIsOneStep() {
    ProjectDocument doc;
    doc.load(lenetPath());
    EditPage page(&doc);
    page.addLayer("ReLU", QPointF(900, 900));
    const int steps = doc.undoStack()->count();
    page.autoArrange();
    QCOMPARE(doc.undoStack()->count(), steps + 1);
    QCOMPARE(page.scene()->nodeItem("relu4")->pos(), QPointF(220, 0));
    doc.undoStack()->undo();
    QCOMPARE(page.scene()->nodeItem("relu4")->pos(), QPointF(900, 900));
  }
};

QTEST_MAIN(TestEditPage)
#include "tst_edit_page.moc"
