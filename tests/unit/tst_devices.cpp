// Device discovery, the NVML loader (against missing, wrong and fake libraries) and the /proc
// figures a CPU worker's utilization and memory come from.
// netsmith-test-labels: asan

#include <QtTest>

#include <sched.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "engine/core/error.h"
#include "engine/monitor/devices.h"
#include "engine/monitor/nvml.h"
#include "engine/monitor/process_stats.h"

using namespace netsmith;

namespace {

double ownThreadClock() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Burns CPU until this thread has used `seconds` of it, however busy the machine is.
void spinFor(double seconds) {
  const double start = ownThreadClock();
  volatile uint64_t sink = 0;
  while (ownThreadClock() - start < seconds) {
    for (int i = 0; i < 10000; ++i) sink = sink + static_cast<uint64_t>(i);
  }
}

// ---- A fake NVML: two GPUs, the second without _v3 PCI info answers; counters for init/shutdown.
struct FakeNvml {
  static inline int inits = 0;
  static inline int shutdowns = 0;
  static inline nvml_abi::Return initResult = nvml_abi::kSuccess;
  static inline unsigned count = 2;
  static inline int refusedIndex = -1;

  static nvml_abi::Device handle(unsigned i) { return reinterpret_cast<nvml_abi::Device>(uintptr_t{i} + 1); }
  static unsigned indexOf(nvml_abi::Device d) { return static_cast<unsigned>(reinterpret_cast<uintptr_t>(d) - 1); }

  static nvml_abi::Return init() {
    ++inits;
    return initResult;
  }
  static nvml_abi::Return shutdown() {
    ++shutdowns;
    return 0;
  }
  static nvml_abi::Return getCount(unsigned* n) {
    *n = count;
    return 0;
  }
  static nvml_abi::Return getHandle(unsigned i, nvml_abi::Device* d) {
    if (static_cast<int>(i) == refusedIndex) return 4;  // NVML_ERROR_NO_PERMISSION
    *d = handle(i);
    return 0;
  }
  static nvml_abi::Return getName(nvml_abi::Device d, char* name, unsigned length) {
    std::snprintf(name, length, "Fake GPU %u", indexOf(d));
    return 0;
  }
  static nvml_abi::Return getMemory(nvml_abi::Device d, nvml_abi::Memory* m) {
    m->total = (uint64_t{80} << 30) + (uint64_t{indexOf(d)} << 30);  // 80 GiB, 81 GiB
    m->used = uint64_t{1500} << 20;
    m->free = m->total - m->used;
    return 0;
  }
  static nvml_abi::Return getUtilization(nvml_abi::Device d, nvml_abi::Utilization* u) {
    u->gpu = 42 + indexOf(d);
    u->memory = 7;
    return 0;
  }
  // Only GPU 0 answers _v3; GPU 1 behaves like an old driver, so the _v2 fallback is exercised.
  static nvml_abi::Return getPciV3(nvml_abi::Device d, nvml_abi::PciInfo* p) {
    if (indexOf(d) != 0) return 3;  // NVML_ERROR_NOT_SUPPORTED
    std::strcpy(p->busIdLegacy, "0000:19:00.0");
    std::strcpy(p->busId, "00000000:19:00.0");
    return 0;
  }
  static nvml_abi::Return getPciV2(nvml_abi::Device d, nvml_abi::PciInfo* p) {
    std::snprintf(p->busIdLegacy, sizeof p->busIdLegacy, "0000:%02X:00.0", 0x3B + indexOf(d));
    return 0;
  }
  static nvml_abi::Return getDriver(char* version, unsigned length) {
    std::snprintf(version, length, "580.65.06");
    return 0;
  }
  static const char* errorString(nvml_abi::Return code) { return code == 9 ? "Driver Not Loaded" : "Fake Error"; }

