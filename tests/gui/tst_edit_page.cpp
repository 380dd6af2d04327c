// The Edit page: palette from the registry, canvas items following the document, links refused
// with a message, the property editor writing typed values, copy/paste through the clipboard,
// delete and undo, blocks marked red with the validator's sentence.
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QImage>
#include <QLineEdit>
#include <QPainter>
#include <QScreen>
#include <QSpinBox>
#include <QStyleOptionGraphicsItem>
#include <QUndoStack>
#include <QFontInfo>
#include <QtTest>

#include "engine/op_interface/op_registry.h"
#include "gui/app/application.h"
#include "gui/app/main_window.h"
#include "gui/document/dataset_shape_probe.h"
#include "gui/document/graph_commands.h"
#include "gui/edit/edit_page.h"
#include "gui/edit/graph_view.h"
#include "gui/edit/graph_items.h"
#include "gui/edit/graph_scene.h"
#include "gui/edit/palette_widget.h"
#include "gui/edit/property_panel.h"

using namespace netsmith;
using namespace netsmith::gui;

namespace {
QString lenetPath() { return QStringLiteral(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj"); }
QString resnetPath() { return QStringLiteral(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_resnet.nsproj"); }

QRectF bodyOf(const NodeItem* item) { return QRectF(item->pos(), QSizeF(NodeItem::kWidth, NodeItem::kHeight)); }

// Every link is drawn where it can be seen: its path crosses no block but its two ends, and two
// links into one block end at different input ports. Returns the first violation (empty: none).
QString linkVisibilityProblem(GraphScene* scene) {
  QHash<QString, QList<QPointF>> ends;
  for (LinkItem* link : scene->linkItems()) {
    const QPainterPath path = link->path();
    for (QGraphicsItem* item : scene->items()) {
      if (item->type() != NodeItem::kType) continue;
      auto* node = static_cast<NodeItem*>(item);
      if (node->id() == link->from() || node->id() == link->to()) continue;
      const QRectF body = bodyOf(node);
      for (int i = 1; i < 200; ++i)
        if (body.contains(path.pointAtPercent(i / 200.0)))
          return QStringLiteral("link %1 → %2 runs across block %3").arg(link->from(), link->to(), node->id());
    }
    const QPointF end = path.pointAtPercent(1);
    for (const QPointF& other : ends[link->to()])
      if (QLineF(end, other).length() < NodeItem::kPortRadius * 2)
        return QStringLiteral("two links end at the same port of %1").arg(link->to());
    ends[link->to()] << end;
  }
  return {};
}

// Where the painting of `item` lands outside its bounding rectangle (it would cover its neighbours).
int pixelsOutside(NodeItem* item) {
  QImage image(1400, 400, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::transparent);
  const QPointF origin(600, 150);
  {
    QPainter painter(&image);
    painter.translate(origin);
    QStyleOptionGraphicsItem option;
    item->paint(&painter, &option, nullptr);
  }
  const QRect inside = item->boundingRect().translated(origin).toAlignedRect();
  int outside = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x)
      if (qAlpha(image.pixel(x, y)) > 0 && !inside.contains(x, y)) ++outside;
  return outside;
}

// The part of `item`'s title line where its type is drawn (bold, from the left).
QImage paintedTitle(NodeItem* item, const QString& type) {
  QImage image(QSize(NodeItem::kWidth, NodeItem::kHeight), QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    QStyleOptionGraphicsItem option;
    item->paint(&painter, &option, nullptr);
  }
  QFont bold = QApplication::font();
  bold.setBold(true);
  const int width = static_cast<int>(std::ceil(QFontMetricsF(bold).horizontalAdvance(type)));
  return image.copy(QRect(14, 3, std::min(width + 2, static_cast<int>(NodeItem::kWidth) - 20), 18));
}
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
  void initTestCase() {
    // As the program does at start (runApplication): "%n layer(s)" reads "1 layer", "2 layers".
    QCoreApplication::installTranslator(new EnglishPlurals(this));
  }

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
    QVERIFY2(panel->errorText().contains("Kernel"), qPrintable(panel->errorText()));
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
      // Each of the op's examples (Note [Op examples]), as a project holds them, is what the
      // editors show.
      for (const OpExample& example : schema->examples) {
        doc.graph()->setNodeParams(id.toStdString(), example.params);
        for (const auto& [key, value] : example.params.items()) {
          const std::string what = schema->name + " example '" + example.name + "': " + key;
          QWidget* e = panel->editorFor(qs(key));
          QVERIFY2(e, what.c_str());
          if (auto* box = qobject_cast<QSpinBox*>(e)) QVERIFY2(box->value() == value.get<int>(), what.c_str());
          else if (auto* check = qobject_cast<QCheckBox*>(e)) QVERIFY2(check->isChecked() == value.get<bool>(), what.c_str());
          else if (auto* combo = qobject_cast<QComboBox*>(e)) QCOMPARE(combo->currentText(), paramText(value));
          else if (auto* line = qobject_cast<QLineEdit*>(e)) QCOMPARE(line->text(), paramText(value));
          else QFAIL(what.c_str());
        }
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

  // The ResNet sample: its skip links are drawn beside the column of blocks, not across them, and
  // Add2 shows both of its input ports, one per link; the same after auto-arrange.
  void skipLinksAreVisible() {
    ProjectDocument doc;
    doc.load(resnetPath());
    EditPage page(&doc);
    QCOMPARE(page.scene()->linkItems().size(), 26);
    QString problem = linkVisibilityProblem(page.scene());
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    page.autoArrange();
    problem = linkVisibilityProblem(page.scene());
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    // Moving the blocks (the links follow) keeps them visible too.
    emit page.scene()->nodesMoved({{"res1_conv1", {page.scene()->nodeItem("res1_conv1")->pos(), QPointF(40, 500)}}});
    problem = linkVisibilityProblem(page.scene());
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
  }

  // A long name is cut short (with an ellipsis) beside the block's type, never drawn over it nor
  // outside the block; the tooltip keeps it whole.
  void longTitlesDoNotOverlap() {
    ProjectDocument doc;
    doc.load(lenetPath());
    EditPage page(&doc);
    const auto rename = [&](const QString& from, const QString& to) {
      page.scene()->selectNodes({from});
      page.properties()->idEditor()->setText(to);
      emit page.properties()->idEditor()->editingFinished();
      QVERIFY(page.scene()->nodeItem(to));
    };
    for (const QString& type : {QString("Convolution"), QString("GlobalAveragePooling")}) {
      const QString id = page.addLayer(type, QPointF(600, 0));
      rename(id, "a");
      const QImage shortName = paintedTitle(page.scene()->nodeItem("a"), type);
      const QString longName = "first_" + type.toLower() + "_of_the_feature_extractor_block";
      rename("a", longName);
      NodeItem* item = page.scene()->nodeItem(longName);
      QCOMPARE(pixelsOutside(item), 0);
      QVERIFY(item->toolTip().contains(longName));
      // Type and name are laid side by side, apart, inside the block.
      const NodeItem::Title title = item->title(QApplication::font());
      QVERIFY2(title.typeRect.right() < title.idRect.left(), qPrintable(type));
      QVERIFY(title.typeRect.left() >= 0 && title.idRect.right() <= NodeItem::kWidth);
      QVERIFY2(title.id.contains(QChar(0x2026)), qPrintable(title.id));  // cut short: "first_…_block"
      if (type == "Convolution") {
        // A short type is shown whole: its part of the line is the same whatever the name beside it.
        QCOMPARE(title.type, type);
        QVERIFY2(paintedTitle(item, type) == shortName, qPrintable(type + ": the name is drawn over the type"));
      } else {
        // A long type and a long name share the line, the name keeping about two fifths of it.
        QVERIFY(title.idRect.width() >= 0.35 * (NodeItem::kWidth - 20));
      }
    }
  }

  // Ctrl+Z in a parameter field undoes the field's own typing first, then the document's last edit.
  void undoKeyInAFieldUndoesTheDocument() {
    ProjectDocument doc;
    doc.load(lenetPath());
    EditPage page(&doc);
    page.scene()->selectNodes({"conv1"});
    PropertyPanel* panel = page.properties();
    qobject_cast<QSpinBox*>(panel->editorFor("outmaps"))->setValue(24);
    QCOMPARE(doc.graph()->node("conv1")->params["outmaps"].get<int>(), 24);
    auto* kernel = qobject_cast<QLineEdit*>(panel->editorFor("kernel"));
    QVERIFY(kernel);
    kernel->setFocus();
    QTest::keyClick(kernel, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(doc.graph()->node("conv1")->params["outmaps"].get<int>(), 16);
    QTest::keyClick(kernel, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);  // redo
    QCOMPARE(doc.graph()->node("conv1")->params["outmaps"].get<int>(), 24);
    // Typing not yet committed is the field's own: the first Ctrl+Z takes it back, the document
    // keeps its value; the next one undoes the document.
    QTest::keyClicks(kernel, "9");
    QCOMPARE(kernel->text(), QString("5,59"));
    QTest::keyClick(kernel, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(kernel->text(), QString("5,5"));
    QCOMPARE(doc.graph()->node("conv1")->params["outmaps"].get<int>(), 24);
    QTest::keyClick(kernel, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(doc.graph()->node("conv1")->params["outmaps"].get<int>(), 16);
    // In a spin box too.
    auto* outmaps = qobject_cast<QSpinBox*>(panel->editorFor("outmaps"));
    QCOMPARE(outmaps->value(), 16);
    QTest::keyClick(outmaps, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(doc.graph()->node("conv1")->params["outmaps"].get<int>(), 24);
    QCOMPARE(outmaps->value(), 24);
  }

  // Two refused fields: each shows its own error at its field, in words a person uses.
  void everyFieldErrorIsShownInWords() {
    ProjectDocument doc;
    doc.load(lenetPath());
    EditPage page(&doc);
    page.scene()->selectNodes({"conv1"});
    PropertyPanel* panel = page.properties();
    setLine(panel->editorFor("kernel"), "3");
    setLine(panel->editorFor("pad"), "a,b");
    const QString errors = panel->errorText();
    QVERIFY2(errors.contains("Block 'conv1', field 'Kernel': "), qPrintable(errors));
    QVERIFY2(errors.contains("Block 'conv1', field 'Pad': "), qPrintable(errors));
    QVERIFY2(!errors.contains("params") && !errors.contains("network"), qPrintable(errors));
    // Fixing one field clears its error only.
    setLine(panel->editorFor("kernel"), "3,3");
    QVERIFY2(!panel->errorText().contains("Kernel"), qPrintable(panel->errorText()));
    QVERIFY2(panel->errorText().contains("Pad"), qPrintable(panel->errorText()));
    QCOMPARE(qobject_cast<QLineEdit*>(panel->editorFor("pad"))->text(), QString("a,b"));
  }

  // A paste never covers the blocks copied (nor any other block).
  void pasteLandsBesideTheOriginal() {
    ProjectDocument doc;
    doc.load(lenetPath());
    EditPage page(&doc);
    for (int round = 0; round < 3; ++round) {
      page.scene()->selectNodes({"conv1", "relu1"});
      page.copySelection();
      page.paste();
      const QStringList pasted = page.scene()->selectedNodeIds();
      QCOMPARE(pasted.size(), 2);
      for (const QString& id : pasted)
        for (const NodeSpec& other : doc.graph()->spec().nodes) {
          if (pasted.contains(qs(other.id))) continue;
          const QRectF a = bodyOf(page.scene()->nodeItem(id)), b = bodyOf(page.scene()->nodeItem(qs(other.id)));
          QVERIFY2(!a.intersects(b), qPrintable(QString("pasted %1 covers %2").arg(id, qs(other.id))));
        }
    }
  }

  // Counts read as English: "1 layer", "2 layers" (a one-block network included).
  void statusCountsReadAsEnglish() {
    ProjectDocument doc;
    NetworkSpec spec;
    spec.nodes = {NodeSpec{"x", "Input", Json{{"shape", {1, 28, 28}}}, {0, 0}}};
    doc.graph()->reset(spec);
    EditPage page(&doc);
    QVERIFY2(page.statusText().startsWith("1 layer ·"), qPrintable(page.statusText()));
    page.addLayer("ReLU", QPointF(0, 90));
    QVERIFY2(page.statusText().startsWith("2 layers ·"), qPrintable(page.statusText()));
    QVERIFY2(page.statusText().contains(" · 2 problems: "), qPrintable(page.statusText()));
    // Every "%n ...(s)" text of the program, the device table's cores included.
    QCOMPARE(QCoreApplication::translate("DeviceTable", "%n core(s)", nullptr, 2), QString("2 cores"));
    QCOMPARE(QCoreApplication::translate("DeviceTable", "%n core(s)", nullptr, 1), QString("1 core"));
    QCOMPARE(QCoreApplication::translate("TrainingPage", "%n process(es)", nullptr, 3), QString("3 processes"));
    QCOMPARE(QCoreApplication::translate("X", "a (s) without a count"), QString("a (s) without a count"));
  }

  // The main window fits a 1366×768 screen with a taskbar: its minimum height leaves room.
  void mainWindowFitsASmallScreen() {
    QStandardPaths::setTestModeEnabled(true);
    MainWindow window;
    window.openProject(resnetPath());
    window.show();
    QVERIFY2(window.minimumSizeHint().height() <= 700, qPrintable(QString::number(window.minimumSizeHint().height())));
    QVERIFY2(window.minimumSize().height() <= 700, qPrintable(QString::number(window.minimumSize().height())));
    QVERIFY2(window.minimumSizeHint().width() <= 1300, qPrintable(QString::number(window.minimumSizeHint().width())));
    window.resize(1366, 700);
    QCoreApplication::processEvents();
    QVERIFY2(window.height() <= 700, qPrintable(QString::number(window.height())));
    for (const char* page : {"edit", "dataset", "config", "training", "evaluation"}) {
      window.showPage(page);
      QCoreApplication::processEvents();
      QVERIFY2(window.height() <= 700, page);
    }
  }

  // A sample opens with its blocks' smallest text (name, summary) at a size one reads, about
  // 9.5 px on screen (it was ~6 px: the readable zoom was 0.6 of a 12 px font's 85%).
  void samplesOpenWithReadableBlockText() {
    QStandardPaths::setTestModeEnabled(true);
    MainWindow window;
    QVERIFY(window.openProject(resnetPath()));
    window.resize(1366, 700);
    window.show();
    window.editPage()->view()->showReadable();
    QCoreApplication::processEvents();
    GraphView* view = window.editPage()->view();
    const qreal smallPx = 0.85 * QFontInfo(view->scene()->font()).pixelSize() * view->zoom();
    QVERIFY2(smallPx >= 9.0, qPrintable(QString("%1 px at zoom %2").arg(smallPx).arg(view->zoom())));
  }

  // Issue 17: the Edit page checks the Input shape against the dataset's samples (read off the GUI
  // thread from the IDX header), so a mismatch shows on the block before a run is refused.
  void inputShapeIsCheckedAgainstTheDataset() {
    ProjectDocument doc;
    doc.load(lenetPath());
    EditPage page(&doc);
    page.datasetShapeProbe()->waitForIdle();
    QVERIFY(doc.graph()->datasetSamples().has_value());
    QCOMPARE(doc.graph()->datasetSamples()->shape, (Shape{1, 28, 28}));
    QVERIFY2(page.statusText().contains("network valid"), qPrintable(page.statusText()));

    doc.undoStack()->push(new SetParamsCommand(doc.graph(), "x", doc.graph()->node("x")->params, Json{{"shape", {3, 28, 28}}}));
    QVERIFY(page.scene()->nodeItem("x")->hasProblems());
    QVERIFY2(page.statusText().contains("set its shape to 1,28,28"), qPrintable(page.statusText()));
    QVERIFY2(page.scene()->nodeItem("x")->toolTip().contains("2352 values"), qPrintable(page.scene()->nodeItem("x")->toolTip()));
    doc.undoStack()->undo();
    QVERIFY(!page.scene()->nodeItem("x")->hasProblems());
    QVERIFY(page.statusText().contains("network valid"));

    // Same number of values, another shape (the MLP's flat 784): the trainer reshapes, no problem.
    doc.undoStack()->push(new SetParamsCommand(doc.graph(), "x", doc.graph()->node("x")->params, Json{{"shape", {784}}}));
    QVERIFY(!page.scene()->nodeItem("x")->hasProblems());
    doc.undoStack()->undo();

    // A dataset that cannot be read turns the check off (the Dataset page says why).
    Project p = doc.settings();
    p.dataset.training.images = "/nonexistent/images.gz";
    doc.setSettings(p);
    page.datasetShapeProbe()->waitForIdle();
    QVERIFY(!doc.graph()->datasetSamples().has_value());
    doc.undoStack()->push(new SetParamsCommand(doc.graph(), "x", doc.graph()->node("x")->params, Json{{"shape", {3, 28, 28}}}));
    QVERIFY(!page.scene()->nodeItem("x")->hasProblems());
  }
};

QTEST_MAIN(TestEditPage)
#include "tst_edit_page.moc"
