// The CUDA backend's host code on simulated GPUs with jitter (CTest sets NETSMITH_SIMULATED_GPUS=4
// and NETSMITH_SIMULATED_GPU_JITTER=1): the NCCL communicator's collectives on 2 and 4 GPUs, the
// device listing, and training end to end — reproducible mode gives one parameters_sha256 on 1,
// 2 and 4 GPUs for each sample project, and a fast-mode run on 2 GPUs completes with per-GPU
// figures.
#include <QtTest>

#include <thread>

#include "engine/backend/cuda/cuda_device.h"
#include "engine/comm/nccl_communicator.h"
#include "support/cli_runner.h"
#include "support/train_runner.h"

using namespace netsmith;
using namespace netsmith::test;

namespace {

std::vector<std::string> gpus(int n) {
  std::vector<std::string> ids;
  for (int r = 0; r < n; ++r) ids.push_back("cuda:" + std::to_string(r));
  return ids;
}

// The sample, in reproducible mode with the logical batch kept on any device count.
QString reproducibleCopy(const std::string& sample, const QTemporaryDir& dir) {
  Json p = sampleProject(sample);
  p["config"]["deterministic"] = true;
  p["parallel"]["lr_policy"] = "keep_logical_batch";
  return QString::fromStdString(saveProject(dir, sample, p));
}

}  // namespace

class TestSimTraining : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY2(qgetenv("NETSMITH_SIMULATED_GPUS") == "4", "run through CTest, which sets NETSMITH_SIMULATED_GPUS=4");
  }

  // Note [NCCL collectives]: sums and broadcasts are right on every rank, every time, whatever
  // the jitter; the first collective of a non-blocking communicator returns ncclInProgress and
  // must be waited for before its completion event is recorded.
  void ncclGroupCollectives_data() {
    QTest::addColumn<int>("ranks");
    QTest::newRow("2 GPUs") << 2;
    QTest::newRow("4 GPUs") << 4;
  }
  void ncclGroupCollectives() {
    QFETCH(int, ranks);
    cuda::NcclGroup group(gpus(ranks), 30);
    constexpr int64_t kCount = 1000;
    std::vector<std::string> failures(static_cast<size_t>(ranks));
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r) {
      threads.emplace_back([&, r] {
        try {
          cuda::CudaDeviceContext device("cuda:" + std::to_string(r));
          group.attach(r, device);
          Communicator& comm = group.communicator(r);
          Tensor buffer({kCount}, device.deviceAllocator());
          std::vector<float> host(kCount), back(kCount);
          for (int iteration = 0; iteration < 25; ++iteration) {
            for (int64_t i = 0; i < kCount; ++i) host[static_cast<size_t>(i)] = float((r + 1) * (iteration + 1) + i);
            device.upload(buffer.data(), host.data(), kCount);
            comm.allReduceSum(buffer.data(), kCount);
            device.download(back.data(), buffer.data(), kCount);
            for (int64_t i = 0; i < kCount; ++i) {
              const float want = float((ranks * (ranks + 1) / 2) * (iteration + 1) + ranks * i);
              if (back[static_cast<size_t>(i)] != want) {
                failures[static_cast<size_t>(r)] = format("iteration {}: element {} is {}, the sum is {}", iteration,
                                                          i, back[static_cast<size_t>(i)], want);
                return;
              }
            }
          }
          for (int64_t i = 0; i < kCount; ++i) host[static_cast<size_t>(i)] = float(r * 100 + i);
          device.upload(buffer.data(), host.data(), kCount);
          comm.broadcast(buffer.data(), kCount, ranks - 1);
          device.download(back.data(), buffer.data(), kCount);
          if (back[7] != float((ranks - 1) * 100 + 7)) failures[static_cast<size_t>(r)] = "broadcast";
          comm.barrier();
        } catch (const std::exception& e) {
          failures[static_cast<size_t>(r)] = e.what();
        }
      });
    }
    for (auto& t : threads) t.join();
    for (int r = 0; r < ranks; ++r) QVERIFY2(failures[static_cast<size_t>(r)].empty(), failures[static_cast<size_t>(r)].c_str());
  }

  void devicesListsSimulatedGpus() {
    const CliRun run = runProcess(cliPath(), {"devices", "--json"});
    QCOMPARE(run.exitCode, 0);
    const Json j = Json::parse(run.stdoutText.toStdString());
    int gpusListed = 0;
    for (const Json& d : j["devices"]) {
      if (d["kind"] != "cuda") continue;
      QCOMPARE(d["id"].get<std::string>(), "cuda:" + std::to_string(gpusListed));
      QVERIFY(d["name"].get<std::string>().find("simulated") != std::string::npos);
      QVERIFY(!d["pci_bus_id"].get<std::string>().empty());
      QVERIFY(d["memory_mb"].get<int64_t>() > 0);
      ++gpusListed;
    }
    QCOMPARE(gpusListed, 4);
  }

  void reproducibleOnOneTwoFourGpus_data() {
    QTest::addColumn<QString>("sample");
    QTest::newRow("MLP") << "fashion_mnist_mlp";
    QTest::newRow("LeNet") << "fashion_mnist_lenet";
    QTest::newRow("ResNet") << "fashion_mnist_resnet";
  }
  void reproducibleOnOneTwoFourGpus() {
    QFETCH(QString, sample);
    QTemporaryDir dir;
    const QString project = reproducibleCopy(sample.toStdString(), dir);
    std::string first;
    for (const QString& devices : {QString("cuda:0"), QString("cuda:0,cuda:1"), QString("cuda:0,cuda:1,cuda:2,cuda:3")}) {
      const CliRun run = runProcess(cliPath(), {"train", project, "--devices", devices, "--max-epoch", "1",
                                                "--train-samples", "512", "--validation-samples", "128", "--run-dir",
                                                dir.path() + "/" + devices, "--events", "-"});
      QVERIFY2(run.exitCode == 0, run.stderrText.constData());
      const Json finished = run.last("finished");
      QCOMPARE(finished["status"].get<std::string>(), std::string("completed"));
      const std::string hash = finished["parameters_sha256"].get<std::string>();
      if (first.empty()) first = hash;
      QVERIFY2(hash == first, qPrintable(devices + ": " + QString::fromStdString(hash) + " vs cuda:0's " +
                                         QString::fromStdString(first)));
    }
  }

  // Fast mode on 2 GPUs: the gradient all-reduce overlaps backward; the run completes, and every
  // iteration event has each GPU's figures from the simulated NVML.
  void fastModeOnTwoGpus() {
    QTemporaryDir dir;
    const CliRun run = runProcess(cliPath(), {"train", sourcePath("projects/fashion_mnist_lenet.nsproj"), "--devices",
                                              "cuda:0,cuda:1", "--max-epoch", "1", "--train-samples", "2048",
                                              "--validation-samples", "256", "--run-dir", dir.path(), "--events", "-"});
    QVERIFY2(run.exitCode == 0, run.stderrText.constData());
    QCOMPARE(run.last("finished")["status"].get<std::string>(), std::string("completed"));
    const auto iterations = run.ofKind("iteration");
    QVERIFY(!iterations.empty());
    const Json devices = iterations.back()["devices"];
    QCOMPARE(devices.size(), size_t{2});
    for (const Json& d : devices) QVERIFY(d["memory_mb"].get<double>() > 0);
    const double error = run.last("epoch")["validation_error"].get<double>();
    QVERIFY2(error < 0.5, qPrintable(QString::number(error)));  // it learned something in one short epoch
  }
};

QTEST_GUILESS_MAIN(TestSimTraining)
#include "tst_sim_training.moc"
