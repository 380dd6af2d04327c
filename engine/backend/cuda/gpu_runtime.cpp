#include "engine/backend/cuda/gpu_runtime.h"

#include <cstdlib>
#include <mutex>
#include <string>

#include "engine/core/error.h"

namespace netsmith::cuda {
namespace {

bool truthy(const char* value) { return value && *value && std::string(value) != "0"; }

// NETSMITH_SIMULATED_GPUS as a device count, or -1 with *why set.
int simulatedDeviceCount(std::string* why) {
  const char* text = std::getenv("NETSMITH_SIMULATED_GPUS");
  if (!text || !*text) return 0;
  char* end = nullptr;
  const long n = std::strtol(text, &end, 10);
  if (*end != '\0' || n < 1 || n > 8) {
    *why = format("NETSMITH_SIMULATED_GPUS=\"{}\": expected a number of simulated GPUs from 1 to 8", text);
    return -1;
  }
  return static_cast<int>(n);
}

}  // namespace

bool simulatedGpusRequested() {
  const char* text = std::getenv("NETSMITH_SIMULATED_GPUS");
  return text && *text;
}

void throwCudaError(cudaError_t status, const char* call, const char* file, int line) {
  GpuRuntime& runtime = gpuRuntime();
  const std::string detail = runtime.lastErrorDetail();
  NS_THROW("CUDA error {} ({}) in {} at {}:{}{}", runtime.errorName(status), runtime.errorString(status), call, file,
           line, detail.empty() ? "" : ": " + detail);
}

void throwNcclError(ncclResult_t status, const char* call, const char* file, int line) {
  GpuRuntime& runtime = gpuRuntime();
  std::string detail = runtime.lastErrorDetail();
  if (detail.empty()) detail = runtime.ncclLastError(nullptr);
  NS_THROW("NCCL error {} in {} at {}:{}{}", runtime.ncclErrorString(status), call, file, line,
           detail.empty() ? "" : ": " + detail);
}

GpuRuntime& gpuRuntime() {
  static std::mutex mutex;
  static GpuRuntime* runtime = nullptr;
  std::lock_guard lock(mutex);
  if (runtime) return *runtime;
  std::string why;
  const int simulated = simulatedDeviceCount(&why);
  NS_CHECK(simulated >= 0, "{}", why);
  // Note [GPU numbering]: before the first call into either runtime.
  setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
  if (simulated > 0) {
    SimulatorOptions options;
    options.devices = simulated;
    options.jitter = truthy(std::getenv("NETSMITH_SIMULATED_GPU_JITTER"));
    if (const char* seed = std::getenv("NETSMITH_SIMULATED_GPU_SEED")) options.seed = std::strtoull(seed, nullptr, 10);
    if (const char* mb = std::getenv("NETSMITH_SIMULATED_GPU_MEMORY_MB")) {
      const long long value = std::atoll(mb);
      NS_CHECK(value >= 64, "NETSMITH_SIMULATED_GPU_MEMORY_MB=\"{}\": expected at least 64 (MiB per simulated GPU)", mb);
      options.memoryMb = value;
    }
    const char* order = std::getenv("CUDA_DEVICE_ORDER");
    options.pciOrder = order && std::string(order) == "PCI_BUS_ID";
    runtime = makeSimulatedRuntime(options);
  } else {
    runtime = makeRealRuntime();
  }
  return *runtime;
}

}  // namespace netsmith::cuda
