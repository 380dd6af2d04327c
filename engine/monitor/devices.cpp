#include "engine/monitor/devices.h"

#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "engine/core/error.h"
#include "engine/monitor/nvml.h"

namespace netsmith {

namespace {

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

// x86 says "model name"; ARM kernels say "Model" (boards) or only "CPU part", so fall back to the
// machine type, which is never empty.
std::string cpuModelName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  std::string model;
  while (std::getline(cpuinfo, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon));
    const std::string value = trim(line.substr(colon + 1));
    if (value.empty()) continue;
    if (key == "model name") return value;
    if (key == "Model" && model.empty()) model = value;
  }
  if (!model.empty()) return model;
  utsname machine{};
  if (uname(&machine) == 0 && machine.machine[0] != '\0') return std::string(machine.machine) + " CPU";
  return "CPU";
}

int64_t machineMemoryMb() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  int64_t kb = 0;
  std::string unit;
  while (meminfo >> key >> kb >> unit) {
    if (key == "MemTotal:") return kb / 1024;
  }
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long pageSize = sysconf(_SC_PAGESIZE);
  if (pages > 0 && pageSize > 0) return static_cast<int64_t>(pages) * pageSize / (1024 * 1024);
  return 0;
}

void appendNote(std::string& note, const std::string& text) {
  if (!note.empty()) note += "; ";
  note += text;
}

const Json& member(const Json& object, const char* key, const std::string& path) {
  NS_CHECK(object.contains(key), "{}.{}: missing", path, key);
  return object.at(key);
}

std::string stringMember(const Json& object, const char* key, const std::string& path) {
  const Json& value = member(object, key, path);
  NS_CHECK(value.is_string(), "{}.{}: expected a string, got {}", path, key, value.dump());
  return value.get<std::string>();
}

int64_t integerMember(const Json& object, const char* key, const std::string& path) {
  const Json& value = member(object, key, path);
  NS_CHECK(value.is_number_integer(), "{}.{}: expected an integer, got {}", path, key, value.dump());
  return value.get<int64_t>();
}

}  // namespace

int availableCpuThreads() {
  // A fixed cpu_set_t holds 1024 CPUs and sched_getaffinity fails with EINVAL on larger machines,
  // so grow the set until the kernel's mask fits.
  for (int capacity = 1024; capacity <= (1 << 20); capacity *= 2) {
    cpu_set_t* set = CPU_ALLOC(capacity);
    if (set == nullptr) break;
    const size_t bytes = CPU_ALLOC_SIZE(capacity);
    CPU_ZERO_S(bytes, set);
    if (sched_getaffinity(0, bytes, set) == 0) {
      const int count = CPU_COUNT_S(bytes, set);
      CPU_FREE(set);
      return std::max(count, 1);
    }
    const int failure = errno;
    CPU_FREE(set);
    if (failure != EINVAL) break;
  }
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<int>(online) : 1;
}

std::vector<DeviceInfo> discoverDevices(std::string* gpuNote) {
  return discoverDevices(Nvml::instance(), Nvml::instanceError(), gpuNote);
}

