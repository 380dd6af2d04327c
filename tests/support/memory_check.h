// Note [Memory before launch]: a short training's plan estimate beside its measured peak, for the
// samples and the network templates (tst_memory_estimate on CPU workers, tst_sim_memory_estimate
// on simulated GPUs).
#pragma once

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <string>
#include <vector>

#include "engine/project/network_templates.h"
#include "engine/project/project_io.h"
#include "support/cli_runner.h"
#include "support/train_runner.h"
#include "unit/dataset_test_files.h"

namespace netsmith::test {

// One device's (or the CPU workers') estimate and what the run measured, in bytes.
struct MemoryComparison {
  std::string device;
  int64_t estimate = 0;
  int64_t base = 0;  // the estimate's context (GPU) or measured process (CPU) part
  int64_t measured = 0;
  int64_t model = 0, activations = 0, workspace = 0, data = 0;  // the estimate's parts (per worker but data)
  double ratio() const { return double(estimate) / double(measured); }
  QString text() const {
    return QString("%1: estimate %2 MiB (base %3, model %6, activations %7, workspace %8, data %9 MiB), measured %4 MiB, "
                   "ratio %5")
        .arg(QString::fromStdString(device))
        .arg(estimate >> 20)
        .arg(base >> 20)
        .arg(measured >> 20)
        .arg(ratio(), 0, 'f', 3)
        .arg(model >> 20)
        .arg(activations >> 20)
        .arg(workspace >> 20)
        .arg(data >> 20);
  }
};

// Trains `project` for one short epoch and returns each `memory` entry of `started` beside the
// peak of `finished` (the process's for "cpu", the GPU's otherwise). Empty when the run failed.
inline std::vector<MemoryComparison> compareMemory(const QString& project, const QString& devices, const QString& runDir,
                                                   const QStringList& environment = {}, int trainSamples = 1024) {
  const CliRun run = runCli({"train", project, "--devices", devices, "--events", "-", "--run-dir", runDir, "--max-epoch",
                             "1", "--train-samples", QString::number(trainSamples), "--validation-samples", "256"},
                            600000, {}, environment);
  const Json started = run.last("started"), finished = run.last("finished");
  if (finished.value("status", "") != "completed") {
    qWarning("%s\n%s", run.stderrText.constData(), finished.dump().c_str());
    return {};
  }
  std::vector<MemoryComparison> out;
  for (const Json& m : started.value("memory", Json::array())) {
    MemoryComparison c;
    c.device = m.at("device").get<std::string>();
    c.estimate = m.at("total_bytes").get<int64_t>();
    c.base = m.at("base_bytes").get<int64_t>();
    c.model = m.at("parameters_bytes").get<int64_t>() + m.at("gradients_bytes").get<int64_t>() +
              m.at("optimizer_state_bytes").get<int64_t>();
    c.activations = m.at("activations_bytes").get<int64_t>();
    c.workspace = m.at("workspace_bytes").get<int64_t>();
    c.data = m.at("data_bytes").get<int64_t>();
    if (c.device == "cpu") {
      c.measured = finished.value("process_peak_memory_mb", int64_t{0}) << 20;
    } else {
      for (const Json& g : finished.value("gpus", Json::array()))
        if (g.at("id") == c.device && g.contains("peak_memory_mb")) c.measured = g.at("peak_memory_mb").get<int64_t>() << 20;
    }
    out.push_back(c);
  }
  return out;
}

// A project of network template `id` on a synthetic IDX dataset of 1x32x32 images in 10 classes
// (512 training, 256 validation), batch 16, written into `dir`.
inline QString templateProject(const QTemporaryDir& dir, const std::string& id) {
  auto images = [&](const QString& name, uint32_t count) {
    std::vector<uint8_t> pixels(count * 32 * 32), labels(count);
    for (uint32_t i = 0; i < count; ++i) {
      labels[i] = static_cast<uint8_t>(i % 10);
      for (uint32_t k = 0; k < 32 * 32; ++k) pixels[i * 1024 + k] = static_cast<uint8_t>((k * (i % 10 + 1) + i) % 251);
    }
    testing::writeBytes(dir.filePath(name + "-images.idx"), testing::idxBytes(0x08, {count, 32, 32}, pixels));
    testing::writeBytes(dir.filePath(name + "-labels.idx"), testing::idxBytes(0x08, {count}, labels));
  };
  if (!QFile::exists(dir.filePath("train-images.idx"))) {
    images("train", 512);
    images("val", 256);
  }
  Project p = loadProject(sourcePath("projects/fashion_mnist_lenet.nsproj").toStdString());
  p.network = makeTemplateNetwork(id, {1, 32, 32}, 10);
  p.dataset.training = {"idx", dir.filePath("train-images.idx").toStdString(), dir.filePath("train-labels.idx").toStdString()};
  p.dataset.validation = {"idx", dir.filePath("val-images.idx").toStdString(), dir.filePath("val-labels.idx").toStdString()};
  p.config.batchSize = 16;
  const QString path = dir.filePath(QString::fromStdString(id) + ".nsproj");
  saveProject(p, path.toStdString());
  return path;
}

// The folder sample (projects/fashion_mnist_folder_lenet.nsproj) on a folder of 60 PNGs per class
// and split, made as its comment says (write_fashion_mnist_folder.py, then `dataset create`), in
// `dir`; empty when a step failed.
inline QString folderSampleProject(const QTemporaryDir& dir) {
  QProcess python;
  python.start("python3", {sourcePath("projects/write_fashion_mnist_folder.py"), dir.filePath("img"), "--per-class", "60",
                           "--split"});
  if (!python.waitForFinished(300000) || python.exitCode() != 0) return {};
  const CliRun create = runCli({"dataset", "create", dir.filePath("img"), "--output", dir.filePath("fashion-mnist-folder")});
  if (create.exitCode != 0) {
    qWarning("%s", create.stderrText.constData());
    return {};
  }
  const QString project = dir.filePath("fashion_mnist_folder_lenet.nsproj");
  QFile::copy(sourcePath("projects/fashion_mnist_folder_lenet.nsproj"), project);
  return project;
}

}  // namespace netsmith::test
