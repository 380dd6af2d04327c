#include "engine/devices/device_factory.h"

#include "engine/backend/cpu/cpu_device.h"
#include "engine/backend/cpu/cpu_precision.h"
#include "engine/core/error.h"
#include "engine/monitor/nvml.h"

namespace netsmith {

namespace {

class InProcessCommunicatorGroup final : public CommunicatorGroup {
 public:
  InProcessCommunicatorGroup(const std::vector<std::string>& ids, double timeout)
      : m_group(static_cast<int>(ids.size()), ids, timeout) {}
  int size() const override { return m_group.size(); }
  Communicator& communicator(int rank) override { return m_group.communicator(rank); }

 private:
  InProcessGroup m_group;
};

DeviceKind cpuDeviceKind() {
  DeviceKind k;
  k.kind = "cpu";
  k.makeContext = [](const DeviceOptions& d) -> std::unique_ptr<DeviceContext> {
    cpu::checkCpuPrecision(d.precision);
    auto c = std::make_unique<CpuDeviceContext>(d.id, d.threads, d.precision);
    c->bindToCurrentThread();
    return c;
  };
  k.makeGroup = [](const std::vector<std::string>& ids, double timeout) -> std::unique_ptr<CommunicatorGroup> {
    return std::make_unique<InProcessCommunicatorGroup>(ids, timeout);
  };
  return k;
}

std::string kindOf(const std::string& deviceId) { return deviceId.substr(0, deviceId.find(':')); }

}  // namespace

const std::vector<DeviceKind>& deviceKinds() {
  static const std::vector<DeviceKind> kinds = [] {
    std::vector<DeviceKind> k{cpuDeviceKind()};
#ifdef NETSMITH_HAVE_CUDA
    k.push_back(cuda::cudaDeviceKind());
#endif
    return k;
  }();
  return kinds;
}

std::vector<DeviceInfo> trainingDevices(std::string* gpuNote) {
  std::optional<std::vector<NumberedDevice>> cudaDevices;
  std::string cudaError;
  if (const DeviceKind* cuda = findDeviceKind("cuda:0"); cuda && cuda->listDevices)
    cudaDevices = cuda->listDevices(&cudaError);
  return discoverDevices(Nvml::instance(), Nvml::instanceError(), gpuNote, cudaDevices, cudaError);
}

const DeviceKind* findDeviceKind(const std::string& deviceId) {
  const std::string kind = kindOf(deviceId);
  for (const DeviceKind& k : deviceKinds())
    if (k.kind == kind) return &k;
  return nullptr;
}

const DeviceKind& deviceKindOf(const std::string& deviceId) {
  const DeviceKind* k = findDeviceKind(deviceId);
  if (!k) {
    std::string known;
    for (const DeviceKind& d : deviceKinds()) known += (known.empty() ? "" : ", ") + d.kind;
    NS_THROW("device {} needs the {} backend, which this build does not have (it has: {})", deviceId, kindOf(deviceId),
             known);
  }
  return *k;
}

}  // namespace netsmith
