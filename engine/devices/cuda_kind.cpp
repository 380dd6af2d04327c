// The "cuda" device kind (engine/devices/device_factory.h): CudaDeviceContext per worker, an
// NcclGroup for the workers, CudaSolver for the optimizer step. Compiled into the CUDA library.
#include "engine/backend/cuda/cuda_architectures.h"
#include "engine/backend/cuda/cuda_check.h"
#include "engine/backend/cuda/conv_algorithms.h"
#include "engine/backend/cuda/cuda_device.h"
#include "engine/backend/cuda/cuda_solver.h"
#include "engine/backend/cuda/nccl_group.h"
#include "engine/devices/device_factory.h"

#include <cstdlib>

namespace netsmith::cuda {

DeviceKind cudaDeviceKind() {
  DeviceKind k;
  k.kind = "cuda";
  k.builtFor = describeArchitectures(builtArchitectures());
  k.listDevices = [](std::string* why) {
    std::vector<NumberedDevice> out;
    const int count = cudaDeviceCount(why);
    GpuRuntime& runtime = gpuRuntime();
    for (int ordinal = 0; ordinal < count; ++ordinal) {
      NumberedDevice d;
      char bus[32] = {};
      GpuProperties properties;
      if (runtime.deviceGetPCIBusId(bus, sizeof bus, ordinal) != cudaSuccess ||
          runtime.deviceProperties(ordinal, &properties) != cudaSuccess) {
        runtime.getLastError();
        if (why) *why = format("the CUDA runtime cannot describe cuda:{}: {}", ordinal, runtime.lastErrorDetail());
        continue;
      }
      d.pciBusId = bus;
      d.name = properties.name;
      d.memoryMb = static_cast<int64_t>(properties.totalMemory >> 20);
      out.push_back(std::move(d));
    }
    return out;
  };
  k.makeContext = [](const DeviceOptions& d) -> std::unique_ptr<DeviceContext> {
    CudaOptions options;
    options.precision = d.precision;
    options.deterministic = d.deterministic;
    return std::make_unique<CudaDeviceContext>(d.id, options);
  };
  k.makeGroup = [](const std::vector<std::string>& ids, double timeout) -> std::unique_ptr<CommunicatorGroup> {
    return std::make_unique<NcclGroup>(ids, timeout);
  };
  k.makeJobId = [] { return NcclGroup::newJobId(); };
  k.makeJobGroup = [](const JobGroupPlacement& placement, double timeout) -> std::unique_ptr<CommunicatorGroup> {
    return std::make_unique<NcclGroup>(placement, timeout);
  };
  k.attachWorker = [](CommunicatorGroup& group, int rank, DeviceContext& device) {
    static_cast<NcclGroup&>(group).attach(rank, cudaContext(device));
  };
  k.memoryOverheads = [](int devices) {
    GpuRuntime& runtime = gpuRuntime();
    DeviceMemoryOverheads o;
    o.contextBytes = static_cast<int64_t>(runtime.contextBytes());
    // Simulated GPUs run the CPU kernels, not cuDNN: no algorithm trials there.
    o.convolutionWorkspaceBytes = runtime.simulated() ? 0 : static_cast<int64_t>(kConvWorkspaceLimit);
    // NCCL's buffers: NCCL_BUFFSIZE (4 MiB unless set) for each direction of each channel; 16
    // channels assumed (NVLink machines use more, PCIe fewer). The simulator's NCCL keeps none.
    if (devices > 1 && !runtime.simulated()) {
      int64_t buffer = int64_t{4} << 20;
      if (const char* v = std::getenv("NCCL_BUFFSIZE"); v && std::atoll(v) > 0) buffer = std::atoll(v);
      o.communicationBytes = 2 * 16 * buffer;
    }
    return o;
  };
  k.makeSolver = [](const Optimizer& config, DeviceContext& device) {
    return makeCudaSolver(config, cudaContext(device));
  };
  return k;
}

}  // namespace netsmith::cuda
