// A refused value's sentence is shown whole under its field (issue 27 item 3: the Properties panel
// showed one line of a three-line error): in a real MainWindow of 1366×740, each error label of
// the Properties panel and of the Config page is as tall as its text needs at the label's width,
// and lies inside the panel.
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QtTest>

#include "gui/config/config_page.h"
#include "gui/edit/edit_page.h"
#include "gui/edit/graph_scene.h"
#include "gui/edit/property_panel.h"
#include "support/laptop_window.h"

using namespace netsmith;
using namespace netsmith::gui;

namespace {

const QString kLenet = QStringLiteral(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj");

// Types `text` into a field as a person does: select what is there, type, press Return.
void typeInto(QWidget* editor, const QString& text) {
  auto* line = qobject_cast<QLineEdit*>(editor);
  QVERIFY(line);
  line->setFocus();
  line->selectAll();
  QTest::keyClicks(line, text);
  QTest::keyClick(line, Qt::Key_Return);
}

// Why `label` does not show all of its text, or "": its height against the height its text needs
// at its width, and whether its parent scroll area's viewport shows it.
QString cutShort(QLabel* label) {
  const int needed = label->heightForWidth(label->width());
  QString why;
  if (!label->isVisible()) why += "hidden; ";
  if (label->height() < needed)
    why += QString("%1 px tall, its text needs %2 at %3 px wide (%4 line(s) of %5); ")
               .arg(label->height())
               .arg(needed)
               .arg(label->width())
               .arg(needed / std::max(1, label->fontMetrics().lineSpacing()))
               .arg(label->height() / std::max(1, label->fontMetrics().lineSpacing()));
  return why + (why.isEmpty() ? "" : label->text());
}

}  // namespace

class TestFieldErrors : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { test::useOwnSettings("tst_field_errors"); }

  // Two refused fields of conv1 in the Properties panel beside the canvas: both sentences whole.
  void propertyErrorsShowEveryLine() {
    auto w = test::laptopWindow("edit", kLenet);
    QVERIFY(w);
    EditPage* page = w->editPage();
    page->scene()->selectNodes({"conv1"});
    QTest::qWait(20);
    PropertyPanel* panel = page->properties();
    typeInto(panel->editorFor("kernel"), "3");
    typeInto(panel->editorFor("pad"), "a,b");
    QTest::qWait(50);
    for (const char* field : {"kernel", "pad"}) {
      auto* error = panel->findChild<QLabel*>(QString("error_") + field);
      QVERIFY(error);
      QVERIFY2(!error->text().isEmpty(), field);
      QVERIFY2(error->heightForWidth(error->width()) > 2 * error->fontMetrics().lineSpacing(),
               qPrintable(QString("%1: a short sentence proves nothing: %2").arg(field, error->text())));
      const QString why = cutShort(error);
      QVERIFY2(why.isEmpty(), qPrintable(QString(field) + ": " + why));
    }
  }

  // A refused batch size on the Config page: the loader's sentence whole under its field.
  void configErrorsShowEveryLine() {
    auto w = test::laptopWindow("config", kLenet);
    QVERIFY(w);
    ConfigPage* page = w->configPage();
    page->enterText("config.batch_size", "0");
    page->enterText("optimizer.lr_multiplier", "-1");
    QTest::qWait(50);
    for (const char* path : {"config.batch_size", "optimizer.lr_multiplier"}) {
      QWidget* editor = page->findChild<QWidget*>(path);
      QVERIFY(editor);
      QLabel* error = nullptr;
      for (QLabel* label : editor->parentWidget()->findChildren<QLabel*>())
        if (label->text() == page->errorFor(path)) error = label;
      QVERIFY2(error, path);
      const QString why = cutShort(error);
      QVERIFY2(why.isEmpty(), qPrintable(QString(path) + ": " + why));
    }
  }
};

QTEST_MAIN(TestFieldErrors)
#include "tst_field_errors.moc"