  static nvml_abi::Api api() {
    inits = shutdowns = 0;
    nvml_abi::Api a;
    a.init = init;
    a.shutdown = shutdown;
    a.getCount = getCount;
    a.getHandleByIndex = getHandle;
    a.getName = getName;
    a.getMemoryInfo = getMemory;
    a.getUtilizationRates = getUtilization;
    a.getPciInfoV3 = getPciV3;
    a.getPciInfoV2 = getPciV2;
    a.getDriverVersion = getDriver;
    a.errorString = errorString;
    return a;
  }
  static void reset() {
    initResult = nvml_abi::kSuccess;
    count = 2;
    refusedIndex = -1;
  }
};

int affinityCount() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
  return CPU_COUNT(&set);
}

}  // namespace

class TestDevices : public QObject {
  Q_OBJECT

 private slots:
  void init() { FakeNvml::reset(); }

  void cpuWorkersOnePerHardwareThread() {
    std::string note;
    const auto devices = discoverDevices(&note);
    const int n = availableCpuThreads();
    QVERIFY(n >= 1);
    if (affinityCount() > 0) QCOMPARE(n, affinityCount());
    QVERIFY(static_cast<int>(devices.size()) >= n);
    for (int i = 0; i < n; ++i) {
      const DeviceInfo& d = devices[static_cast<size_t>(i)];
      QCOMPARE(d.id, format("cpu:{}", i));
      QCOMPARE(d.kind, std::string("cpu"));
      QVERIFY(!d.name.empty());
      QVERIFY(d.memoryMb > 0);
      QCOMPARE(d.cores, n);
      QVERIFY(d.pciBusId.empty());
    }
    for (size_t i = static_cast<size_t>(n); i < devices.size(); ++i) QCOMPARE(devices[i].kind, std::string("cuda"));
  }

  // Without a driver (this machine) there is no GPU and the note says why; on a GPU host the
  // list matches what NVML counts.
  void gpusMatchNvml() {
    std::string note;
    const auto devices = discoverDevices(&note);
    const auto gpus = std::count_if(devices.begin(), devices.end(), [](const DeviceInfo& d) { return d.kind == "cuda"; });
    if (Nvml* nvml = Nvml::instance()) {
      QCOMPARE(static_cast<int>(gpus), nvml->deviceCount());
      for (const DeviceInfo& d : devices) {
        if (d.kind != "cuda") continue;
        QVERIFY(!d.name.empty());
        QVERIFY(d.memoryMb > 0);
        QVERIFY(!d.pciBusId.empty());
        QVERIFY(!d.driver.empty());
      }
      if (nvml->deviceCount() > 0) {
        const auto sample = nvml->sample(0);
        QVERIFY(sample.has_value());
        QVERIFY(sample->utilization >= 0 && sample->utilization <= 1);
        QVERIFY(sample->memoryTotalMb > 0);
      }
    } else {
      QCOMPARE(static_cast<int>(gpus), 0);
      QVERIFY(!note.empty());
      QCOMPARE(note, Nvml::instanceError());
      QVERIFY2(note.find("no NVML") != std::string::npos, note.c_str());
    }
  }

  void missingLibraryIsCleanNoNvml() {
    std::string error;
    const auto nvml = Nvml::load("/nonexistent/libnvidia-ml.so.1", &error);
    QVERIFY(nvml == nullptr);
    QVERIFY2(error.find("no NVML") != std::string::npos, error.c_str());
    QVERIFY2(error.find("/nonexistent/libnvidia-ml.so.1") != std::string::npos, error.c_str());

    std::string note;
    const auto devices = discoverDevices(nullptr, error, &note);
    QCOMPARE(note, error);
    QVERIFY(!devices.empty());
    for (const DeviceInfo& d : devices) QCOMPARE(d.kind, std::string("cpu"));
  }

  // A library that loads but is not NVML (libm) names the first entry point it lacks.
  void wrongLibraryNamesMissingSymbol() {
    std::string error;
    const auto nvml = Nvml::load("libm.so.6", &error);
    QVERIFY(nvml == nullptr);
    QVERIFY2(error.find("nvmlInit_v2") != std::string::npos, error.c_str());
    QVERIFY(Nvml::load("/nonexistent/x.so", nullptr) == nullptr);  // a null error pointer is allowed
  }

