// The network document and its undo commands: every edit kind, undo/redo restoring the document
// exactly, link refusals, copy/paste, shapes and problems from the registry.
#include <QtTest>

#include "engine/project/project_io.h"
#include "gui/document/graph_commands.h"
#include "gui/document/project_document.h"

using namespace netsmith;
using namespace netsmith::gui;

namespace {

QString lenetPath() { return QStringLiteral(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj"); }

// The network as the project file writes it: comparing these strings compares everything saved.
std::string networkText(const GraphDocument& doc) {
  Project p = ProjectDocument::newProjectSettings();
  p.network = doc.spec();
  return projectToText(p, "/tmp/x.nsproj");
}

NodeSpec node(const std::string& id, const std::string& type, double x = 0, double y = 0, Json params = Json::object()) {
  return NodeSpec{id, type, std::move(params), {x, y}};
}

}  // namespace

class TestGraphDocument : public QObject {
  Q_OBJECT
 private slots:
  void lenetShapesAndCounts() {
    ProjectDocument doc;
    doc.load(lenetPath());
    const auto& a = doc.graph()->analysis();
    QVERIFY(a.valid);
    QCOMPARE(a.problemCount(), 0);
    QCOMPARE(shapeToString(*a.nodes.at("conv1").outputShape), std::string("16,28,28"));
    QCOMPARE(a.nodes.at("conv1").parameterCount, 16 * 5 * 5 + 16);
    QCOMPARE(shapeToString(*a.nodes.at("pool2").outputShape), std::string("32,5,5"));
    QVERIFY(a.parameterCount > 400000);
    QVERIFY(a.multiplyAdds > 0);
  }

  void addMoveLinkDeleteUndoRedoRestoreExactly() {
    ProjectDocument project;
    project.load(lenetPath());
    GraphDocument* doc = project.graph();
    QUndoStack* undo = project.undoStack();
    QVERIFY(!project.isModified());
    std::vector<std::string> history{networkText(*doc)};

    undo->push(new AddFragmentCommand(doc, {{node("dropout1", "Dropout", 200, 700)}, {}}, "Add Dropout"));
    QVERIFY(doc->node("dropout1"));
    QVERIFY(project.isModified());
    history.push_back(networkText(*doc));

    undo->push(new MoveNodesCommand(doc, {{"dropout1", {QPointF(200, 700), QPointF(210, 700)}}}));
    undo->push(new MoveNodesCommand(doc, {{"dropout1", {QPointF(210, 700), QPointF(250, 720)}}}));
    QCOMPARE(undo->count(), 2);  // the two moves of the same node merged
    QCOMPARE(doc->node("dropout1")->pos[0], 250.0);
    history.push_back(networkText(*doc));

    undo->push(new AddLinkCommand(doc, {"relu3", "dropout1", std::nullopt}));
    history.push_back(networkText(*doc));

    undo->push(new SetParamsCommand(doc, "conv1", doc->node("conv1")->params,
                                    Json{{"kernel", {3, 3}}, {"outmaps", 8}, {"pad", {1, 1}}}));
    QCOMPARE(shapeToString(*doc->analysis().nodes.at("conv1").outputShape), std::string("8,28,28"));
    history.push_back(networkText(*doc));

    undo->push(new DeleteCommand(doc, {"relu2", "pool1"}, {0}));  // two nodes and the first link
    QVERIFY(!doc->node("relu2") && !doc->node("pool1"));
    for (const auto& l : doc->spec().links) QVERIFY(l.from != "relu2" && l.to != "relu2");
    QVERIFY(!doc->analysis().valid);
    history.push_back(networkText(*doc));

    undo->push(new RenameNodeCommand(doc, "fc1", "hidden"));
    QVERIFY(doc->node("hidden"));
    history.push_back(networkText(*doc));

    for (int i = static_cast<int>(history.size()) - 2; i >= 0; --i) {
      undo->undo();
      QCOMPARE(networkText(*doc), history[i]);
    }
    QVERIFY(!project.isModified());  // back at the saved state
    for (size_t i = 1; i < history.size(); ++i) {
      undo->redo();
      QCOMPARE(networkText(*doc), history[i]);
    }
  }

  void linkRefusals() {
    ProjectDocument project;
    project.load(lenetPath());
    const GraphDocument& doc = *project.graph();
    QVERIFY(doc.linkRefusal("conv1", "conv1").contains("itself"));
    QVERIFY(doc.linkRefusal("x", "conv1").contains("already linked"));
    QVERIFY(doc.linkRefusal("relu2", "x").contains("takes no input"));
    QVERIFY(doc.linkRefusal("loss", "relu1").contains("loss"));
    QVERIFY(doc.linkRefusal("relu1", "conv2").contains("every input port"));
    QVERIFY(doc.linkRefusal("nope", "conv2").contains("no such"));
    project.undoStack()->push(new AddFragmentCommand(project.graph(), {{node("add1", "Add2")}, {}}, "Add"));
    project.undoStack()->push(new AddLinkCommand(project.graph(), {"fc2", "add1", std::nullopt}));
    // add1 -> relu1 would close a loop relu1 -> ... -> fc2 -> add1 -> relu1 (relu1's port is full,
    // so check the cycle on a free port: add1 -> add1's producer chain).
    QVERIFY(doc.linkRefusal("add1", "add1").contains("itself"));
    QVERIFY(doc.linkRefusal("conv1", "add1").isEmpty());
    project.undoStack()->push(new AddFragmentCommand(project.graph(), {{node("cat", "Concatenate")}, {}}, "Add"));
    project.undoStack()->push(new AddLinkCommand(project.graph(), {"cat", "add1", std::nullopt}));
    project.undoStack()->push(new AddLinkCommand(project.graph(), {"fc2", "cat", std::nullopt}));
    QVERIFY(doc.linkRefusal("add1", "cat").contains("cycle"));
  }

  void copyPasteGivesFreshIdsAndKeepsInnerLinks() {
    ProjectDocument project;
    project.load(lenetPath());
    GraphDocument* doc = project.graph();
    const std::string before = networkText(*doc);
    const GraphFragment copied = copyFragment(*doc, {"conv2", "relu2", "pool2"});
    QCOMPARE(copied.nodes.size(), size_t{3});
    QCOMPARE(copied.links.size(), size_t{2});
    // Through the clipboard's JSON form.
    const auto back = GraphFragment::fromJson(Json::parse(copied.toJson().dump()));
    QVERIFY(back);
    const GraphFragment pasted = prepareForPaste(*doc, *back, QPointF(40, 40));
    QCOMPARE(pasted.nodes[0].id, std::string("conv3"));
    QCOMPARE(pasted.nodes[1].id, std::string("relu4"));
    QCOMPARE(pasted.nodes[2].id, std::string("pool3"));
    QCOMPARE(pasted.links[0].from, std::string("conv3"));
    QCOMPARE(pasted.links[0].to, std::string("relu4"));
    QCOMPARE(pasted.nodes[0].pos[0], doc->node("conv2")->pos[0] + 40);
    QCOMPARE(pasted.nodes[0].params, doc->node("conv2")->params);
    project.undoStack()->push(new AddFragmentCommand(doc, pasted, "Paste"));
    QCOMPARE(doc->spec().nodes.size(), size_t{14});
    QCOMPARE(doc->spec().links.size(), size_t{12});
    project.undoStack()->undo();
    QCOMPARE(networkText(*doc), before);
    QVERIFY(!GraphFragment::fromJson(Json::parse("{\"nodes\":[]}")));
  }

  void problemsAreTiedToBlocks() {
    GraphDocument doc;
    NetworkSpec spec;
    spec.nodes = {node("x", "Input"), node("fc", "Affine", 0, 90, {{"n_outmaps", {10}}}), node("dangling", "ReLU")};
    spec.links = {{"x", "fc", std::nullopt}};
    doc.reset(spec);
    const auto& a = doc.analysis();
    QVERIFY(!a.valid);
    QVERIFY(a.nodes.at("x").outputShape);
    QCOMPARE(shapeToString(*a.nodes.at("fc").outputShape), std::string("10"));  // shapes even when invalid
    QCOMPARE(a.nodes.at("fc").parameterCount, 28 * 28 * 10 + 10);
    QVERIFY(!a.nodes.at("dangling").outputShape);
    QVERIFY(!a.nodes.at("dangling").problems.empty());
    QVERIFY(!a.networkProblems.empty());  // no loss
  }

  // Problems name blocks and fields as the Edit page shows them, not JSON paths: a block's problem
  // about a parameter says which field ('Kernel'), a problem about a link names its two ends.
  void problemsSpeakBlocksAndFields() {
    GraphDocument doc;
    NetworkSpec spec;
    spec.nodes = {node("x", "Input", 0, 0, {{"shape", {1, 28, 28}}}), node("conv1", "Convolution", 0, 90, {{"outmaps", 4}, {"kernel", {3}}}),
                  node("loss", "SoftmaxCrossEntropy", 0, 180)};
    spec.links = {{"x", "conv1", std::nullopt}, {"conv1", "loss", std::nullopt}, {"x", "ghost", std::nullopt}};
    doc.reset(spec);
    const auto& a = doc.analysis();
    QVERIFY(!a.nodes.at("conv1").problems.empty());
    const QString convProblem = qs(a.nodes.at("conv1").problems.front());
    QVERIFY2(convProblem.startsWith("field 'Kernel': "), qPrintable(convProblem));
    QVERIFY2(!convProblem.contains("params") && !convProblem.contains("network"), qPrintable(convProblem));
    QVERIFY(!a.networkProblems.empty());
    for (const std::string& p : a.networkProblems) {
      QVERIFY2(!qs(p).contains("network.") && !qs(p).contains("/network") && !qs(p).contains("links["), p.c_str());
    }
    QVERIFY2(qs(a.networkProblems.front()).startsWith("Link x → ghost: "), a.networkProblems.front().c_str());
    // The sentence for the whole page names the block.
    QCOMPARE(qs(problemSentence("conv1", a.nodes.at("conv1").problems.front())).left(31), QString("Block 'conv1', field 'Kernel': "));
    QCOMPARE(qs(fieldLabel("with_bias")), QString("With bias"));
    QCOMPARE(qs(fieldLabel("n_outmaps")), QString("N outmaps"));
  }

  void autoArrangeLaysOutRowsByDepth() {
    ProjectDocument project;
    project.load(lenetPath());
    const auto positions = autoArrangePositions(*project.graph());
    QCOMPARE(positions.size(), 11);
    QVERIFY(positions["x"].y() < positions["conv1"].y());
    QVERIFY(positions["fc2"].y() < positions["loss"].y());
  }

  void ids() {
    GraphDocument doc;
    QCOMPARE(doc.newIdFor("Convolution"), std::string("convolution1"));
    NetworkSpec spec;
    spec.nodes = {node("conv1", "Convolution")};
    doc.reset(spec);
    QCOMPARE(doc.uniqueId("conv1"), std::string("conv2"));
  }
};

QTEST_GUILESS_MAIN(TestGraphDocument)
#include "tst_graph_document.moc"
