// The Config page: values checked as typed by the engine's loader; refused values show the
// loader's sentence and change nothing; accepted ones are one undo step per field.
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QUndoStack>
#include <QtTest>

#include "engine/project/settings_table.h"
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

  // The Optimizer panel shows the chosen solver's own parameters and the chosen schedule's, with
  // the engine's defaults; a new solver drops the old one's values in the same undo step.
  void solverAndScheduleDecideTheFields() {
    ProjectDocument doc;
    doc.load(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj");  // Adam, alpha 0.001
    ConfigPage page(&doc);
    page.show();
    const auto shown = [&](const char* path) { return page.editor(path)->isVisibleTo(&page); };
    QVERIFY(shown("optimizer.alpha"));
    QVERIFY(shown("optimizer.beta2"));
    QVERIFY(!shown("optimizer.lr"));
    QVERIFY(!shown("optimizer.momentum"));
    QVERIFY(!shown("optimizer.gamma"));
    QCOMPARE(qobject_cast<QLineEdit*>(page.editor("optimizer.eps"))->placeholderText(), QString("default 1e-08"));

    auto* solver = qobject_cast<QComboBox*>(page.editor("optimizer.solver"));
    solver->setCurrentText("Momentum");
    emit solver->activated(solver->currentIndex());
    QCOMPARE(doc.settings().optimizer.solver, std::string("Momentum"));
    QVERIFY(!doc.settings().optimizer.hyper.contains("alpha"));
    QVERIFY(!doc.settings().optimizer.hyper.contains("beta1"));
    QVERIFY(shown("optimizer.lr"));
    QVERIFY(shown("optimizer.momentum"));
    QVERIFY(!shown("optimizer.alpha"));
    QCOMPARE(qobject_cast<QLineEdit*>(page.editor("optimizer.momentum"))->placeholderText(), QString("default 0.9"));
    QCOMPARE(doc.undoStack()->count(), 1);
    doc.undoStack()->undo();
    QCOMPARE(doc.settings().optimizer.hyper["alpha"].get<double>(), 0.001);
    QVERIFY(shown("optimizer.alpha"));

    auto* schedule = qobject_cast<QComboBox*>(page.editor("optimizer.lr_schedule"));
    schedule->setCurrentText("step");
    emit schedule->activated(schedule->currentIndex());
    QVERIFY(shown("optimizer.gamma"));
    QVERIFY(shown("optimizer.step_epochs"));
    QCOMPARE(qobject_cast<QLineEdit*>(page.editor("optimizer.step_epochs"))->placeholderText(), QString("default 2"));
    schedule->setCurrentText("exponential");
    emit schedule->activated(schedule->currentIndex());
    QVERIFY(shown("optimizer.gamma"));
    QVERIFY(!shown("optimizer.step_epochs"));
  }

  // The Augmentation group edits config.augmentation: absent fields show "off", a typed value is
  // checked by the loader (a refused one names its JSON path), each field is one undo step, and
  // turning everything off again removes the object.
  void augmentationFields() {
    ProjectDocument doc;
    doc.load(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj");
    ConfigPage page(&doc);
    const QString a = QStringLiteral("config.augmentation.");
    for (const char* key : {"flip_horizontal", "flip_vertical", "crop_padding", "rotation_degrees", "scale", "shift",
                            "brightness", "contrast"})
      QVERIFY2(page.editor(a + key), key);
    auto* padding = qobject_cast<QLineEdit*>(page.editor(a + "crop_padding"));
    QCOMPARE(padding->text(), QString());
    QCOMPARE(padding->placeholderText(), QString("off"));
    auto* flip = qobject_cast<QCheckBox*>(page.editor(a + "flip_horizontal"));
    QVERIFY(!flip->isChecked());

    page.enterText(a + "rotation_degrees", "200");
    QVERIFY2(page.errorFor(a + "rotation_degrees").contains("config.augmentation.rotation_degrees: expected a number in [0, 180]"),
             qPrintable(page.errorFor(a + "rotation_degrees")));
    QVERIFY(!doc.isModified());
    page.enterText(a + "rotation_degrees", "15");
    QVERIFY(page.errorFor(a + "rotation_degrees").isEmpty());
    QCOMPARE(doc.settings().config.augmentation.rotationDegrees, 15.0);
    page.enterText(a + "crop_padding", "4");
    flip->setChecked(true);
    QVERIFY(doc.settings().config.augmentation.flipHorizontal);
    QCOMPARE(doc.settings().config.augmentation.cropPadding, int64_t{4});
    QCOMPARE(doc.undoStack()->count(), 3);
    QCOMPARE(padding->text(), QString("4"));

    // A typed 0 turns a field off (the key goes); while it is being typed in, its text stays "0" ...
    page.show();
    page.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&page));
    padding->setFocus();
    QVERIFY(padding->hasFocus());
    page.enterText(a + "crop_padding", "0");
    QCOMPARE(doc.settings().config.augmentation.cropPadding, int64_t{0});
    QCOMPARE(padding->text(), QString("0"));
    // ... and afterwards it shows "off".
    padding->clearFocus();
    doc.undoStack()->undo();
    doc.undoStack()->redo();
    QCOMPARE(padding->text(), QString());
    doc.undoStack()->undo();
    QCOMPARE(padding->text(), QString("4"));
    doc.undoStack()->undo();
    QVERIFY(!flip->isChecked());
    doc.undoStack()->undo();
    doc.undoStack()->undo();
    QCOMPARE(padding->text(), QString());
    QVERIFY(!doc.settings().config.augmentation.enabled());
    QVERIFY(!doc.isModified());
  }

  // Every row of the engine's settings table is a field (Note [Settings table]): the row's label
  // beside it, its help as the tooltip, the widget of its type, its choices.
  void everySettingIsAField() {
    ProjectDocument doc;
    doc.load(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj");
    ConfigPage page(&doc);
    for (const Setting& row : settingsTable()) {
      const QString path = QString::fromStdString(row.path);
      QWidget* editor = page.editor(path);
      QVERIFY2(editor, qPrintable(path));
      QVERIFY2(editor->toolTip().startsWith(QString::fromStdString(row.help)), qPrintable(path));
      bool labelled = false;
      for (auto* label : page.findChildren<QLabel*>())
        labelled = labelled || (label->text() == QString::fromStdString(row.label) && label->toolTip() == editor->toolTip());
      QVERIFY2(labelled, qPrintable(path));
      switch (row.type) {
        case SettingType::Flag: QVERIFY2(qobject_cast<QCheckBox*>(editor), qPrintable(path)); break;
        case SettingType::Choice: {
          auto* box = qobject_cast<QComboBox*>(editor);
          QVERIFY2(box, qPrintable(path));
          QCOMPARE(box->count(), int(row.choices.size()));
          break;
        }
        default: QVERIFY2(qobject_cast<QLineEdit*>(editor), qPrintable(path));
      }
    }
  }

  // save_best is written only when off: the absent key shows the row's default (checked), and
  // unticking it writes false in one undo step.
  void aSettingWrittenOnlyWhenOffShowsItsDefault() {
    ProjectDocument doc;
    doc.load(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj");
    ConfigPage page(&doc);
    auto* saveBest = qobject_cast<QCheckBox*>(page.editor("config.save_best"));
    QVERIFY(saveBest);
    QVERIFY(saveBest->isChecked());
    saveBest->setChecked(false);
    QVERIFY(!doc.settings().config.saveBest);
    QCOMPARE(settingValue(doc, "config.save_best"), Json(false));
    QCOMPARE(doc.undoStack()->count(), 1);
    doc.undoStack()->undo();
    QVERIFY(doc.settings().config.saveBest);
    QVERIFY(saveBest->isChecked());
    QVERIFY(settingValue(doc, "config.save_best").is_null());
  }

  // config.early_stopping comes from the settings table like every row: an empty field reads
  // "off", a typed patience is written (one undo step), a refused value names the path, and 0
  // turns it off again (the key goes).
  void earlyStoppingField() {
    ProjectDocument doc;
    doc.load(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj");
    ConfigPage page(&doc);
    auto* patience = qobject_cast<QLineEdit*>(page.editor("config.early_stopping"));
    QVERIFY(patience);
    QCOMPARE(patience->text(), QString());
    QCOMPARE(patience->placeholderText(), QString("off"));
    QVERIFY(patience->toolTip().contains("validation error has not improved"));
    QVERIFY(page.editor("config.early_stopping_min_delta"));
    page.enterText("config.early_stopping", "-1");
    QVERIFY2(page.errorFor("config.early_stopping").contains("config.early_stopping: expected an integer >= 0, got -1"),
             qPrintable(page.errorFor("config.early_stopping")));
    QVERIFY(!doc.isModified());
    page.enterText("config.early_stopping", "3");
    QVERIFY(page.errorFor("config.early_stopping").isEmpty());
    QCOMPARE(doc.settings().config.earlyStopping, int64_t{3});
    QCOMPARE(settingValue(doc, "config.early_stopping"), Json(3));
    QCOMPARE(doc.undoStack()->count(), 1);
    QVERIFY(QString::fromStdString(doc.toText(QString())).contains("\"early_stopping\": 3"));
    doc.undoStack()->undo();
    QCOMPARE(doc.settings().config.earlyStopping, int64_t{0});
    QCOMPARE(patience->text(), QString());
    doc.undoStack()->redo();
    QCOMPARE(patience->text(), QString("3"));
    page.enterText("config.early_stopping", "0");
    QCOMPARE(doc.settings().config.earlyStopping, int64_t{0});
    QVERIFY(settingValue(doc, "config.early_stopping").is_null());
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
