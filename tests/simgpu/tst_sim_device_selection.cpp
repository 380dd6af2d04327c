// Which GPUs netsmith-cli lists and trains on (Note [GPU numbering]): with CUDA_VISIBLE_DEVICES=2,3
// on four simulated GPUs the list is exactly cuda:0 and cuda:1 — the CUDA runtime's numbers, the
// ones training uses — joined to NVML's GPUs 2 and 3 by PCI bus id, and a run on both trains
// (issue 25: the list showed NVML's cuda:0..cuda:3). A GPU this build has no code for is named
// with its architecture and what to rebuild with (Note [CUDA architectures]).
#include <QTemporaryDir>
#include <QtTest>

#include "support/cli_runner.h"

using namespace netsmith::test;

namespace {

CliRun runWithEnvironment(const QStringList& args, const QStringList& variables) {
  return runCli(args, 600000, {}, variables);
}

std::vector<Json> gpusOf(const CliRun& run) {
  std::vector<Json> out;
  const Json list = Json::parse(run.stdoutText.toStdString(), nullptr, false);
  if (list.is_discarded()) return out;
  for (const Json& d : list["devices"])
    if (d["kind"] == "cuda") out.push_back(d);
  return out;
}

}  // namespace

class TestSimDeviceSelection : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY2(qgetenv("NETSMITH_SIMULATED_GPUS") == "4", "run through CTest, which sets NETSMITH_SIMULATED_GPUS=4");
    QVERIFY2(qgetenv("CUDA_VISIBLE_DEVICES").isNull(), "start the test without CUDA_VISIBLE_DEVICES");
  }

  void visibleDevicesAreListedAndTrainedAsTheRuntimeNumbersThem() {
    const CliRun all = runWithEnvironment({"devices", "--json"}, {});
    QCOMPARE(all.exitCode, 0);
    const std::vector<Json> every = gpusOf(all);
    QCOMPARE(every.size(), size_t{4});
    for (size_t n = 0; n < every.size(); ++n) QCOMPARE(every[n]["id"].get<std::string>(), "cuda:" + std::to_string(n));

    const CliRun some = runWithEnvironment({"devices", "--json"}, {"CUDA_VISIBLE_DEVICES=2,3"});
    QCOMPARE(some.exitCode, 0);
    const std::vector<Json> visible = gpusOf(some);
    QCOMPARE(visible.size(), size_t{2});
    QCOMPARE(visible[0]["id"].get<std::string>(), std::string("cuda:0"));
    QCOMPARE(visible[1]["id"].get<std::string>(), std::string("cuda:1"));
    QCOMPARE(visible[0]["pci_bus_id"], every[2]["pci_bus_id"]);
    QCOMPARE(visible[1]["pci_bus_id"], every[3]["pci_bus_id"]);
    const std::string note = Json::parse(some.stdoutText.toStdString())["gpu_note"];
    QVERIFY2(note.find("cuda:0 is nvidia-smi's 2") != std::string::npos, note.c_str());

    QTemporaryDir dir;
    const CliRun trained = runWithEnvironment(
        {"train", sourcePath("projects/fashion_mnist_mlp.nsproj"), "--devices", "cuda:0,cuda:1", "--max-epoch", "1",
         "--train-samples", "640", "--validation-samples", "128", "--run-dir", dir.filePath("run"), "--events", "-"},
        {"CUDA_VISIBLE_DEVICES=2,3"});
    QVERIFY2(trained.exitCode == 0, (trained.stderrText + trained.stdoutText.right(1000)).constData());
    QCOMPARE(trained.last("finished")["status"].get<std::string>(), std::string("completed"));
    QCOMPARE(trained.last("started")["devices"].size(), size_t{2});

    const CliRun hidden = runWithEnvironment(
        {"train", sourcePath("projects/fashion_mnist_mlp.nsproj"), "--devices", "cuda:2", "--max-epoch", "1",
         "--train-samples", "640", "--validation-samples", "128", "--run-dir", dir.filePath("hidden")},
        {"CUDA_VISIBLE_DEVICES=2,3"});
    QVERIFY(hidden.exitCode != 0);
    QVERIFY2(hidden.stderrText.contains("cuda:2"), hidden.stderrText.constData());
  }

  void gpuWithoutCodeIsNamedWithWhatToRebuild() {
    QTemporaryDir dir;
    const CliRun run = runWithEnvironment(
        {"train", sourcePath("projects/fashion_mnist_mlp.nsproj"), "--devices", "cuda:0", "--max-epoch", "1",
         "--train-samples", "640", "--validation-samples", "128", "--run-dir", dir.filePath("run")},
        {"NETSMITH_SIMULATED_GPU_ARCH=6.1"});
    QVERIFY(run.exitCode != 0);
    QVERIFY2(run.stderrText.contains("cuda:0 (Netsmith simulated GPU, compute capability 6.1, sm_61) cannot run this "
                                     "build's kernels"),
             run.stderrText.constData());
    QVERIFY2(run.stderrText.contains("compute_75 PTX"), run.stderrText.constData());
    QVERIFY2(!run.stderrText.contains("cudaErrorNoKernelImageForDevice"), run.stderrText.constData());
  }
};

QTEST_GUILESS_MAIN(TestSimDeviceSelection)
#include "tst_sim_device_selection.moc"
