// The project document: load → save round trip without loss (atomic save through the engine's
// saveProject), the modified state following the undo stack, settings edits merging, and the
// autosave recovery copy.
#include <QTemporaryDir>
#include <QtTest>

#include "engine/core/error.h"
#include "engine/project/project_io.h"
#include "gui/document/graph_commands.h"
#include "gui/document/project_document.h"
#include "gui/document/recovery_store.h"

using namespace netsmith;
using namespace netsmith::gui;

namespace {
QString sample(const char* name) { return QStringLiteral(NETSMITH_SOURCE_DIR "/projects/") + name; }
QByteArray readAll(const QString& path) {
  QFile f(path);
  f.open(QIODevice::ReadOnly);
  return f.readAll();
}
}  // namespace

class TestProjectDocument : public QObject {
  Q_OBJECT
 private slots:
  void roundTripKeepsEveryByte_data() {
    QTest::addColumn<QString>("project");
    QTest::newRow("lenet") << sample("fashion_mnist_lenet.nsproj");
    QTest::newRow("mlp") << sample("fashion_mnist_mlp.nsproj");
    QTest::newRow("resnet") << sample("fashion_mnist_resnet.nsproj");
  }
  void roundTripKeepsEveryByte() {
    QFETCH(QString, project);
    QTemporaryDir dir;
    // A copy next to which the relative spellings still resolve the same way.
    const QString copy = dir.filePath("p.nsproj");
    QVERIFY(QFile::copy(project, copy));
    ProjectDocument doc;
    doc.load(copy);
    const std::string canonical = projectToText(loadProject(ss(copy)), ss(copy));
    doc.save(copy);
    QCOMPARE(readAll(copy).toStdString(), canonical);
    // And the engine reads back what the GUI wrote, equal in every field.
    ProjectDocument again;
    again.load(copy);
    QCOMPARE(again.toText(copy), doc.toText(copy));
    QCOMPARE(projectToJson(again.toProject()), projectToJson(doc.toProject()));
    // No temporary file left behind by the atomic save.
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);
  }

  void modifiedFollowsUndoStack() {
    QTemporaryDir dir;
    const QString copy = dir.filePath("lenet.nsproj");
    QVERIFY(QFile::copy(sample("fashion_mnist_lenet.nsproj"), copy));
    ProjectDocument doc;
    doc.load(copy);
    QSignalSpy modified(&doc, &ProjectDocument::modifiedChanged);
    QVERIFY(!doc.isModified());
    doc.undoStack()->push(new MoveNodesCommand(doc.graph(), {{"x", {QPointF(0, 0), QPointF(5, 5)}}}));
    QVERIFY(doc.isModified());
    doc.undoStack()->undo();
    QVERIFY(!doc.isModified());
    doc.undoStack()->redo();
    doc.save(copy);
    QVERIFY(!doc.isModified());
    QVERIFY(modified.size() >= 3);
    ProjectDocument reread;
    reread.load(copy);
    QCOMPARE(reread.graph()->node("x")->pos[0], 5.0);
  }

  void settingsEditsOfOneFieldMerge() {
    ProjectDocument doc;
    doc.load(sample("fashion_mnist_lenet.nsproj"));
    Project a = doc.settings(), b = a, c = a;
    b.config.batchSize = 1;
    c.config.batchSize = 12;
    doc.undoStack()->push(new SettingsCommand(&doc, a, b, "config.batch_size"));
    doc.undoStack()->push(new SettingsCommand(&doc, b, c, "config.batch_size"));
    QCOMPARE(doc.undoStack()->count(), 1);
    QCOMPARE(doc.toProject().config.batchSize, 12);
    doc.undoStack()->undo();
    QCOMPARE(doc.toProject().config.batchSize, 64);
    QVERIFY(!doc.isModified());
  }

  void loadFailureNamesTheProblemAndKeepsTheDocument() {
    QTemporaryDir dir;
    const QString bad = dir.filePath("bad.nsproj");
    QFile f(bad);
    f.open(QIODevice::WriteOnly);
    f.write(readAll(sample("fashion_mnist_lenet.nsproj")).replace("\"batch_size\": 64", "\"batch_size\": 0"));
    f.close();
    ProjectDocument doc;
    doc.load(sample("fashion_mnist_lenet.nsproj"));
    try {
      doc.load(bad);
      QFAIL("loading a bad project must fail");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains("config.batch_size"), e.what());
    }
    QCOMPARE(doc.graph()->spec().nodes.size(), size_t{11});
    QVERIFY(doc.path().endsWith("fashion_mnist_lenet.nsproj"));
  }

  void saveFailureLeavesOldFile() {
    ProjectDocument doc;
    doc.load(sample("fashion_mnist_lenet.nsproj"));
    doc.undoStack()->push(new MoveNodesCommand(doc.graph(), {{"x", {QPointF(0, 0), QPointF(5, 5)}}}));
    QVERIFY_THROWS_EXCEPTION(Error, doc.save("/nonexistent-folder/p.nsproj"));
    QVERIFY(doc.isModified());
    QVERIFY(doc.path().endsWith("fashion_mnist_lenet.nsproj"));
  }

  void newProjectHasDefaults() {
    ProjectDocument doc;
    doc.newProject();
    QVERIFY(doc.graph()->spec().nodes.empty());
    QCOMPARE(doc.settings().dataset.training.format, std::string("idx"));
    QVERIFY(!doc.isModified());
    QVERIFY(doc.path().isEmpty());
  }

  void recoveryCopyIsOfferedAndRestored() {
    QTemporaryDir dir;
    const QString copy = dir.filePath("lenet.nsproj");
    QVERIFY(QFile::copy(sample("fashion_mnist_lenet.nsproj"), copy));
    RecoveryStore store(dir.filePath("recovery"));
    QVERIFY(store.pending().isEmpty());
    {
      ProjectDocument doc;
      doc.load(copy);
      doc.undoStack()->push(new DeleteCommand(doc.graph(), {"relu3"}, {}));
      store.write(doc);
      // ... and the GUI crashes here.
    }
    const auto pending = store.pending();
    QCOMPARE(pending.size(), 1);
    QCOMPARE(pending[0].originalPath, copy);
    QCOMPARE(pending[0].name, QString("LeNet on Fashion-MNIST"));
    ProjectDocument restored;
    restored.loadRecovered(pending[0].recoveryFile, pending[0].originalPath);
    QVERIFY(restored.isModified());
    QCOMPARE(restored.path(), copy);
    QVERIFY(!restored.graph()->node("relu3"));
    QCOMPARE(restored.toProject().dataset.training.images, loadProject(ss(copy)).dataset.training.images);
    // The user's file itself was never touched.
    ProjectDocument original;
    original.load(copy);
    QVERIFY(original.graph()->node("relu3"));
    restored.save(copy);
    store.discard(restored.path());
    QVERIFY(store.pending().isEmpty());
  }
};

QTEST_GUILESS_MAIN(TestProjectDocument)
#include "tst_project_document.moc"