namespace {

// Every GPU NVML reports, as cuda:<NVML index>: a build without the CUDA backend, or a caller
// that did not ask the runtime.
void appendNvmlGpus(const Nvml& nvml, std::vector<DeviceInfo>& devices, std::string& note) {
  for (int i = 0; i < nvml.deviceCount(); ++i) {
    const auto info = nvml.deviceStatic(i);
    if (!info) continue;
    if (!info->error.empty()) {
      appendNote(note, format("cuda:{} left out: NVML refused it: {}", i, info->error));
      continue;
    }
    DeviceInfo gpu;
    gpu.id = format("cuda:{}", i);
    gpu.kind = "cuda";
    gpu.name = info->name;
    gpu.memoryMb = info->memoryTotalMb;
    gpu.pciBusId = info->pciBusId;
    gpu.driver = nvml.driverVersion();
    devices.push_back(std::move(gpu));
  }
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES"); visible != nullptr && nvml.deviceCount() > 0)
    appendNote(note, format("CUDA_VISIBLE_DEVICES={} is set, but this list numbers all GPUs in NVML's "
                            "(PCI bus) order",
                            visible));
}

// The CUDA runtime's devices as cuda:<ordinal>, with NVML's name and memory where NVML has the
// same PCI bus id (the runtime's own otherwise).
void appendCudaGpus(const Nvml* nvml, const std::vector<NumberedDevice>& cudaDevices, std::vector<DeviceInfo>& devices,
                    std::string& note) {
  std::vector<std::string> renumbered;
  for (size_t ordinal = 0; ordinal < cudaDevices.size(); ++ordinal) {
    const NumberedDevice& d = cudaDevices[ordinal];
    DeviceInfo gpu;
    gpu.id = format("cuda:{}", ordinal);
    gpu.kind = "cuda";
    gpu.name = d.name;
    gpu.memoryMb = d.memoryMb;
    gpu.pciBusId = d.pciBusId;
    if (nvml) {
      gpu.driver = nvml->driverVersion();
      const int index = nvml->indexOfPciBusId(d.pciBusId);
      const auto info = index >= 0 ? nvml->deviceStatic(index) : std::nullopt;
      if (info && info->error.empty()) {
        gpu.name = info->name;
        gpu.memoryMb = info->memoryTotalMb;
        gpu.pciBusId = info->pciBusId;
      }
      if (index != static_cast<int>(ordinal))
        renumbered.push_back(index >= 0 ? format("{} is nvidia-smi's {}", gpu.id, index)
                                        : format("{} ({}) is not in NVML's list", gpu.id, d.pciBusId));
    }
    devices.push_back(std::move(gpu));
  }
  if (!renumbered.empty()) {
    std::string list;
    for (size_t i = 0; i < renumbered.size(); ++i) list += (i ? ", " : "") + renumbered[i];
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    appendNote(note, visible ? format("CUDA_VISIBLE_DEVICES={}: {}", visible, list) : list);
  }
}

}  // namespace

std::vector<DeviceInfo> discoverDevices(const Nvml* nvml, const std::string& nvmlError, std::string* gpuNote,
                                        const std::optional<std::vector<NumberedDevice>>& cudaDevices,
                                        const std::string& cudaError) {
  std::vector<DeviceInfo> devices;
  const int cores = availableCpuThreads();
  const std::string cpuName = cpuModelName();
  const int64_t memoryMb = machineMemoryMb();
  for (int i = 0; i < cores; ++i) {
    DeviceInfo cpu;
    cpu.id = format("cpu:{}", i);
    cpu.kind = "cpu";
    cpu.name = cpuName;
    cpu.memoryMb = memoryMb;
    cpu.cores = cores;
    devices.push_back(std::move(cpu));
  }

  std::string note;
  if (cudaDevices && !cudaDevices->empty()) {
    appendCudaGpus(nvml, *cudaDevices, devices, note);
  } else if (nvml == nullptr) {
    note = nvmlError.empty() ? "no NVML: GPUs cannot be listed" : nvmlError;
  } else if (nvml->deviceCount() == 0) {
    appendNote(note, format("NVML (driver {}) reports no GPUs", nvml->driverVersion().empty()
                                                                   ? std::string("of unknown version")
                                                                   : nvml->driverVersion()));
  } else if (cudaDevices) {
    // NVML sees GPUs the CUDA runtime does not (CUDA_VISIBLE_DEVICES, a driver without CUDA).
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    appendNote(note, format("NVML reports {} GPU(s) but training can use none: {}{}", nvml->deviceCount(),
                            cudaError.empty() ? "the CUDA runtime sees no GPU" : cudaError,
                            visible ? format(" (CUDA_VISIBLE_DEVICES={})", visible) : ""));
  } else {
    appendNvmlGpus(*nvml, devices, note);
  }
  if (gpuNote != nullptr) *gpuNote = note;
  return devices;
}

