// Nvml: GPU names, memory and utilization from the NVIDIA driver's NVML, loaded at run time.
// Note [NVML at run time]: libnvidia-ml.so.1 ships with the driver, not with the CUDA toolkit, so
// the engine never links it and never includes nvml.h (which may not be installed). We dlopen the
// library, resolve the handful of entry points below, and declare their types ourselves (nvml_abi).
// A machine without a driver therefore builds and runs; it simply has no GPUs to list.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace netsmith {

// The slice of the NVML C ABI we use, declared by hand (layouts as in nvml.h of driver 450+).
namespace nvml_abi {
using Return = int;  // nvmlReturn_t; 0 is NVML_SUCCESS
constexpr Return kSuccess = 0;
using Device = struct DeviceOpaque*;  // nvmlDevice_t
constexpr unsigned kNameBufferSize = 96;           // NVML_DEVICE_NAME_V2_BUFFER_SIZE
constexpr unsigned kDriverVersionBufferSize = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE

struct Memory {  // nvmlMemory_t (v1), bytes
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
struct Utilization {  // nvmlUtilization_t, percent over the driver's last sample period
  unsigned int gpu;
  unsigned int memory;
};
// nvmlPciInfo_t as filled by nvmlDeviceGetPciInfo_v3. The _v2 call of older drivers wrote a shorter
// struct whose first 16 bytes were the bus id, which is exactly busIdLegacy here; the struct is
// larger than that one, so passing it to _v2 is safe too.
struct PciInfo {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
};

// The entry points, as resolved from the library (or supplied by a test). errorString and
// getPciInfoV3 may be null; every other member must be set.
struct Api {
  Return (*init)() = nullptr;                                    // nvmlInit_v2
  Return (*shutdown)() = nullptr;                                // nvmlShutdown
  Return (*getCount)(unsigned int*) = nullptr;                   // nvmlDeviceGetCount_v2
  Return (*getHandleByIndex)(unsigned int, Device*) = nullptr;   // nvmlDeviceGetHandleByIndex_v2
  Return (*getName)(Device, char*, unsigned int) = nullptr;      // nvmlDeviceGetName
  Return (*getMemoryInfo)(Device, Memory*) = nullptr;            // nvmlDeviceGetMemoryInfo
  Return (*getUtilizationRates)(Device, Utilization*) = nullptr; // nvmlDeviceGetUtilizationRates
  Return (*getPciInfoV3)(Device, PciInfo*) = nullptr;            // nvmlDeviceGetPciInfo_v3 (optional)
  Return (*getPciInfoV2)(Device, PciInfo*) = nullptr;            // nvmlDeviceGetPciInfo_v2 (fallback)
  Return (*getDriverVersion)(char*, unsigned int) = nullptr;     // nvmlSystemGetDriverVersion
  const char* (*errorString)(Return) = nullptr;                  // nvmlErrorString (optional)
  Return (*getTemperature)(Device, int, unsigned int*) = nullptr;  // nvmlDeviceGetTemperature, sensor 0 = GPU (optional)
  Return (*getPowerUsage)(Device, unsigned int*) = nullptr;        // nvmlDeviceGetPowerUsage, milliwatts (optional)
};
}  // namespace nvml_abi

// One initialised NVML session. All methods may be called from any thread (NVML is thread-safe,
// and this class keeps no mutable state after construction). Indices are NVML's, which enumerate
// GPUs in PCI bus order and ignore CUDA_VISIBLE_DEVICES; a CUDA backend that numbers devices
// differently maps them through indexOfPciBusId().
class Nvml {
 public:
  // Everything known about one GPU that does not change while the process runs.
  struct DeviceStatic {
    std::string name;
    int64_t memoryTotalMb = 0;
    std::string pciBusId;  // "00000000:19:00.0"; empty if the driver would not say
    std::string error;     // non-empty: NVML lists this GPU but refused a handle to it (why)
  };
  struct Sample {
    double utilization = 0;  // fraction 0..1 of the last driver sample period a kernel ran
    int64_t memoryUsedMb = 0;
    int64_t memoryTotalMb = 0;
    std::optional<double> temperatureC;  // when the driver reports it (not every GPU does)
    std::optional<double> powerW;
  };

  // The process-wide session, loaded from libnvidia-ml.so.1 on first use and kept until exit
  // (with NETSMITH_SIMULATED_GPUS set: the simulated GPUs' NVML, Note [Simulated GPUs])
  // (never shut down, so a sampling thread can never race static destruction). Null when NVML is
  // unavailable; instanceError() then says why in a sentence a user can act on.
  static Nvml* instance();
  static const std::string& instanceError();

  // A private session from `soname` (a name for the loader's search path, or a path). Null with
  // *error set when the library cannot be loaded, lacks an entry point, or fails to initialise;
  // never throws. Used by instance() and by tests that point it at a library that is not NVML.
  static std::unique_ptr<Nvml> load(const char* soname, std::string* error);
  // A session over entry points the caller supplies (tests use fakes). `library` is a dlopen
  // handle closed when the session ends, or null. Same failure contract as load().
  static std::unique_ptr<Nvml> fromApi(const nvml_abi::Api& api, void* library, std::string* error);

  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  int deviceCount() const { return static_cast<int>(m_devices.size()); }
  // Nullopt for an index out of range.
  std::optional<DeviceStatic> deviceStatic(int index) const;
  // Current utilization and memory; nullopt for an index out of range or when the driver refuses
  // (a GPU fallen off the bus, a MIG instance without utilization counters).
  std::optional<Sample> sample(int index) const;
  // The NVML index of the GPU whose PCI bus id is `busId` (case and leading-zero domain width
  // ignored, so CUDA's "0000:19:00.0" matches NVML's "00000000:19:00.0"); -1 if none.
  int indexOfPciBusId(const std::string& busId) const;
  const std::string& driverVersion() const { return m_driverVersion; }

 private:
  Nvml(const nvml_abi::Api& api, void* library) : m_api(api), m_library(library) {}
  std::string errorText(nvml_abi::Return code) const;

  nvml_abi::Api m_api;
  void* m_library = nullptr;
  bool m_initialised = false;
  std::vector<nvml_abi::Device> m_handles;
  std::vector<DeviceStatic> m_devices;
  std::string m_driverVersion;
};

}  // namespace netsmith