  void fakeNvmlListsGpus() {
    std::string error = "stale";
    auto nvml = Nvml::fromApi(FakeNvml::api(), nullptr, &error);
    QVERIFY2(nvml != nullptr, error.c_str());
    QVERIFY(error.empty());
    QCOMPARE(FakeNvml::inits, 1);
    QCOMPARE(nvml->deviceCount(), 2);
    QCOMPARE(nvml->driverVersion(), std::string("580.65.06"));

    std::string note = "stale";
    const auto devices = discoverDevices(nvml.get(), "", &note);
    QVERIFY2(note.empty() || note.find("CUDA_VISIBLE_DEVICES") != std::string::npos, note.c_str());
    const int n = availableCpuThreads();
    QCOMPARE(static_cast<int>(devices.size()), n + 2);
    const DeviceInfo& gpu0 = devices[static_cast<size_t>(n)];
    const DeviceInfo& gpu1 = devices[static_cast<size_t>(n + 1)];
    QCOMPARE(gpu0.id, std::string("cuda:0"));
    QCOMPARE(gpu0.kind, std::string("cuda"));
    QCOMPARE(gpu0.name, std::string("Fake GPU 0"));
    QCOMPARE(gpu0.memoryMb, int64_t{80 * 1024});
    QCOMPARE(gpu0.pciBusId, std::string("00000000:19:00.0"));
    QCOMPARE(gpu0.driver, std::string("580.65.06"));
    QCOMPARE(gpu0.cores, 0);
    QCOMPARE(gpu1.id, std::string("cuda:1"));
    QCOMPARE(gpu1.memoryMb, int64_t{81 * 1024});
    QCOMPARE(gpu1.pciBusId, std::string("0000:3C:00.0"));  // from the _v2 fallback

    const auto sample = nvml->sample(1);
    QVERIFY(sample.has_value());
    QCOMPARE(sample->utilization, 0.43);
    QCOMPARE(sample->memoryUsedMb, int64_t{1500});
    QCOMPARE(sample->memoryTotalMb, int64_t{81 * 1024});
    QVERIFY(!nvml->sample(2).has_value());
    QVERIFY(!nvml->sample(-1).has_value());

    // CUDA spells bus ids with a 4-digit domain and may use another case.
    QCOMPARE(nvml->indexOfPciBusId("0000:19:00.0"), 0);
    QCOMPARE(nvml->indexOfPciBusId("00000000:3c:00.0"), 1);
    QCOMPARE(nvml->indexOfPciBusId("0000:3C:00.0"), 1);
    QCOMPARE(nvml->indexOfPciBusId("0000:20:00.0"), -1);
    QCOMPARE(nvml->indexOfPciBusId("garbage"), -1);

    nvml.reset();
    QCOMPARE(FakeNvml::shutdowns, 1);
  }

  void fakeNvmlInitFailure() {
    FakeNvml::initResult = 9;  // NVML_ERROR_DRIVER_NOT_LOADED
    std::string error;
    QVERIFY(Nvml::fromApi(FakeNvml::api(), nullptr, &error) == nullptr);
    QVERIFY2(error.find("no NVML") != std::string::npos, error.c_str());
    QVERIFY2(error.find("Driver Not Loaded") != std::string::npos, error.c_str());
    QCOMPARE(FakeNvml::shutdowns, 0);  // never started, so never shut down

    nvml_abi::Api incomplete = FakeNvml::api();
    incomplete.getName = nullptr;
    QVERIFY(Nvml::fromApi(incomplete, nullptr, &error) == nullptr);
    QVERIFY(!error.empty());
    QCOMPARE(FakeNvml::inits, 0);
  }

