// Device kinds: how the trainer makes a worker's DeviceContext, the communicator group of the
// workers and, for devices whose memory the host cannot touch, the optimizer step that runs on
// the device — chosen by the kind of the device id ("cpu:1" → "cpu", "cuda:0" → "cuda"), so the
// trainer has no backend if/else. "cpu" is always present; "cuda" (engine/devices/cuda_kind.cpp)
// when the build has the CUDA backend (NETSMITH_HAVE_CUDA). This is where the backends, the
// communicators and the solvers meet, so it sits above all three (Note [Layers], docs/layers.md).
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/comm/communicator.h"
#include "engine/core/device_context.h"
#include "engine/core/precision.h"
#include "engine/monitor/devices.h"
#include "engine/optim/device_solver.h"

namespace netsmith {

// What a device context is made from. The trainer and the evaluator fill it from their plan and
// project, so the backend knows no plan, project or run (Note [Layers]).
struct DeviceOptions {
  std::string id;        // the local device id: "cpu:0", "cuda:1"
  int threads = 1;       // CPU: the worker's OpenMP threads; ignored by devices that have their own
  Precision precision = Precision::Float;
  bool deterministic = false;  // same results on every run (cuDNN's deterministic algorithms)
};

// Note [GPUs across processes]: under mpirun a kind with makeJobGroup gives every process the
// part of one group over all the job's devices (NCCL's ranks across processes and machines), in
// place of a group per process joined over MPI. The leader makes the job's id (makeJobId: NCCL's
// unique id, in hex), which reaches every process through the job's channel; then each process
// makes its part with its own devices, ranks firstRank to firstRank + localIds.size() - 1.
// What a device of a kind holds besides its worker's tensors (Note [Memory before launch],
// engine/train/memory_estimate.h).
struct DeviceMemoryOverheads {
  int64_t contextBytes = 0;             // the runtime's own: a CUDA context and the libraries' handles
  int64_t convolutionWorkspaceBytes = 0;  // the most the convolutions' algorithm trials take (kept by the pool)
  int64_t communicationBytes = 0;       // the collective library's buffers per device, with 2 or more devices
};

struct DeviceKind {
  std::string kind;  // "cpu", "cuda": the part of a device id before ':'
  // What the build carries for this kind, for `netsmith-cli --version` ("compute_75 PTX and sm_90"
  // for CUDA: Note [CUDA architectures]); empty when there is nothing to say.
  std::string builtFor;
  // Optional: the devices that training can use as kind:0, kind:1, ... (the CUDA runtime's
  // ordinals, after CUDA_VISIBLE_DEVICES); empty, with *why set, when there are none.
  std::function<std::vector<NumberedDevice>(std::string* why)> listDevices;
  // Called on the worker's own thread, which it binds to the device (OpenMP team, CUDA device).
  std::function<std::unique_ptr<DeviceContext>(const DeviceOptions& options)> makeContext;
  // All workers of a run are of one kind. deviceIds[r] names rank r in errors.
  std::function<std::unique_ptr<CommunicatorGroup>(const std::vector<std::string>& deviceIds, double timeoutSeconds)>
      makeGroup;
  // Optional, both or neither: one group over the devices of every process of an mpirun job
  // (Note [GPUs across processes]). Without them, the groups of the processes are joined over MPI.
  std::function<std::string()> makeJobId;
  std::function<std::unique_ptr<CommunicatorGroup>(const JobGroupPlacement& placement, double timeoutSeconds)>
      makeJobGroup;
  // Optional: called on the worker's thread after makeContext, before any collective, to attach
  // the worker's device to its rank (the NCCL communicator queues on the device's streams).
  std::function<void(CommunicatorGroup& group, int rank, DeviceContext& device)> attachWorker;
  // Optional: a device's memory besides the tensors, for `devices` devices of the kind training.
  std::function<DeviceMemoryOverheads(int devices)> memoryOverheads;
  // Empty: the device computes on host memory and uses Optimizer itself.
  std::function<std::unique_ptr<DeviceSolver>(const Optimizer& config, DeviceContext& device)> makeSolver;
};

// The kinds this build has; "cpu" first.
const std::vector<DeviceKind>& deviceKinds();
// The kind of `deviceId` ("cuda:1" → the "cuda" kind); null when this build lacks it.
const DeviceKind* findDeviceKind(const std::string& deviceId);
// As findDeviceKind, but throws Error naming the device and the kinds this build has.
const DeviceKind& deviceKindOf(const std::string& deviceId);

// The devices a run can be given (`netsmith-cli devices`): discoverDevices() with the GPUs as the
// CUDA kind numbers them (its listDevices: Note [GPU numbering]) when the build has it.
std::vector<DeviceInfo> trainingDevices(std::string* gpuNote = nullptr);

// Adds the CUDA backend's kind and kernels; defined by netsmith_engine_cuda.
namespace cuda {
DeviceKind cudaDeviceKind();
}

}  // namespace netsmith
