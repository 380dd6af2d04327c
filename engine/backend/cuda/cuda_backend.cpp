// The "cuda" device kind (engine/backend/device_factory.h): CudaDeviceContext per worker, an
// NcclGroup for the workers, CudaSolver for the optimizer step.
#include "engine/backend/cuda/cuda_device.h"
#include "engine/backend/cuda/cuda_solver.h"
#include "engine/backend/device_factory.h"
#include "engine/comm/nccl_communicator.h"

namespace netsmith::cuda {

DeviceKind cudaDeviceKind() {
  DeviceKind k;
  k.kind = "cuda";
  k.makeContext = [](const DeviceOptions& d) -> std::unique_ptr<DeviceContext> {
    CudaOptions options;
    options.precision = d.precision;
    options.deterministic = d.deterministic;
    return std::make_unique<CudaDeviceContext>(d.id, options);
  };
  k.makeGroup = [](const std::vector<std::string>& ids, double timeout) -> std::unique_ptr<CommunicatorGroup> {
    return std::make_unique<NcclGroup>(ids, timeout);
  };
  k.attachWorker = [](CommunicatorGroup& group, int rank, DeviceContext& device) {
    static_cast<NcclGroup&>(group).attach(rank, cudaContext(device));
  };
  k.makeSolver = [](const Optimizer& config, DeviceContext& device) {
    return makeCudaSolver(config, cudaContext(device));
  };
  return k;
}

}  // namespace netsmith::cuda
