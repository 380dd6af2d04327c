// UtilizationSampler (Note [Sensors off the step]): a GPU's NVML figures come from a thread of
// their own — a worker asking for busy seconds or sensors never waits for the driver, even while
// an NVML query hangs — and busy seconds integrate the utilization over time as before.
// netsmith-test-labels: tsan
#include <QtTest>

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>

#include "engine/monitor/utilization_sampler.h"

using namespace netsmith;
using namespace std::chrono_literals;

namespace {

// One fake GPU at a fixed utilization; its utilization query can be held until released.
struct SlowNvml {
  static inline std::mutex mutex;
  static inline std::condition_variable released;
  static inline bool hold = false;
  static inline unsigned utilizationPercent = 50;

  static nvml_abi::Return ok() { return nvml_abi::kSuccess; }
  static nvml_abi::Return count(unsigned* n) {
    *n = 1;
    return nvml_abi::kSuccess;
  }
  static nvml_abi::Return handle(unsigned, nvml_abi::Device* d) {
    *d = reinterpret_cast<nvml_abi::Device>(uintptr_t{1});
    return nvml_abi::kSuccess;
  }
  static nvml_abi::Return name(nvml_abi::Device, char* out, unsigned length) {
    std::snprintf(out, length, "Slow GPU");
    return nvml_abi::kSuccess;
  }
  static nvml_abi::Return memory(nvml_abi::Device, nvml_abi::Memory* m) {
    m->total = uint64_t{16} << 30;
    m->used = uint64_t{1} << 30;
    m->free = m->total - m->used;
    return nvml_abi::kSuccess;
  }
  static nvml_abi::Return utilization(nvml_abi::Device, nvml_abi::Utilization* u) {
    std::unique_lock lock(mutex);
    released.wait(lock, [] { return !hold; });
    u->gpu = utilizationPercent;
    u->memory = 0;
    return nvml_abi::kSuccess;
  }
  static nvml_abi::Return pci(nvml_abi::Device, nvml_abi::PciInfo* p) {
    std::snprintf(p->busId, sizeof p->busId, "00000000:19:00.0");
    return nvml_abi::kSuccess;
  }
  static nvml_abi::Return driver(char* out, unsigned length) {
    std::snprintf(out, length, "580.65.06");
    return nvml_abi::kSuccess;
  }
  static nvml_abi::Return temperature(nvml_abi::Device, int, unsigned* c) {
    *c = 61;
    return nvml_abi::kSuccess;
  }
  static nvml_abi::Return power(nvml_abi::Device, unsigned* mw) {
    *mw = 123456;
    return nvml_abi::kSuccess;
  }
  static nvml_abi::Api api() {
    nvml_abi::Api a;
    a.init = ok;
    a.shutdown = ok;
    a.getCount = count;
    a.getHandleByIndex = handle;
    a.getName = name;
    a.getMemoryInfo = memory;
    a.getUtilizationRates = utilization;
    a.getPciInfoV3 = pci;
    a.getDriverVersion = driver;
    a.getTemperature = temperature;
    a.getPowerUsage = power;
    return a;
  }
  static void setHold(bool on) {
    {
      std::lock_guard lock(mutex);
      hold = on;
    }
    released.notify_all();
  }
};

double secondsBetween(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

class TestUtilizationSampler : public QObject {
  Q_OBJECT
  std::unique_ptr<Nvml> m_nvml;

 private slots:
  void initTestCase() {
    std::string error;
    m_nvml = Nvml::fromApi(SlowNvml::api(), nullptr, &error);
    QVERIFY2(m_nvml, error.c_str());
  }

  // The worker's calls return while the sampler thread sits in a query that does not return.
  void workerNeverWaitsForTheDriver() {
    SlowNvml::setHold(true);
    {
      UtilizationSampler sampler(*m_nvml, 0, 5ms);
      auto asked = std::async(std::launch::async, [&] {
        double busy = 0;
        for (int i = 0; i < 100; ++i) busy += sampler.busySeconds() + (sampler.sensors().powerW ? 1 : 0);
        return busy;
      });
      const bool answered = asked.wait_for(10s) == std::future_status::ready;
      const int64_t samplesWhileHeld = sampler.samples();
      SlowNvml::setHold(false);  // let the sampler (and a caller stuck behind it) go on
      QVERIFY2(answered, "busySeconds() or sensors() waited for the NVML query");
      QCOMPARE(asked.get(), 0.0);  // no sample yet: nothing measured
      QCOMPARE(samplesWhileHeld, int64_t{0});
    }
  }

  // Busy seconds = utilization × time since the sampler started, between samples too; sensors
  // are the latest sample's.
  void busySecondsIntegrateTheUtilization() {
    SlowNvml::setHold(false);
    SlowNvml::utilizationPercent = 50;
    const auto before = std::chrono::steady_clock::now();
    UtilizationSampler sampler(*m_nvml, 0, 10ms);
    while (sampler.samples() < 5) std::this_thread::sleep_for(2ms);
    std::this_thread::sleep_for(3ms);  // between two samples
    const double busy = sampler.busySeconds();
    const double elapsed = secondsBetween(before, std::chrono::steady_clock::now());
    QVERIFY2(busy <= 0.5 * elapsed + 1e-9, qPrintable(QString("busy %1 s in %2 s at 50%").arg(busy).arg(elapsed)));
    QVERIFY2(busy >= 0.5 * elapsed - 0.025, qPrintable(QString("busy %1 s in %2 s at 50%").arg(busy).arg(elapsed)));
    const DeviceSensors sensors = sampler.sensors();
    QCOMPARE(sensors.temperatureC.value_or(-1), 61.0);
    QCOMPARE(sensors.powerW.value_or(-1), 123.456);
    // Busy seconds never go back, and grow between samples.
    double last = sampler.busySeconds();
    for (int i = 0; i < 20; ++i) {
      std::this_thread::sleep_for(1ms);
      const double now = sampler.busySeconds();
      QVERIFY(now >= last);
      last = now;
    }
    QVERIFY(last > busy);
  }
};

QTEST_GUILESS_MAIN(TestUtilizationSampler)
#include "tst_utilization_sampler.moc"
