#include "engine/monitor/nvml.h"

#include <dlfcn.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <utility>

#include "engine/core/error.h"

namespace netsmith {

#ifdef NETSMITH_HAVE_CUDA
namespace cuda {
// The simulated GPUs' entry points (engine/backend/cuda/sim/sim_nvml.cpp); starts the simulator.
const nvml_abi::Api& simulatedNvmlApi();
}  // namespace cuda
#endif

namespace {

constexpr int64_t kBytesPerMb = 1024 * 1024;

// NVML's own names for the codes, for when nvmlErrorString is missing (or a fake leaves it out).
const char* nvmlCodeName(nvml_abi::Return code) {
  switch (code) {
    case 1: return "NVML was not first initialized";
    case 2: return "invalid argument";
    case 3: return "not supported";
    case 4: return "insufficient permissions";
    case 6: return "not found";
    case 9: return "driver not loaded";
    case 10: return "timeout";
    case 12: return "NVML shared library not found";
    case 13: return "function not found";
    case 15: return "GPU is lost";
    case 17: return "the operating system has blocked the request";
    case 18: return "RM has detected an NVML/RM version mismatch";
    default: return "unknown error";
  }
}

// A fixed-size C buffer from the driver, not trusted to be NUL-terminated.
std::string fromBuffer(const char* buffer, size_t size) { return std::string(buffer, strnlen(buffer, size)); }

// "0000:19:00.0" and "00000000:19:00.0" name the same GPU: compare the domain as a number and the
// rest case-insensitively.
std::optional<std::pair<unsigned long, std::string>> splitBusId(const std::string& busId) {
  const auto colon = busId.find(':');
  if (colon == std::string::npos || colon == 0) return std::nullopt;
  char* end = nullptr;
  const std::string domainText = busId.substr(0, colon);
  const unsigned long domain = std::strtoul(domainText.c_str(), &end, 16);
  if (end == nullptr || *end != '\0') return std::nullopt;
  std::string rest = busId.substr(colon + 1);
  for (char& c : rest) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return std::make_pair(domain, rest);
}

struct Instance {
  std::unique_ptr<Nvml> nvml;
  std::string error;
};

// Note [NVML at run time]: the process-wide session is leaked on purpose (see instance()).
Instance& processInstance() {
  static Instance* const state = [] {
    auto* s = new Instance;
    if (const char* simulated = std::getenv("NETSMITH_SIMULATED_GPUS"); simulated && *simulated) {
#ifdef NETSMITH_HAVE_CUDA
      try {
        s->nvml = Nvml::fromApi(cuda::simulatedNvmlApi(), nullptr, &s->error);
      } catch (const Error& e) {
        s->error = e.what();
      }
#else
      s->error = "NETSMITH_SIMULATED_GPUS is set, but this build has no CUDA backend, which the simulated GPUs are "
                 "part of: no GPU is listed";
#endif
      return s;
    }
    s->nvml = Nvml::load("libnvidia-ml.so.1", &s->error);
    return s;
  }();
  return *state;
}

}  // namespace

std::string Nvml::errorText(nvml_abi::Return code) const {
  const char* text = m_api.errorString != nullptr ? m_api.errorString(code) : nullptr;
  std::string message = format("{} (NVML error {})", text != nullptr ? text : nvmlCodeName(code), code);
  if (code == 9) message += "; is the NVIDIA kernel module loaded (nvidia-smi)?";
  if (code == 18) message += "; the driver was updated without a reboot: reboot the machine";
  return message;
}

Nvml* Nvml::instance() { return processInstance().nvml.get(); }

const std::string& Nvml::instanceError() { return processInstance().error; }

std::unique_ptr<Nvml> Nvml::load(const char* soname, std::string* error) {
  std::string ignored;
  std::string& why = error != nullptr ? *error : ignored;
  dlerror();
  void* library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* reason = dlerror();
    why = format("no NVML: {} could not be loaded ({}); without the NVIDIA driver no GPU is listed", soname,
                 reason != nullptr ? reason : "unknown reason");
    return nullptr;
  }

  nvml_abi::Api api;
  std::string missing;
  auto resolve = [&](auto& slot, const char* symbol, bool required) {
    void* address = dlsym(library, symbol);
    if (address == nullptr && required && missing.empty()) missing = symbol;
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(address);
  };
  resolve(api.init, "nvmlInit_v2", true);
  resolve(api.shutdown, "nvmlShutdown", true);
  resolve(api.getCount, "nvmlDeviceGetCount_v2", true);
  resolve(api.getHandleByIndex, "nvmlDeviceGetHandleByIndex_v2", true);
  resolve(api.getName, "nvmlDeviceGetName", true);
  resolve(api.getMemoryInfo, "nvmlDeviceGetMemoryInfo", true);
  resolve(api.getUtilizationRates, "nvmlDeviceGetUtilizationRates", true);
  resolve(api.getPciInfoV3, "nvmlDeviceGetPciInfo_v3", false);
  resolve(api.getPciInfoV2, "nvmlDeviceGetPciInfo_v2", false);
  resolve(api.getDriverVersion, "nvmlSystemGetDriverVersion", true);
  resolve(api.errorString, "nvmlErrorString", false);
  resolve(api.getTemperature, "nvmlDeviceGetTemperature", false);
  resolve(api.getPowerUsage, "nvmlDeviceGetPowerUsage", false);
  if (missing.empty() && api.getPciInfoV3 == nullptr && api.getPciInfoV2 == nullptr) {
    missing = "nvmlDeviceGetPciInfo_v3";
  }
  if (!missing.empty()) {
    dlclose(library);
    why = format("no NVML: {} has no {}; it is not NVML, or the NVIDIA driver is too old (450 or newer is needed)",
                 soname, missing);
    return nullptr;
  }
  return fromApi(api, library, error);
}