Json devicesToJson(const std::vector<DeviceInfo>& devices, const std::string& gpuNote) {
  Json list = Json::array();
  for (const DeviceInfo& device : devices) {
    Json entry = {{"id", device.id}, {"kind", device.kind}, {"name", device.name}, {"memory_mb", device.memoryMb}};
    if (device.kind == "cpu") {
      entry["cores"] = device.cores;
    } else {
      entry["pci_bus_id"] = device.pciBusId;
      entry["driver"] = device.driver;
    }
    list.push_back(std::move(entry));
  }
  return Json{{"devices", std::move(list)}, {"gpu_note", gpuNote}};
}

std::vector<DeviceInfo> devicesFromJson(const Json& json, std::string* gpuNote) {
  NS_CHECK(json.is_object(), "devices: expected an object with \"devices\" and \"gpu_note\", got {}", json.dump());
  const Json& list = member(json, "devices", "devices JSON");
  NS_CHECK(list.is_array(), "devices: expected an array, got {}", list.dump());
  std::vector<DeviceInfo> devices;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = format("devices[{}]", i);
    const Json& entry = list[i];
    NS_CHECK(entry.is_object(), "{}: expected an object, got {}", path, entry.dump());
    DeviceInfo device;
    device.id = stringMember(entry, "id", path);
    device.kind = stringMember(entry, "kind", path);
    device.name = stringMember(entry, "name", path);
    device.memoryMb = integerMember(entry, "memory_mb", path);
    if (device.kind == "cpu") {
      device.cores = static_cast<int>(integerMember(entry, "cores", path));
    } else if (device.kind == "cuda") {
      device.pciBusId = stringMember(entry, "pci_bus_id", path);
      device.driver = stringMember(entry, "driver", path);
    } else {
      NS_THROW("{}.kind: expected \"cpu\" or \"cuda\", got \"{}\"", path, device.kind);
    }
    devices.push_back(std::move(device));
  }
  if (gpuNote != nullptr) {
    *gpuNote = json.contains("gpu_note") && json["gpu_note"].is_string() ? json["gpu_note"].get<std::string>() : "";
  }
  return devices;
}

std::string devicesToText(const std::vector<DeviceInfo>& devices, const std::string& gpuNote) {
  struct Row {
    std::string id, kind, name, memory, details;
  };
  std::vector<Row> rows;
  for (size_t i = 0; i < devices.size();) {
    const DeviceInfo& device = devices[i];
    size_t end = i + 1;
    if (device.kind == "cpu") {
      while (end < devices.size() && devices[end].kind == "cpu" && devices[end].name == device.name) ++end;
    }
    Row row;
    row.id = end - i > 1 ? format("{}..{}", device.id, devices[end - 1].id) : device.id;
    row.kind = device.kind;
    row.name = device.name;
    row.memory = format("{} MB", device.memoryMb);
    row.details = device.kind == "cpu"
                      ? format("{} worker{}, {} hardware thread{}", end - i, end - i == 1 ? "" : "s", device.cores,
                               device.cores == 1 ? "" : "s")
                      : format("PCI {}, driver {}", device.pciBusId.empty() ? "?" : device.pciBusId,
                               device.driver.empty() ? "?" : device.driver);
    rows.push_back(std::move(row));
    i = end;
  }

  Row header{"ID", "KIND", "NAME", "MEMORY", "DETAILS"};
  size_t widths[4] = {header.id.size(), header.kind.size(), header.name.size(), header.memory.size()};
  for (const Row& row : rows) {
    widths[0] = std::max(widths[0], row.id.size());
    widths[1] = std::max(widths[1], row.kind.size());
    widths[2] = std::max(widths[2], row.name.size());
    widths[3] = std::max(widths[3], row.memory.size());
  }
  std::ostringstream out;
  auto print = [&](const Row& row) {
    out << std::left << std::setw(static_cast<int>(widths[0])) << row.id << "  " << std::setw(static_cast<int>(widths[1]))
        << row.kind << "  " << std::setw(static_cast<int>(widths[2])) << row.name << "  " << std::right
        << std::setw(static_cast<int>(widths[3])) << row.memory << "  " << row.details << '\n';
  };
  print(header);
  for (const Row& row : rows) print(row);
  if (!gpuNote.empty()) out << "GPUs: " << gpuNote << '\n';
  return out.str();
}

}  // namespace netsmith
