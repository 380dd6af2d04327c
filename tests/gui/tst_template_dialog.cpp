// File ▸ New from template (issue 18 item 6): the dialog offers the engine's templates, starts
// from the dataset's sample shape, shows the parameter count or the reason a size does not fit
// (OK disabled), and the main window makes a new unsaved project with the template's network and
// the current project's dataset and settings; the sample it came from is not written.
#include <QAction>
#include <QComboBox>
#include <QCryptographicHash>
#include <QFile>
#include <QSpinBox>
#include <QStandardPaths>
#include <QtTest>

#include "engine/project/project_io.h"
#include "gui/app/main_window.h"
#include "gui/app/template_dialog.h"

using namespace netsmith;
using namespace netsmith::gui;

namespace {
QByteArray sha(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}
}  // namespace

class TestTemplateDialog : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void dialogShowsWhatTheTemplateGives() {
    TemplateDialog dialog({1, 28, 28}, 10);
    auto* templates = dialog.findChild<QComboBox*>("template");
    QVERIFY(templates && templates->count() >= 3);
    QCOMPARE(dialog.findChild<QSpinBox*>("channels")->value(), 1);
    QCOMPARE(dialog.findChild<QSpinBox*>("height")->value(), 28);
    dialog.setTemplate("resnet18");
    QVERIFY2(dialog.canAccept(), qPrintable(dialog.summary()));
    QVERIFY2(dialog.summary().contains("ResNet-18 for 1x28x28, 10 classes") && dialog.summary().contains("parameters"),
             qPrintable(dialog.summary()));
    // VGG's five 2x2 poolings need 32x32: said in words, OK disabled.
    dialog.setTemplate("vgg11_bn");
    QVERIFY(!dialog.canAccept());
    QVERIFY2(dialog.summary().contains("at least 32x32"), qPrintable(dialog.summary()));
    dialog.setInput({3, 224, 224}, 1000);
    QVERIFY(dialog.canAccept());
    QVERIFY2(dialog.summary().contains("132.87 M parameters"), qPrintable(dialog.summary()));
    dialog.setTemplate("resnet18");
    QVERIFY2(dialog.summary().contains("11.69 M parameters"), qPrintable(dialog.summary()));
  }

  void mainWindowMakesANewUnsavedProject() {
    const QString sample = NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj";
    const QByteArray before = sha(sample);
    MainWindow window;
    QVERIFY(window.openProject(sample));
    QVERIFY(window.findChild<QAction*>("newFromTemplate"));
    const Project old = window.document()->toProject();
    TemplateDialog dialog({1, 28, 28}, 10);
    dialog.setTemplate("small_cnn");
    QVERIFY(window.newProjectWithNetwork(dialog.network(), "Small CNN"));
    const Project now = window.document()->toProject();
    QCOMPARE(window.document()->path(), QString());
    QVERIFY(window.document()->isModified());
    QCOMPARE(now.name, std::string("Small CNN"));
    QCOMPARE(projectToJson(now)["dataset"], projectToJson(old)["dataset"]);
    QCOMPARE(projectToJson(now)["optimizer"], projectToJson(old)["optimizer"]);
    QCOMPARE(now.network.nodes.size(), dialog.network().nodes.size());
    QCOMPARE(sha(sample), before);
  }
};

QTEST_MAIN(TestTemplateDialog)
#include "tst_template_dialog.moc"
