// The Debian package: `cpack -G DEB` in this build folder builds netsmith_<version>_amd64.deb
// with the executables, sample projects, icon, desktop file, AppStream metadata and man page;
// the desktop file and metadata pass their validators; the package's dependencies resolve on
// this Debian (apt-get --simulate); and the files unpacked into a throwaway root (dpkg -x, as a
// real install into a chroot needs a bootstrapped Debian this machine cannot download) run:
// --version and a short training of an installed sample project.
#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "support/cli_runner.h"

using namespace netsmith::test;

namespace {

struct Run {
  int exitCode = -1;
  QString output;
};

Run run(const QString& program, const QStringList& args, const QString& workDir = {}, int timeoutMs = 600000) {
  QProcess p;
  p.setProcessChannelMode(QProcess::MergedChannels);
  if (!workDir.isEmpty()) p.setWorkingDirectory(workDir);
  p.start(program, args);
  if (!p.waitForStarted(10000)) return {-2, program + ": cannot start"};
  p.waitForFinished(timeoutMs);
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAll())};
}

}  // namespace

class DebPackageTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_deb;
  QString m_root;

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    // The build folder holds bin/netsmith-cli and CPackConfig.cmake.
    const QString build = QFileInfo(QFileInfo(cliPath()).absolutePath()).absolutePath();
    QVERIFY2(QFileInfo::exists(build + "/CPackConfig.cmake"), qPrintable(build));
    const Run cpack = run("cpack", {"-G", "DEB", "-B", m_dir.filePath("pkg")}, build);
    QVERIFY2(cpack.exitCode == 0, qPrintable(cpack.output));
    const QStringList debs = QDir(m_dir.filePath("pkg")).entryList({"*.deb"}, QDir::Files);
    QCOMPARE(debs.size(), 1);
    QCOMPARE(debs[0], QString("netsmith_%1_amd64.deb").arg(NETSMITH_VERSION));
    m_deb = m_dir.filePath("pkg/" + debs[0]);
    m_root = m_dir.filePath("root");
    const Run unpack = run("dpkg", {"-x", m_deb, m_root});
    QVERIFY2(unpack.exitCode == 0, qPrintable(unpack.output));
  }

  void holdsTheFiles() {
    for (const char* f : {"usr/bin/netsmith-cli", "usr/share/applications/org.netsmith.Netsmith.desktop",
                          "usr/share/metainfo/org.netsmith.Netsmith.metainfo.xml",
                          "usr/share/icons/hicolor/scalable/apps/org.netsmith.Netsmith.svg",
                          "usr/share/mime/packages/netsmith-project.xml", "usr/share/man/man1/netsmith-cli.1.gz",
                          "usr/share/netsmith/projects/fashion_mnist_lenet.nsproj",
                          "usr/share/netsmith/projects/fashion_mnist_mlp.nsproj",
                          "usr/share/netsmith/projects/fashion_mnist_resnet.nsproj", "usr/share/doc/netsmith/copyright"})
      QVERIFY2(QFileInfo::exists(m_root + "/" + f), f);
    if (QFileInfo::exists(QFileInfo(cliPath()).absolutePath() + "/netsmith"))
      QVERIFY2(QFileInfo::exists(m_root + "/usr/bin/netsmith"), "the GUI was built but is not in the package");
    const Run man = run("gzip", {"-t", m_root + "/usr/share/man/man1/netsmith-cli.1.gz"});
    QCOMPARE(man.exitCode, 0);
  }

  void dependsOnTheLibrariesItLinks() {
    const Run depends = run("dpkg-deb", {"-f", m_deb, "Depends"});
    QCOMPARE(depends.exitCode, 0);
    qInfo("Depends: %s", qPrintable(depends.output.trimmed()));
    for (const char* lib : {"libdnnl", "libonnx", "libprotobuf", "libpng16", "libjpeg62-turbo", "libgomp1", "libstdc++6"})
      QVERIFY2(depends.output.contains(lib), lib);
    // Every dependency must resolve on this Debian: a dry run of installing the file.
    const Run simulate = run("apt-get", {"install", "--simulate", "--no-install-recommends", m_deb});
    if (simulate.output.contains("Unable to locate") || simulate.output.contains("are you root")) {
      qWarning("apt-get --simulate could not run here (%s); dependency resolution not checked",
               qPrintable(simulate.output.trimmed().left(200)));
      return;
    }
    QVERIFY2(simulate.exitCode == 0, qPrintable(simulate.output));
  }

  void desktopFileAndMetadataValidate() {
    const Run desktop = run("desktop-file-validate", {m_root + "/usr/share/applications/org.netsmith.Netsmith.desktop"});
    QVERIFY2(desktop.exitCode == 0, qPrintable(desktop.output));
    QVERIFY2(!desktop.output.contains("error"), qPrintable(desktop.output));
    const Run appstream =
        run("appstreamcli", {"validate", "--no-net", m_root + "/usr/share/metainfo/org.netsmith.Netsmith.metainfo.xml"});
    QVERIFY2(appstream.exitCode == 0, qPrintable(appstream.output));
  }

  void installedFilesRun() {
    const QString cli = m_root + "/usr/bin/netsmith-cli";
    const Run version = run(cli, {"--version"});
    QCOMPARE(version.exitCode, 0);
    QVERIFY(version.output.startsWith("netsmith-cli " NETSMITH_VERSION));
    // The run folder goes next to the project, so train a copy of the installed sample.
    const QString project = m_dir.filePath("mlp.nsproj");
    QVERIFY(QFile::copy(m_root + "/usr/share/netsmith/projects/fashion_mnist_mlp.nsproj", project));
    const Run train = run(cli, {"train", project, "--max-epoch", "1", "--train-samples", "512", "--validation-samples",
                                "256", "--quiet"});
    QVERIFY2(train.exitCode == 0, qPrintable(train.output));
    QVERIFY2(train.output.startsWith("completed "), qPrintable(train.output));
    const Run ops = run(cli, {"export", "--help"});
    QCOMPARE(ops.exitCode, 0);
  }
};

QTEST_GUILESS_MAIN(DebPackageTest)
#include "tst_deb_package.moc"
