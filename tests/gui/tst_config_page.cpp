// The Config page: values checked as typed by the engine's loader; refused values show the
// loader's sentence and change nothing; accepted ones are one undo step per field.
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QUndoStack>
#include <QtTest>

#include "gui/config/config_page.h"
#include "gui/document/settings_edit.h"

using namespace netsmith;
using namespace netsmith::gui;

class TestConfigPage : public QObject {
  Q_OBJECT
 private slots:
  void showsTheProject() {
    ProjectDocument doc;
    doc.load(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj");
    ConfigPage page(&doc);
    QCOMPARE(qobject_cast<QLineEdit*>(page.editor("config.batch_size"))->text(), QString("64"));
    QCOMPARE(qobject_cast<QLineEdit*>(page.editor("optimizer.alpha"))->text(), QString("0.001"));
    QCOMPARE(qobject_cast<QComboBox*>(page.editor("optimizer.solver"))->currentText(), QString("Adam"));
    QCOMPARE(qobject_cast<QLineEdit*>(page.editor("name"))->text(), QString("LeNet on Fashion-MNIST"));
  }

  void refusedValuesShowTheLoadersSentence() {
    ProjectDocument doc;
    doc.load(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj");
    ConfigPage page(&doc);
    page.enterText("config.batch_size", "0");
    QVERIFY2(page.errorFor("config.batch_size").contains("config.batch_size"), qPrintable(page.errorFor("config.batch_size")));
    QCOMPARE(doc.settings().config.batchSize, 64);
    QVERIFY(!doc.isModified());
    page.enterText("config.max_epoch", "two");
    QVERIFY(!page.errorFor("config.max_epoch").isEmpty());
    page.enterText("optimizer.lr_multiplier", "-1");
    QVERIFY(!page.errorFor("optimizer.lr_multiplier").isEmpty());
    QVERIFY(!doc.isModified());
  }

  void acceptedValuesAreOneUndoStepPerField() {
    ProjectDocument doc;
    doc.load(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj");
    ConfigPage page(&doc);
    page.enterText("config.batch_size", "1");
    page.enterText("config.batch_size", "12");
    page.enterText("config.batch_size", "128");
    QVERIFY(page.errorFor("config.batch_size").isEmpty());
    QCOMPARE(doc.settings().config.batchSize, 128);
    QCOMPARE(doc.undoStack()->count(), 1);
    page.enterText("optimizer.alpha", "0.002");
    QCOMPARE(doc.settings().optimizer.hyper["alpha"].get<double>(), 0.002);
    QCOMPARE(doc.undoStack()->count(), 2);
    auto* deterministic = qobject_cast<QCheckBox*>(page.editor("config.deterministic"));
    deterministic->setChecked(true);
    QVERIFY(doc.settings().config.deterministic);
    doc.undoStack()->undo();
    QVERIFY(!deterministic->isChecked());
    doc.undoStack()->undo();
    doc.undoStack()->undo();
    QCOMPARE(qobject_cast<QLineEdit*>(page.editor("config.batch_size"))->text(), QString("64"));
    QVERIFY(!doc.isModified());
  }

  void valueFromTextTypes() {
    QVERIFY(valueFromText("12").is_number_integer());
    QVERIFY(valueFromText("1e-3").is_number_float());
    QVERIFY(valueFromText("true").is_boolean());
    QVERIFY(valueFromText("abc").is_string());
  }
};

QTEST_MAIN(TestConfigPage)
#include "tst_config_page.moc"
