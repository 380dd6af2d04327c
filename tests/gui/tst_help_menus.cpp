// The Help menu and File > New from sample (Note [Help locations]): the samples menu lists the
// source tree's sample projects by name and makes an unsaved project with the sample's network
// while the sample file stays as it was; F1 (Help on this page) opens the help window at the
// page's section of gui.md; Help > Documentation hands the desktop docs/gui.md, which exists.
#include <QAction>
#include <QCryptographicHash>
#include <QDesktopServices>
#include <QMenu>
#include <QTextBrowser>
#include <QtTest>
#include <nlohmann/json.hpp>

#include "gui/app/help_locations.h"
#include "gui/app/help_viewer.h"
#include "gui/app/main_window.h"

using namespace netsmith::gui;

class TestHelpMenus : public QObject {
  Q_OBJECT
  QList<QUrl> m_opened;

  static QByteArray digest(const QString& file) {
    QFile f(file);
    return f.open(QIODevice::ReadOnly) ? QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256) : QByteArray();
  }

 public slots:
  void openUrl(const QUrl& url) { m_opened << url; }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    qputenv("NETSMITH_CLI", NETSMITH_CLI);
  }

  void locationsOfTheSourceTree() {
    const QString source = QDir(NETSMITH_SOURCE_DIR).canonicalPath();
    QCOMPARE(QDir(documentationFolder()).canonicalPath(), source + "/docs");
    QCOMPARE(QDir(samplesFolder()).canonicalPath(), source + "/projects");
    // Installed layouts are looked at before the source tree, the environment before both.
    QVERIFY(documentationCandidates().contains(QDir::cleanPath(QCoreApplication::applicationDirPath() + "/../share/doc/netsmith")));
    QVERIFY(samplesCandidates().contains("/usr/share/netsmith/projects"));
    qputenv("NETSMITH_SAMPLES", "/nowhere");
    QCOMPARE(samplesCandidates().first(), QString("/nowhere"));
    qunsetenv("NETSMITH_SAMPLES");
    for (const QString page : {"edit", "dataset", "config", "training", "evaluation"}) QVERIFY(!pageHelpHeading(page).isEmpty());
  }

  void newFromSampleLeavesTheSampleAlone() {
    MainWindow window;
    QMenu* samples = window.samplesMenu();
    QVERIFY(samples->isEnabled());
    QAction* lenet = nullptr;
    QStringList names;
    for (QAction* a : samples->actions()) {
      names << a->text();
      if (a->data().toString().endsWith("/fashion_mnist_lenet.nsproj")) lenet = a;
    }
    QCOMPARE(names.size(), QDir(samplesFolder()).entryList({"*.nsproj"}).size());
    QVERIFY2(lenet, qPrintable(names.join(", ")));
    QCOMPARE(lenet->text(), QString("LeNet on Fashion-MNIST"));  // the project's name, not its file

    const QString file = lenet->data().toString();
    const QByteArray before = digest(file);
    const QDateTime modified = QFileInfo(file).lastModified();
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const auto json = nlohmann::json::parse(f.readAll().toStdString());
    std::vector<std::string> sampleIds;
    for (const auto& n : json["network"]["nodes"]) sampleIds.push_back(n["id"].get<std::string>());

    lenet->trigger();
    ProjectDocument* doc = window.document();
    QVERIFY(doc->path().isEmpty());  // unsaved: Save asks where
    QVERIFY(doc->isModified());
    QCOMPARE(doc->settings().name, json["name"].get<std::string>());
    std::vector<std::string> ids;
    for (const auto& n : doc->graph()->spec().nodes) ids.push_back(n.id);
    QCOMPARE(ids, sampleIds);
    QCOMPARE(window.currentPage(), QString("edit"));
    // An edit of the copy, and an autosave, leave the sample's bytes as they were.
    doc->graph()->renameNode(sampleIds.back(), "renamed_loss");
    window.autosave();
    QCOMPARE(digest(file), before);
    QCOMPARE(QFileInfo(file).lastModified(), modified);
    window.document()->undoStack()->setClean();  // no save prompt when the window goes
  }

  void helpActions() {
    // Without the documentation, F1 opens a modal message box that would wait here forever.
    QVERIFY2(!documentationFolder().isEmpty(),
             qPrintable("docs/gui.md not found from the test's folder; looked in " + documentationCandidates().join(", ")));
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* page = window.findChild<QAction*>("helpPage");
    QVERIFY(page);
    QCOMPARE(page->shortcut(), QKeySequence(Qt::Key_F1));
    QVERIFY(window.findChild<QAction*>("helpAbout"));

    window.showPage("evaluation");
    page->trigger();
    HelpViewer* viewer = window.helpViewer();
    QVERIFY(viewer && viewer->isVisible());
    QVERIFY(QFileInfo::exists(viewer->file()));
    QCOMPARE(QFileInfo(viewer->file()).fileName(), QString("gui.md"));
    QCOMPARE(viewer->shownHeading(), QString("Evaluation"));
    // Written for the person pressing F1: no pointers into the code (Note names, source files).
    const QString shown = viewer->browser()->toPlainText();
    QVERIFY2(!shown.contains("Note [") && !shown.contains("gui/training/") && !shown.contains("engine/project/"),
             qPrintable(shown.mid(shown.indexOf("Note ["), 200)));
    QVERIFY(shown.contains("Run history"));  // the text itself is there
    window.showPage("edit");
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QTest::keyClick(&window, Qt::Key_F1);  // the shortcut itself
    QCOMPARE(viewer->shownHeading(), QString("Edit — the network"));

    QDesktopServices::setUrlHandler("file", this, "openUrl");
    window.findChild<QAction*>("helpDocumentation")->trigger();
    QDesktopServices::unsetUrlHandler("file");
    QCOMPARE(m_opened.size(), 1);
    QVERIFY(m_opened[0].isLocalFile());
    QCOMPARE(QFileInfo(m_opened[0].toLocalFile()).canonicalFilePath(),
             QFileInfo(QString(NETSMITH_SOURCE_DIR) + "/docs/gui.md").canonicalFilePath());
  }
};

QTEST_MAIN(TestHelpMenus)
#include "tst_help_menus.moc"