std::unique_ptr<Nvml> Nvml::fromApi(const nvml_abi::Api& api, void* library, std::string* error) {
  std::string ignored;
  std::string& why = error != nullptr ? *error : ignored;
  // Owned from here, so every early return closes the library (and shuts NVML down once started).
  std::unique_ptr<Nvml> nvml(new Nvml(api, library));
  if (api.init == nullptr || api.shutdown == nullptr || api.getCount == nullptr || api.getHandleByIndex == nullptr ||
      api.getName == nullptr || api.getMemoryInfo == nullptr || api.getUtilizationRates == nullptr ||
      (api.getPciInfoV3 == nullptr && api.getPciInfoV2 == nullptr) || api.getDriverVersion == nullptr) {
    why = "no NVML: an NVML entry point is missing";
    return nullptr;
  }

  if (const auto code = api.init(); code != nvml_abi::kSuccess) {
    why = format("no NVML: the NVIDIA driver's NVML failed to start: {}", nvml->errorText(code));
    return nullptr;
  }
  nvml->m_initialised = true;

  unsigned int count = 0;
  if (const auto code = api.getCount(&count); code != nvml_abi::kSuccess) {
    why = format("no NVML: NVML could not count the GPUs: {}", nvml->errorText(code));
    return nullptr;
  }

  char version[nvml_abi::kDriverVersionBufferSize] = {};
  if (api.getDriverVersion(version, sizeof version) == nvml_abi::kSuccess) {
    nvml->m_driverVersion = fromBuffer(version, sizeof version);
  }

  // Entries stay at their NVML index even when a GPU refuses us, so index i is always NVML's i.
  for (unsigned int i = 0; i < count; ++i) {
    DeviceStatic info;
    nvml_abi::Device handle = nullptr;
    if (const auto code = api.getHandleByIndex(i, &handle); code != nvml_abi::kSuccess) {
      info.error = nvml->errorText(code);
      handle = nullptr;
    } else {
      char name[nvml_abi::kNameBufferSize] = {};
      if (api.getName(handle, name, sizeof name) == nvml_abi::kSuccess) info.name = fromBuffer(name, sizeof name);
      if (info.name.empty()) info.name = "NVIDIA GPU";
      nvml_abi::Memory memory{};
      if (api.getMemoryInfo(handle, &memory) == nvml_abi::kSuccess) {
        info.memoryTotalMb = static_cast<int64_t>(memory.total / kBytesPerMb);
      }
      nvml_abi::PciInfo pci{};
      if (api.getPciInfoV3 != nullptr && api.getPciInfoV3(handle, &pci) == nvml_abi::kSuccess) {
        info.pciBusId = fromBuffer(pci.busId, sizeof pci.busId);
      } else if (api.getPciInfoV2 != nullptr) {
        pci = {};
        if (api.getPciInfoV2(handle, &pci) == nvml_abi::kSuccess) {
          info.pciBusId = fromBuffer(pci.busIdLegacy, sizeof pci.busIdLegacy);
        }
      }
    }
    nvml->m_handles.push_back(handle);
    nvml->m_devices.push_back(std::move(info));
  }
  if (error != nullptr) error->clear();
  return nvml;
}

Nvml::~Nvml() {
  if (m_initialised && m_api.shutdown != nullptr) m_api.shutdown();
  if (m_library != nullptr) dlclose(m_library);
}

std::optional<Nvml::DeviceStatic> Nvml::deviceStatic(int index) const {
  if (index < 0 || index >= deviceCount()) return std::nullopt;
  return m_devices[static_cast<size_t>(index)];
}

std::optional<Nvml::Sample> Nvml::sample(int index) const {
  if (index < 0 || index >= deviceCount()) return std::nullopt;
  const nvml_abi::Device handle = m_handles[static_cast<size_t>(index)];
  if (handle == nullptr) return std::nullopt;
  nvml_abi::Utilization utilization{};
  nvml_abi::Memory memory{};
  if (m_api.getUtilizationRates(handle, &utilization) != nvml_abi::kSuccess) return std::nullopt;
  if (m_api.getMemoryInfo(handle, &memory) != nvml_abi::kSuccess) return std::nullopt;
  Sample sample;
  sample.utilization = static_cast<double>(utilization.gpu) / 100.0;
  sample.memoryUsedMb = static_cast<int64_t>(memory.used / kBytesPerMb);
  sample.memoryTotalMb = static_cast<int64_t>(memory.total / kBytesPerMb);
  unsigned int value = 0;
  if (m_api.getTemperature && m_api.getTemperature(handle, 0, &value) == nvml_abi::kSuccess) sample.temperatureC = value;
  if (m_api.getPowerUsage && m_api.getPowerUsage(handle, &value) == nvml_abi::kSuccess) sample.powerW = value / 1000.0;
  return sample;
}

int Nvml::indexOfPciBusId(const std::string& busId) const {
  const auto wanted = splitBusId(busId);
  if (!wanted) return -1;
  for (int i = 0; i < deviceCount(); ++i) {
    const auto have = splitBusId(m_devices[static_cast<size_t>(i)].pciBusId);
    if (have && *have == *wanted) return i;
  }
  return -1;
}

}  // namespace netsmith
