// The scaling verdict of a multi-device run (Note [Scaling verdict]): how much faster N devices
// trained than one, and what the gradient all-reduce cost, in one sentence for the CLI, the GUI
// and run.json — "2 GPUs: 1.8× one GPU's samples/s (90%); all-reduce 12% of the step, 70% of it
// hidden behind the backward pass".
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace netsmith {

using Json = nlohmann::json;

// Note [Scaling verdict]
// Speed-up is this run's training samples/s over one device's. One device's figure is measured:
// the last completed single-device run of the same project in the same runs folder, on the same
// kind of device with the same batch per device (its run.json "result"), the weak-scaling
// comparison data-parallel training is judged by (PyTorch DDP, Horovod). Without such a run it is
// estimated from the workers' own clocks — their summed compute time over the training wall time,
// i.e. as if one device had done all the work at the same per-sample speed — and the verdict
// says "estimated". all-reduce share: the communication thread's all-reduce time over the
// workers' step time (compute + wait); hidden: the part of it that ran while backward went on
// (all-reduce time minus the time the worker waited for it, at least 0).
struct ScalingInput {
  int devices = 1;
  bool gpu = false;                // GPUs, else CPU workers
  double samplesPerS = 0;          // training samples/s of this run
  double computeSeconds = 0;       // summed over the workers
  double syncSeconds = 0;          // the communication threads' all-reduce time, summed
  double waitSeconds = 0;          // the workers' time blocked on the all-reduce, summed
  double wallSeconds = 0;          // training wall time (validation excluded)
  std::optional<double> singleDeviceSamplesPerS;  // a measured baseline
  std::string baselineRun;                       // its run folder's name
};

// {devices, samples_per_s, single_device_samples_per_s, single_device_measured (bool),
//  baseline_run, speedup, efficiency, allreduce_share, allreduce_hidden, text}
Json scalingVerdict(const ScalingInput& in);

// The samples/s of the newest completed single-device run in `runsRoot` (other than `exclude`)
// whose run.json result has this backend ("cpu" | "cuda") and batch per device; its folder name
// in *runName.
std::optional<double> lastSingleDeviceSamplesPerS(const std::filesystem::path& runsRoot,
                                                  const std::filesystem::path& exclude, const std::string& backend,
                                                  int64_t batchPerDevice, std::string* runName);

}  // namespace netsmith