  // A GPU NVML refuses keeps its index (cuda:1 stays cuda:1) and is named in the note.
  void fakeNvmlRefusedGpu() {
    FakeNvml::count = 3;
    FakeNvml::refusedIndex = 1;
    std::string error;
    auto nvml = Nvml::fromApi(FakeNvml::api(), nullptr, &error);
    QVERIFY(nvml != nullptr);
    QCOMPARE(nvml->deviceCount(), 3);
    QVERIFY(!nvml->sample(1).has_value());
    QVERIFY(nvml->sample(2).has_value());
    std::string note;
    const auto devices = discoverDevices(nvml.get(), "", &note);
    std::vector<std::string> ids;
    for (const DeviceInfo& d : devices)
      if (d.kind == "cuda") ids.push_back(d.id);
    QCOMPARE(ids, (std::vector<std::string>{"cuda:0", "cuda:2"}));
    QVERIFY2(note.find("cuda:1") != std::string::npos, note.c_str());
    QVERIFY2(note.find("Fake Error") != std::string::npos, note.c_str());
  }

  void fakeNvmlNoGpus() {
    FakeNvml::count = 0;
    std::string error;
    auto nvml = Nvml::fromApi(FakeNvml::api(), nullptr, &error);
    QVERIFY(nvml != nullptr);
    std::string note;
    const auto devices = discoverDevices(nvml.get(), "", &note);
    QCOMPARE(static_cast<int>(devices.size()), availableCpuThreads());
    QVERIFY2(note.find("no GPUs") != std::string::npos, note.c_str());
  }

  void residentMemoryGrows() {
    const double before = processResidentMb();
    QVERIFY(before > 0);
    constexpr size_t kBytes = size_t{200} << 20;
    std::vector<unsigned char> block(kBytes);
    for (size_t i = 0; i < kBytes; i += 4096) block[i] = static_cast<unsigned char>(i >> 12);
    const double after = processResidentMb();
    unsigned sum = 0;
    for (size_t i = 0; i < kBytes; i += 1 << 20) sum += block[i];
    QVERIFY(sum < UINT32_MAX);  // keeps the block observable
    QVERIFY2(after - before >= 180.0, format("resident {} MB -> {} MB", before, after).c_str());
    QVERIFY2(after - before <= 400.0, format("resident {} MB -> {} MB", before, after).c_str());
  }

