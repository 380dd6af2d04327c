// netsmith-cli's commands and flags: --version, --help of every command, ops, devices,
// validate, and clear errors for bad command lines.
#include <QTemporaryDir>
#include <QtTest>
#include <cstdio>
#include <filesystem>
#include <set>

#include "engine/op_interface/op_registry.h"
#include "support/cli_runner.h"

using namespace netsmith::test;

class CliTest : public QObject {
  Q_OBJECT

 private slots:
  void version() {
    const CliRun r = runCli({"--version"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.stdoutText.startsWith("netsmith-cli " NETSMITH_VERSION));
  }

  void helpOfEveryCommand_data() {
    QTest::addColumn<QString>("command");
    for (const char* c : {"train", "validate", "ops", "devices"}) QTest::newRow(c) << c;
  }
  void helpOfEveryCommand() {
    QFETCH(QString, command);
    const CliRun r = runCli({command, "--help"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.stdoutText.contains("Usage: netsmith-cli " + command.toUtf8()), r.stdoutText.constData());
  }

  void mainHelpListsCommands() {
    const CliRun r = runCli({"--help"});
    QCOMPARE(r.exitCode, 0);
    for (const char* c : {"train", "validate", "ops", "devices"}) QVERIFY(r.stdoutText.contains(c));
  }

  void opsJsonListsTheWholeRegistry() {
    const CliRun r = runCli({"ops", "--json"});
    QCOMPARE(r.exitCode, 0);
    const Json j = Json::parse(r.stdoutText.toStdString());
    const auto all = netsmith::OpRegistry::builtin().all();
    QCOMPARE(j.at("ops").size(), all.size());
    std::set<std::string> names;
    for (const auto& op : j["ops"]) names.insert(op.at("name").get<std::string>());
    for (const char* name : {"Input", "Affine", "Convolution", "Deconvolution", "MaxPooling", "AveragePooling",
                             "GlobalAveragePooling", "ReLU", "LeakyReLU", "ELU", "Sigmoid", "Tanh", "Swish", "Softmax",
                             "Dropout", "BatchNormalization", "Flatten", "Reshape", "Add2", "Concatenate",
                             "SoftmaxCrossEntropy", "SigmoidCrossEntropy", "BinaryCrossEntropy", "SquaredError", "HuberLoss"})
      QVERIFY2(names.count(name), name);
    const CliRun text = runCli({"ops"});
    QCOMPARE(text.exitCode, 0);
    QVERIFY(text.stdoutText.contains("Convolution"));
    QVERIFY(text.stdoutText.contains("outmaps"));
  }

  void devicesJson() {
    const CliRun r = runCli({"devices", "--json"});
    QCOMPARE(r.exitCode, 0);
    const Json j = Json::parse(r.stdoutText.toStdString());
    QVERIFY(!j.at("devices").empty());
    QCOMPARE(j["devices"][0].at("id").get<std::string>(), std::string("cpu:0"));
    const CliRun text = runCli({"devices"});
    QCOMPARE(text.exitCode, 0);
    QVERIFY(text.stdoutText.contains("cpu:0"));
  }

  void validateSamples_data() {
    QTest::addColumn<QString>("project");
    QTest::addColumn<int>("parameters");
    QTest::newRow("lenet") << "projects/fashion_mnist_lenet.nsproj" << (16 * 25 + 16) + (32 * 16 * 25 + 32) + (800 * 512 + 512) + (512 * 10 + 10);
    QTest::newRow("mlp") << "projects/fashion_mnist_mlp.nsproj" << (784 * 512 + 512) + (512 * 512 + 512) + (512 * 10 + 10);
  }
  void validateSamples() {
    QFETCH(QString, project);
    QFETCH(int, parameters);
    const CliRun r = runCli({"validate", sourcePath(project), "--json"});
    QCOMPARE(r.exitCode, 0);
    const Json j = Json::parse(r.stdoutText.toStdString());
    QVERIFY(j.at("valid").get<bool>());
    QCOMPARE(j.at("parameters").get<int>(), parameters);
    const CliRun text = runCli({"validate", sourcePath(project)});
    QCOMPARE(text.exitCode, 0);
    QVERIFY(text.stdoutText.contains("valid"));
  }

  void validateReportsProblemWithPath() {
    QTemporaryDir dir;
    const QString path = dir.filePath("bad.nsproj");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QFile sample(sourcePath("projects/fashion_mnist_lenet.nsproj"));
    QVERIFY(sample.open(QIODevice::ReadOnly));
    Json j = Json::parse(sample.readAll().toStdString());
    j["network"]["nodes"][1]["params"]["kernel"] = {5};
    f.write(QByteArray::fromStdString(j.dump()));
    f.close();
    const CliRun r = runCli({"validate", path});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.stderrText.contains("network.nodes[1].params.kernel"), r.stderrText.constData());
    QVERIFY2(r.stderrText.contains("expected 2 positive integers"), r.stderrText.constData());
  }

  void badCommandLines_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown command") << QStringList{"fly"} << "unknown command 'fly'";
    QTest::newRow("unknown option") << QStringList{"train", "p.nsproj", "--epochs", "3"} << "unknown option '--epochs'";
    QTest::newRow("bad number") << QStringList{"train", "p.nsproj", "--max-epoch", "three"} << "--max-epoch: expected a positive integer, got 'three'";
    QTest::newRow("missing value") << QStringList{"train", "p.nsproj", "--max-epoch"} << "--max-epoch needs a value";
    QTest::newRow("no project") << QStringList{"train"} << "needs a PROJECT";
    QTest::newRow("project and resume") << QStringList{"train", "p.nsproj", "--resume", "r"} << "not both";
    QTest::newRow("extra argument") << QStringList{"validate", "a", "b"} << "unexpected argument 'b'";
    QTest::newRow("flag with value") << QStringList{"ops", "--json=yes"} << "--json takes no value";
  }
  void badCommandLines() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const CliRun r = runCli(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.stderrText.contains(message.toUtf8()), r.stderrText.constData());
  }

  void missingProjectIsAnError() {
    const CliRun r = runCli({"train", "/nonexistent/x.nsproj", "--quiet"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.stderrText.contains("/nonexistent/x.nsproj"), r.stderrText.constData());
  }

  // A project in a folder named in Latin-1 ("d\xE9", not UTF-8): validate --json and a training
  // used to end in nlohmann's type_error (an abort, then an "invalid UTF-8" failure); now both
  // work, and the run resumes to the same parameters. QProcess cannot pass such bytes (Qt's
  // strings are Unicode), so the commands run through the shell with the raw path.
  void projectInAFolderNotNamedInUtf8() {
    QTemporaryDir tmp;
    const std::string folder = tmp.path().toStdString() + "/d\xE9";
    std::filesystem::create_directories(folder);
    std::filesystem::copy_file(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_mlp.nsproj", folder + "/p.nsproj");
    auto run = [](const std::string& arguments, int* status) {
      std::string out;
      FILE* pipe = popen(("'" NETSMITH_CLI "' " + arguments + " 2>&1").c_str(), "r");
      char buffer[4096];
      for (size_t n; pipe && (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
      *status = pipe ? pclose(pipe) : -1;
      return out;
    };
    int status = 0;
    const std::string validated = run("validate '" + folder + "/p.nsproj' --json", &status);
    QVERIFY2(status == 0 && Json::parse(validated, nullptr, false).is_object(), validated.c_str());
    const std::string runDir = folder + "/run";
    const std::string trained =
        run("train '" + folder + "/p.nsproj' --run-dir '" + runDir + "' --train-samples 256 --validation-samples 64 "
            "--max-epoch 1 --quiet", &status);
    QVERIFY2(status == 0 && trained.rfind("completed ", 0) == 0, trained.c_str());
    const std::string resumed = run("train --resume '" + runDir + "' --quiet", &status);
    QVERIFY2(status == 0, resumed.c_str());
    QCOMPARE(resumed.substr(0, 75), trained.substr(0, 75));  // "completed " and the parameters' hash
  }
};

QTEST_GUILESS_MAIN(CliTest)
#include "tst_cli.moc"
