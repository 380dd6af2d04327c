// A refused value's sentence is shown whole under its field (issue 27 item 3: the Properties panel
// showed one line of a three-line error): in a real MainWindow of 1366×740, each error label of
// the Properties panel and of the Config page is as tall as its text needs at the label's width,
// and lies inside the panel.
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QtTest>

#include "gui/app/main_window.h"
#include "gui/config/config_page.h"
#include "gui/edit/edit_page.h"
#include "gui/edit/graph_scene.h"
#include "gui/edit/property_panel.h"

using namespace netsmith;
using namespace netsmith::gui;

namespace {

void setLine(QWidget* editor, const QString& text) {
  auto* line = qobject_cast<QLineEdit*>(editor);
  QVERIFY(line);
  line->setText(text);
  line->setModified(true);
  emit line->editingFinished();
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

  static std::unique_ptr<MainWindow> window(const QString& page) {
    auto w = std::make_unique<MainWindow>();
    w->resize(1366, 740);
    w->show();
    w->showPage(page);
    if (!QTest::qWaitForWindowExposed(w.get())) return nullptr;
    if (!w->openProject(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj")) return nullptr;
    QTest::qWait(50);
    return w;
  }

 private slots:
  void initTestCase() {
    qputenv("NETSMITH_CLI", NETSMITH_CLI);
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("NetsmithTest");
    QCoreApplication::setApplicationName("tst_field_errors");
    QSettings().clear();
  }

  // Two refused fields of conv1 in the Properties panel beside the canvas: both sentences whole.
  void propertyErrorsShowEveryLine() {
    auto w = window("edit");
    QVERIFY(w);
    EditPage* page = w->editPage();
    page->scene()->selectNodes({"conv1"});
    QTest::qWait(20);
    PropertyPanel* panel = page->properties();
    setLine(panel->editorFor("kernel"), "3");
    setLine(panel->editorFor("pad"), "a,b");
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
    auto w = window("config");
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