  void busyThreadCpuTime() {
    std::atomic<pid_t> tid{0};
    std::atomic<int> phase{0};  // 0: start, 1: go spin, 2: spun, 3: exit
    double selfDelta = -1;
    std::thread worker([&] {
      tid = currentThreadId();
      while (phase.load() != 1) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      const double selfBefore = threadCpuSeconds(currentThreadId());
      spinFor(0.4);
      selfDelta = threadCpuSeconds(currentThreadId()) - selfBefore;
      phase = 2;
      while (phase.load() != 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    while (tid.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const double processBefore = processCpuSeconds();
    const double before = threadCpuSeconds(tid);
    QVERIFY(before >= 0);
    phase = 1;
    while (phase.load() != 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const double after = threadCpuSeconds(tid);
    const double processAfter = processCpuSeconds();
    phase = 3;
    worker.join();

    const double delta = after - before;
    QVERIFY2(delta >= 0.3 && delta <= 0.7, format("busy thread used {} s of CPU by /proc", delta).c_str());
    QVERIFY2(selfDelta >= 0.4 && selfDelta <= 0.5, format("busy thread's own clock: {} s", selfDelta).c_str());
    QVERIFY2(processAfter - processBefore >= 0.35, format("process CPU {} -> {}", processBefore, processAfter).c_str());
    QVERIFY(threadCpuSeconds(tid.load()) < 0);  // the thread is gone
  }

  void idleThreadCpuTime() {
    std::atomic<pid_t> tid{0};
    std::atomic<bool> stop{false};
    std::thread sleeper([&] {
      tid = currentThreadId();
      while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    });
    while (tid.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const double before = threadCpuSeconds(tid);
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    const double after = threadCpuSeconds(tid);
    stop = true;
    sleeper.join();
    QVERIFY(before >= 0);
    QVERIFY2(after - before < 0.05, format("sleeping thread used {} s", after - before).c_str());
  }

  void jsonShape() {
    std::string note;
    auto devices = discoverDevices(&note);
    DeviceInfo gpu;
    gpu.id = "cuda:0";
    gpu.kind = "cuda";
    gpu.name = "NVIDIA H100 80GB HBM3";
    gpu.memoryMb = 81559;
    gpu.pciBusId = "00000000:19:00.0";
    gpu.driver = "580.65.06";
    devices.push_back(gpu);

    const Json json = devicesToJson(devices, "a note");
    QVERIFY(json.is_object());
    QCOMPARE(json.size(), size_t{2});
    QVERIFY(json["devices"].is_array());
    QCOMPARE(json["devices"].size(), devices.size());
    QCOMPARE(json["gpu_note"].get<std::string>(), std::string("a note"));
    const Json& cpu0 = json["devices"][0];
    QCOMPARE(cpu0["id"].get<std::string>(), std::string("cpu:0"));
    QCOMPARE(cpu0["kind"].get<std::string>(), std::string("cpu"));
    QVERIFY(cpu0["name"].is_string());
    QVERIFY(cpu0["memory_mb"].is_number_integer() && cpu0["memory_mb"].get<int64_t>() > 0);
    QCOMPARE(cpu0["cores"].get<int>(), availableCpuThreads());
    QVERIFY(!cpu0.contains("pci_bus_id"));
    const Json& g = json["devices"].back();
    QCOMPARE(g["id"].get<std::string>(), std::string("cuda:0"));
    QCOMPARE(g["memory_mb"].get<int64_t>(), int64_t{81559});
    QCOMPARE(g["pci_bus_id"].get<std::string>(), std::string("00000000:19:00.0"));
    QCOMPARE(g["driver"].get<std::string>(), std::string("580.65.06"));
    QVERIFY(!g.contains("cores"));

    std::string noteBack;
    QVERIFY(devicesFromJson(Json::parse(json.dump()), &noteBack) == devices);
    QCOMPARE(noteBack, std::string("a note"));
  }

  void jsonErrorsNamePath() {
    const auto expectError = [](const char* text, const char* fragment) {
      try {
        devicesFromJson(Json::parse(text));
      } catch (const Error& e) {
        QVERIFY2(std::string(e.what()).find(fragment) != std::string::npos, e.what());
        return;
      }
      QFAIL(text);
    };
    expectError(R"({"devices":[{"id":"cpu:0","kind":"cpu","name":"x","memory_mb":1,"cores":2},{"id":"cpu:1"}]})",
                "devices[1].kind: missing");
    expectError(R"({"devices":[{"id":"cpu:0","kind":"cpu","name":"x","memory_mb":"1","cores":2}]})",
                "devices[0].memory_mb: expected an integer");
    expectError(R"({"devices":[{"id":"tpu:0","kind":"tpu","name":"x","memory_mb":1}]})", "devices[0].kind");
    expectError(R"([1])", "expected an object");
  }

  void textTable() {
    std::string note;
    auto devices = discoverDevices(nullptr, "no NVML: test", &note);
    DeviceInfo gpu;
    gpu.id = "cuda:0";
    gpu.kind = "cuda";
    gpu.name = "NVIDIA H100 80GB HBM3";
    gpu.memoryMb = 81559;
    gpu.pciBusId = "00000000:19:00.0";
    gpu.driver = "580.65.06";
    devices.push_back(gpu);
    const std::string text = devicesToText(devices, note);
    const int n = availableCpuThreads();
    const std::string cpuIds = n > 1 ? format("cpu:0..cpu:{}", n - 1) : std::string("cpu:0");
    QVERIFY2(text.find(cpuIds) != std::string::npos, text.c_str());
    QVERIFY2(text.find(devices[0].name) != std::string::npos, text.c_str());
    QVERIFY2(text.find("NVIDIA H100 80GB HBM3") != std::string::npos, text.c_str());
    QVERIFY2(text.find("81559 MB") != std::string::npos, text.c_str());
    QVERIFY2(text.find("GPUs: no NVML: test") != std::string::npos, text.c_str());
    QCOMPARE(std::count(text.begin(), text.end(), '\n'), 4);  // header, CPU row, GPU row, note
  }
};

QTEST_GUILESS_MAIN(TestDevices)
#include "tst_devices.moc"
