// The GPU checks of issue 5, Qt-free, so they run on a GPU machine without Qt (netsmith-gpu-check)
// and inside the Qt tests labelled `gpu` (which skip when gpuUnavailableReason() says why).
//   - every op's CUDA forward and backward against its CPU kernels;
//   - a training loop (Network + solver) on cuda:N against the same loop on the CPU;
//   - NCCL with the ranks of one process;
//   - training throughput of a sample project on one device (the benchmark's netsmith side).
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace netsmith::gpucheck {

using Json = nlohmann::json;

// Empty when `device` (e.g. "cuda:0") can be used; otherwise why not, in a sentence (no CUDA
// backend in this build, no driver, no such GPU).
std::string gpuUnavailableReason(const std::string& device = "cuda:0");
// cuda:0 … cuda:N-1, every GPU the CUDA runtime sees (empty without the backend or a driver).
std::vector<std::string> allGpus();

struct OpResult {
  std::string op;
  std::string variant;
  std::string precision;
  // Largest relative error (max |gpu − cpu| / max |cpu| per tensor) over the forward output and
  // the updated parameters (BatchNormalization's running statistics), and over every gradient.
  double forwardError = 0;
  double backwardError = 0;
  // Each tensor has its own tolerance (Note [GPU tolerances], gpu_tolerance.h); margin is the
  // largest error / tolerance over the tensors, tolerance and worst those of that tensor.
  double margin = 0;
  double tolerance = 0;
  std::string worst;  // the tensor with the largest error relative to its tolerance, e.g. "backward dW"
  std::string error;  // an exception's message; then the row failed
  bool passed() const { return error.empty() && margin <= 1.0; }
};

// Every op of the registry that has "cpu" and "cuda" kernels, on derived and hand-written
// examples (registry-driven as tests/unit/tst_op_gradients.cpp). precision: "float", "half" or
// "bfloat16"; tolerances per tensor by precision and reduction length (Note [GPU tolerances]).
std::vector<OpResult> checkOps(const std::string& device, const std::string& precision);

struct TrainResult {
  std::string project;
  int steps = 0;
  std::vector<double> cpuLoss, gpuLoss;  // mean loss per step
  double maxLossError = 0;               // relative
  // Parameters after the last step: ‖Δθ‖₂ / ‖θ‖₂ over all blobs together, and the blob whose own
  // relative L2 difference is largest. Not the largest per-blob max-relative error: under Adam a
  // bias that starts at 0 moves by ~lr per step whatever its gradient's size, so a rounding-level
  // gradient difference can flip its step, and its relative error says nothing about the network.
  double parameterError = 0;
  std::string worstParameter;
  std::string error;
};

// `steps` training steps of a sample project's network (projects/<name>.nsproj) with its
// optimizer on synthetic data, on the CPU and on `device` from the same initial weights.
TrainResult compareTraining(const std::string& projectPath, const std::string& device, int steps, int64_t batch);

// The trainer itself (in process, events to nowhere) for `iterations` iterations of a project in
// fast mode with the logical batch kept (parallel.lr_policy keep_logical_batch), once on
// devices[0] and once on all of `devices`: with the same logical batch, the same samples and the
// same learning rate, the parameters differ only by the gradient sums' rounding. Needs the
// project's dataset. parameterError: ‖Δθ‖₂ / ‖θ‖₂ over all blobs; worst: the blob whose own
// relative L2 difference is largest.
struct DeviceCountResult {
  std::string project;
  int devices = 0;
  int iterations = 0;
  double parameterError = 0;
  std::string worst;
  std::string error;
};
DeviceCountResult compareDeviceCounts(const std::string& projectPath, const std::vector<std::string>& devices,
                                      int iterations);

// NCCL with `devices` ranks of this process: all-reduce and broadcast of known values, a barrier,
// then abort() from one rank must make the others throw. Empty on success, else what failed.
std::string checkNccl(const std::vector<std::string>& devices);

struct BenchResult {
  std::string project, device, precision;
  int64_t batch = 0;
  int iterations = 0;
  double samplesPerSecond = 0;
  double flopsPerSample = 0;  // training: 6 × multiply-adds per sample (forward + 2 backward GEMMs)
  double meanLoss = 0;
  double checkLoss = 0;            // inference loss on the check batch (Note [Check batch])
  std::string solver;              // optimizer.solver of the project
  std::string initialParameters;   // config.initial_parameters when the weights came from it
  std::string error;
  Json toJson() const;
};

// Training throughput on one device: synthetic data gathered on the host each iteration, copied
// in, forward, backward, optimizer step; `warmup` untimed iterations first.
BenchResult benchTraining(const std::string& projectPath, const std::string& device, const std::string& precision,
                          int64_t batch, int iterations, int warmup);

// Measured peak of the device: a large float32 and a bf16 GEMM through cuBLAS (TFLOP/s). Empty
// JSON object when there is no GPU.
Json measurePeak(const std::string& device);

}  // namespace netsmith::gpucheck
