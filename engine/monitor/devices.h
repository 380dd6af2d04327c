// Device discovery: the CPU workers and the NVIDIA GPUs a run may be given, as the Training page
// lists them and `netsmith-cli devices [--json]` prints them.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>


namespace netsmith {

using Json = nlohmann::json;

class Nvml;

// A GPU as the CUDA runtime numbers it: entry N of a list is cuda:N, and the PCI bus id says which
// GPU of NVML's list it is (Note [GPU numbering]).
struct NumberedDevice {
  std::string pciBusId;
  std::string name;
  int64_t memoryMb = 0;
};

struct DeviceInfo {
  std::string id;        // "cpu:0", "cuda:0" (the CUDA runtime's ordinal: Note [GPU numbering])
  std::string kind;      // "cpu" | "cuda"
  std::string name;      // CPU model name from /proc/cpuinfo; GPU name from NVML
  int64_t memoryMb = 0;  // GPU total memory; for CPU workers the machine's MemTotal
  std::string pciBusId;  // GPUs only
  int cores = 0;         // CPU: hardware threads available to the process (sched_getaffinity)
  std::string driver;    // GPUs: NVML driver version

  bool operator==(const DeviceInfo&) const = default;
};

// CPU workers cpu:0..cpu:(cores-1) (a worker per core is the most that makes sense), then every GPU
// NVML reports, in NVML order. Never fails: without libnvidia-ml.so.1 (no driver) the GPU list is
// empty and *gpuNote says why; with GPUs listed the note is empty unless one of them was refused.
// Thread-safe. The devices a run can be given, numbered as training numbers them, are
// trainingDevices() (engine/devices/device_factory.h), which calls the overload below.
std::vector<DeviceInfo> discoverDevices(std::string* gpuNote = nullptr);
// The same with the NVML session given (null: none, and `nvmlError` is the reason) and, when
// given, the CUDA runtime's devices: the GPUs are then cuda:N with N the runtime's ordinal (after
// CUDA_VISIBLE_DEVICES), each joined to NVML's figures by PCI bus id (Note [GPU numbering]), and
// `cudaError` says why the list is empty.
std::vector<DeviceInfo> discoverDevices(const Nvml* nvml, const std::string& nvmlError, std::string* gpuNote,
                                        const std::optional<std::vector<NumberedDevice>>& cudaDevices = std::nullopt,
                                        const std::string& cudaError = "");

// Hardware threads this process may run on (sched_getaffinity; at least 1).
int availableCpuThreads();

// {"devices": [{"id", "kind", "name", "memory_mb", then "cores" for a CPU worker or "pci_bus_id" and
// "driver" for a GPU}], "gpu_note": "..."} — the output of `netsmith-cli devices --json`.
Json devicesToJson(const std::vector<DeviceInfo>& devices, const std::string& gpuNote);
// The inverse, for a GUI that reads the CLI's output. Throws Error naming the JSON path of the
// first field that is missing or of the wrong type.
std::vector<DeviceInfo> devicesFromJson(const Json& json, std::string* gpuNote = nullptr);

// A table for people: one row per GPU; the identical CPU workers folded into one row
// ("cpu:0..cpu:7"); the GPU note, if any, on the last line.
std::string devicesToText(const std::vector<DeviceInfo>& devices, const std::string& gpuNote);

}  // namespace netsmith
