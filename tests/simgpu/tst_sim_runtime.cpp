// The simulated GPUs' runtime (Note [Simulated GPUs]): checked device memory, streams and events
// with jitter, the legacy default stream, sticky errors, NCCL's non-blocking semantics, NVML and
// the numbering rule (Note [GPU numbering]). Each test makes its own simulator, except the
// numbering test, which checks the process's runtime as the backend gets it.
#include <QtTest>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "engine/backend/cuda/cuda_architectures.h"
#include "engine/core/error.h"
#include "engine/backend/cuda/gpu_runtime.h"
#include "engine/backend/cuda/sim/simulated_runtime.h"
#include "engine/monitor/nvml.h"

using namespace netsmith;
using namespace netsmith::cuda;

namespace {

std::unique_ptr<GpuRuntime> simulator(int devices, bool jitter = true, bool pciOrder = true) {
  SimulatorOptions o;
  o.devices = devices;
  o.jitter = jitter;
  o.seed = 7;
  o.memoryMb = 256;
  o.pciOrder = pciOrder;
  return std::unique_ptr<GpuRuntime>(makeSimulatedRuntime(o));
}

// A kernel that sets n floats to `value`, after sleeping `sleepMs` (a slow kernel).
HostKernel setTo(float* p, int64_t n, float value, int sleepMs = 0) {
  return [=](DeviceMemoryAccess& m) {
    if (sleepMs) std::this_thread::sleep_for(std::chrono::milliseconds(sleepMs));
    float* h = m.at(p, n);
    for (int64_t i = 0; i < n; ++i) h[i] = value;
  };
}

// n floats of the current device's memory, and a stream of it.
float* deviceFloats(GpuRuntime& rt, int64_t n) {
  void* p = nullptr;
  rt.malloc(&p, static_cast<size_t>(n) * sizeof(float));
  return static_cast<float*>(p);
}
cudaStream_t newStream(GpuRuntime& rt) {
  cudaStream_t s = nullptr;
  rt.streamCreate(&s);
  return s;
}

float readBack(GpuRuntime& rt, const float* device, cudaStream_t s) {
  float value = 0;
  [&] { QCOMPARE(rt.memcpyAsync(&value, device, sizeof value, cudaMemcpyDeviceToHost, s), cudaSuccess); }();
  return value;
}

}  // namespace

class TestSimRuntime : public QObject {
  Q_OBJECT

 private slots:
  void devicesAndMemoryInfo() {
    auto rt = simulator(3);
    int count = 0;
    QCOMPARE(rt->getDeviceCount(&count), cudaSuccess);
    QCOMPARE(count, 3);
    QCOMPARE(rt->setDevice(3), cudaErrorInvalidDevice);
    QVERIFY(rt->lastErrorDetail().find("3 simulated GPUs") != std::string::npos);
    QCOMPARE(rt->setDevice(1), cudaSuccess);
    size_t freeBytes = 0, total = 0;
    rt->memGetInfo(&freeBytes, &total);
    QCOMPARE(total, size_t{256} << 20);
    void* p = nullptr;
    QCOMPARE(rt->malloc(&p, size_t{300} << 20), cudaErrorMemoryAllocation);
    QVERIFY(rt->lastErrorDetail().find("out of memory") != std::string::npos);
  }

  // Every misuse of device memory is an error naming the pointer and what it is.
  void checkedDeviceMemory() {
    auto rt = simulator(2);
    rt->setDevice(1);
    void* other = nullptr;
    QCOMPARE(rt->malloc(&other, 64), cudaSuccess);
    rt->setDevice(0);
    void* a = nullptr;
    QCOMPARE(rt->malloc(&a, 1024), cudaSuccess);
    cudaStream_t s;
    QCOMPARE(rt->streamCreate(&s), cudaSuccess);
    std::vector<float> host(64, 1.0f);

    auto* end = static_cast<char*>(a) + 1024 - 16;
    QCOMPARE(rt->memcpyAsync(end, host.data(), 64, cudaMemcpyHostToDevice, s), cudaErrorInvalidValue);
    QVERIFY2(rt->lastErrorDetail().find("past the end of its allocation of 1024 bytes") != std::string::npos,
             rt->lastErrorDetail().c_str());
    QCOMPARE(rt->memcpyAsync(other, host.data(), 16, cudaMemcpyHostToDevice, s), cudaErrorInvalidValue);
    QVERIFY2(rt->lastErrorDetail().find("memory of cuda:1") != std::string::npos, rt->lastErrorDetail().c_str());
    QCOMPARE(rt->memcpyAsync(host.data(), a, 16, cudaMemcpyHostToDevice, s), cudaErrorInvalidValue);
    QVERIFY2(rt->lastErrorDetail().find("the destination") != std::string::npos &&
                 rt->lastErrorDetail().find("is host memory") != std::string::npos,
             rt->lastErrorDetail().c_str());

    QCOMPARE(rt->free(a), cudaSuccess);
    QCOMPARE(rt->memcpyAsync(a, host.data(), 16, cudaMemcpyHostToDevice, s), cudaErrorInvalidValue);
    QVERIFY2(rt->lastErrorDetail().find("was freed") != std::string::npos, rt->lastErrorDetail().c_str());
    QCOMPARE(rt->free(a), cudaErrorInvalidValue);
    QVERIFY(rt->lastErrorDetail().find("freed already") != std::string::npos);
    QCOMPARE(rt->streamDestroy(s), cudaSuccess);
    QCOMPARE(rt->streamSynchronize(s), cudaErrorInvalidResourceHandle);
  }

  // A kernel that touches a freed pointer leaves the GPU with a sticky error every later call
  // returns, saying which kernel did what.
  void kernelFaultIsSticky() {
    auto rt = simulator(1);
    rt->setDevice(0);
    void* a = nullptr;
    rt->malloc(&a, 256);
    cudaStream_t s;
    rt->streamCreate(&s);
    rt->free(a);
    QCOMPARE(rt->launchHost(s, "bad kernel", setTo(static_cast<float*>(a), 4, 1.0f)), cudaSuccess);
    QCOMPARE(rt->streamSynchronize(s), cudaErrorIllegalAddress);
    const std::string detail = rt->lastErrorDetail();
    QVERIFY2(detail.find("kernel bad kernel") != std::string::npos && detail.find("freed") != std::string::npos,
             detail.c_str());
    void* b = nullptr;
    QCOMPARE(rt->malloc(&b, 256), cudaErrorIllegalAddress);
  }

  // Host code that dereferences a device pointer dies at once, with a message naming the GPU.
  void hostDereferenceFaults() {
    auto rt = simulator(2, false);
    rt->setDevice(1);
    void* p = nullptr;
    QCOMPARE(rt->malloc(&p, 64), cudaSuccess);
    int pipeFds[2];
    QCOMPARE(pipe(pipeFds), 0);
    const pid_t child = fork();
    if (child == 0) {
      dup2(pipeFds[1], STDERR_FILENO);
      volatile float value = *static_cast<float*>(p);
      (void)value;
      _exit(0);
    }
    close(pipeFds[1]);
    std::string text;
    char buffer[512];
    for (ssize_t n; (n = read(pipeFds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<size_t>(n));
    close(pipeFds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    QVERIFY(WIFSIGNALED(status));
    QCOMPARE(WTERMSIG(status), SIGSEGV);
    QVERIFY2(text.find("host code dereferenced device memory of cuda:1") != std::string::npos, text.c_str());
  }

  // Streams are asynchronous: without an event wait, a slow producer on one stream is overtaken
  // by the consumer on another; with it, the consumer sees the value. A pinned destination holds
  // NaN until its copy has run.
  void eventsOrderStreams() {
    auto rt = simulator(1);
    rt->setDevice(0);
    float* x = deviceFloats(*rt, 1);
    float* y = deviceFloats(*rt, 1);
    cudaStream_t a = newStream(*rt), b = newStream(*rt);
    cudaEvent_t done;
    rt->eventCreate(&done);
    const HostKernel copyXtoY = [=](DeviceMemoryAccess& m) { *m.at(y, 1) = *m.at(x, 1); };

    rt->launchHost(a, "slow producer", setTo(x, 1, 1.0f, 30));
    rt->launchHost(b, "consumer without a wait", copyXtoY);
    rt->streamSynchronize(b);
    QVERIFY(std::isnan(readBack(*rt, y, b)));  // uninitialised device memory, read too early

    rt->streamSynchronize(a);
    rt->launchHost(a, "slow producer", setTo(x, 1, 2.0f, 30));
    rt->eventRecord(done, a);
    QCOMPARE(rt->eventQuery(done), cudaErrorNotReady);
    rt->streamWaitEvent(b, done);
    rt->launchHost(b, "consumer after the wait", copyXtoY);
    QCOMPARE(readBack(*rt, y, b), 2.0f);
    QCOMPARE(rt->eventQuery(done), cudaSuccess);

    float* pinned = nullptr;
    rt->hostAlloc(reinterpret_cast<void**>(&pinned), 4);
    rt->launchHost(a, "slow producer", setTo(x, 1, 3.0f, 30));
    rt->memcpyAsync(pinned, x, 4, cudaMemcpyDeviceToHost, a);
    QVERIFY(std::isnan(*pinned));  // read before the copy has run
    rt->streamSynchronize(a);
    QCOMPARE(*pinned, 3.0f);
  }

  // cudaMalloc waits for its device's queued work and cudaHostAlloc for every device's (the CUDA
  // guide's implicit synchronization), unless the simulator is told they do not.
  void allocationsSynchronize() {
    auto rt = simulator(2);
    rt->setDevice(0);
    float* x = deviceFloats(*rt, 1);
    cudaStream_t a = newStream(*rt);
    cudaEvent_t done;
    rt->eventCreate(&done);
    void* p = nullptr;
    rt->launchHost(a, "slow kernel", setTo(x, 1, 1.0f, 60));
    rt->eventRecord(done, a);
    QCOMPARE(rt->eventQuery(done), cudaErrorNotReady);
    QCOMPARE(rt->malloc(&p, 64), cudaSuccess);
    QCOMPARE(rt->eventQuery(done), cudaSuccess);

    rt->launchHost(a, "slow kernel", setTo(x, 1, 2.0f, 300));
    rt->eventRecord(done, a);
    rt->setDevice(1);
    QCOMPARE(rt->malloc(&p, 64), cudaSuccess);  // another device's allocation does not wait for cuda:0
    QCOMPARE(rt->eventQuery(done), cudaErrorNotReady);
    QCOMPARE(rt->hostAlloc(&p, 64), cudaSuccess);  // a pinned allocation waits for every device
    QCOMPARE(rt->eventQuery(done), cudaSuccess);
    rt->freeHost(p);

    SimulatorOptions o;
    o.devices = 1;
    o.memoryMb = 256;
    o.allocationsSynchronize = false;
    std::unique_ptr<GpuRuntime> free(makeSimulatedRuntime(o));
    free->setDevice(0);
    float* y = deviceFloats(*free, 1);
    cudaStream_t b = newStream(*free);
    cudaEvent_t later;
    free->eventCreate(&later);
    free->launchHost(b, "slow kernel", setTo(y, 1, 1.0f, 300));
    free->eventRecord(later, b);
    QCOMPARE(free->malloc(&p, 64), cudaSuccess);
    QCOMPARE(free->eventQuery(later), cudaErrorNotReady);
    free->streamSynchronize(b);
  }

  // A launch into another device's stream needs cudaSetDevice first.
  void launchNeedsCurrentDevice() {
    auto rt = simulator(2);
    rt->setDevice(0);
    float* x = deviceFloats(*rt, 1);
    cudaStream_t s = newStream(*rt);
    rt->setDevice(1);
    QCOMPARE(rt->launchHost(s, "k", setTo(x, 1, 1.0f)), cudaErrorInvalidResourceHandle);
    QVERIFY(rt->lastErrorDetail().find("cudaSetDevice missing") != std::string::npos);
    QCOMPARE(rt->getLastError(), cudaErrorInvalidResourceHandle);
    QCOMPARE(rt->getLastError(), cudaSuccess);
  }

  // cudaMemcpy runs on the legacy default stream, which a non-blocking stream does not wait
  // for: a kernel queued right after a pageable cudaMemcpy reads the memory before the copy
  // (with jitter, always). Queued on the kernel's own stream, the copy comes first.
  void legacyDefaultStreamIsNotOrdered() {
    auto rt = simulator(1);
    rt->setDevice(0);
    float* table = deviceFloats(*rt, 1);
    float* out = deviceFloats(*rt, 1);
    cudaStream_t s = newStream(*rt);
    const float value = 5.0f;
    const HostKernel reader = [=](DeviceMemoryAccess& m) { *m.at(out, 1) = *m.at(table, 1); };
    QCOMPARE(rt->memcpy(table, &value, 4, cudaMemcpyHostToDevice), cudaSuccess);
    rt->launchHost(s, "reader", reader);
    QVERIFY(std::isnan(readBack(*rt, out, s)));
    QCOMPARE(rt->memcpyAsync(table, &value, 4, cudaMemcpyHostToDevice, s), cudaSuccess);
    rt->launchHost(s, "reader", reader);
    QCOMPARE(readBack(*rt, out, s), 5.0f);
  }

  // Note [Simulated NCCL]: non-blocking init and a lazily connecting first collective return
  // ncclInProgress; a call meanwhile is ncclInvalidArgument; an event recorded right after
  // ncclInProgress precedes the collective, so the buffer is read unsummed.
  void ncclNonBlockingSemantics() {
    auto rt = simulator(2);
    ncclUniqueId id;
    QCOMPARE(rt->getUniqueId(&id), ncclSuccess);
    ncclComm_t comms[2];
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    // The buffers first: an allocation waits for the device (and with jitter takes a while), long
    // enough for the start-up to finish.
    float* buffers[2];
    cudaStream_t streams[2];
    for (int r = 0; r < 2; ++r) {
      rt->setDevice(r);
      buffers[r] = deviceFloats(*rt, 4);
      streams[r] = newStream(*rt);
      rt->launchHost(streams[r], "init", setTo(buffers[r], 4, static_cast<float>(r + 1)));
    }
    QCOMPARE(rt->groupStart(), ncclSuccess);
    for (int r = 0; r < 2; ++r) {
      rt->setDevice(r);
      QCOMPARE(rt->commInitRank(&comms[r], 2, id, r, &config), ncclSuccess);
    }
    QCOMPARE(rt->groupEnd(), ncclInProgress);
    ncclResult_t state = ncclSuccess;
    QCOMPARE(rt->commGetAsyncError(comms[0], &state), ncclSuccess);
    QCOMPARE(state, ncclInProgress);
    QCOMPARE(rt->allReduceSum(buffers[0], buffers[0], 4, comms[0], streams[0]), ncclInvalidArgument);
    QVERIFY(rt->lastErrorDetail().find("still in progress") != std::string::npos);
    auto waitReady = [&](ncclComm_t c) {
      ncclResult_t st = ncclInProgress;
      while (st == ncclInProgress) rt->commGetAsyncError(c, &st);
      return st;
    };
    for (auto c : comms) QCOMPARE(waitReady(c), ncclSuccess);

    // The first collective connects the ranks: ncclInProgress. Reading right away (the bug):
    rt->setDevice(0);
    QCOMPARE(rt->allReduceSum(buffers[0], buffers[0], 4, comms[0], streams[0]), ncclInProgress);
    QCOMPARE(readBack(*rt, buffers[0], streams[0]), 1.0f);  // not summed yet
    rt->setDevice(1);
    QCOMPARE(rt->allReduceSum(buffers[1], buffers[1], 4, comms[1], streams[1]), ncclInProgress);
    for (auto c : comms) QCOMPARE(waitReady(c), ncclSuccess);
    for (int r = 0; r < 2; ++r) QCOMPARE(readBack(*rt, buffers[r], streams[r]), 3.0f);

    // Counts that differ across ranks: ncclInvalidUsage on both, the buffers untouched.
    rt->setDevice(0);
    ncclResult_t r0 = rt->allReduceSum(buffers[0], buffers[0], 4, comms[0], streams[0]);
    rt->setDevice(1);
    ncclResult_t r1 = rt->allReduceSum(buffers[1], buffers[1], 2, comms[1], streams[1]);
    QVERIFY(r0 == ncclSuccess || r0 == ncclInProgress);
    QVERIFY(r1 == ncclSuccess || r1 == ncclInProgress);
    for (int r = 0; r < 2; ++r) rt->streamSynchronize(streams[r]);
    for (auto c : comms) {
      ncclResult_t st = ncclInProgress;
      const auto start = std::chrono::steady_clock::now();
      while ((st == ncclInProgress || st == ncclSuccess) &&
             std::chrono::steady_clock::now() - start < std::chrono::seconds(5)) {
        rt->commGetAsyncError(c, &st);
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      QCOMPARE(st, ncclInvalidUsage);
    }
    QVERIFY(rt->ncclLastError(comms[0]).find("does not match") != std::string::npos);
    for (auto c : comms) QCOMPARE(rt->commAbort(c), ncclSuccess);
    QCOMPARE(rt->commAbort(comms[0]), ncclInvalidArgument);
  }

  // ncclCommAbort ends this rank's collective that waits for a peer that never comes.
  void ncclAbortEndsAWaitingCollective() {
    auto rt = simulator(2, false);
    ncclUniqueId id;
    rt->getUniqueId(&id);
    ncclComm_t comms[2];
    QCOMPARE(rt->groupStart(), ncclSuccess);
    for (int r = 0; r < 2; ++r) {
      rt->setDevice(r);
      rt->commInitRank(&comms[r], 2, id, r, nullptr);  // blocking
    }
    QCOMPARE(rt->groupEnd(), ncclSuccess);
    rt->setDevice(0);
    float* x = deviceFloats(*rt, 1);
    cudaStream_t s = newStream(*rt);
    QCOMPARE(rt->allReduceSum(x, x, 1, comms[0], s), ncclSuccess);
    cudaEvent_t e;
    rt->eventCreate(&e);
    rt->eventRecord(e, s);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    QCOMPARE(rt->eventQuery(e), cudaErrorNotReady);  // waiting for rank 1
    QCOMPARE(rt->commAbort(comms[0]), ncclSuccess);
    QCOMPARE(rt->streamSynchronize(s), cudaSuccess);
    rt->commAbort(comms[1]);
  }

  // Two ranks on one GPU cannot form a communicator.
  void ncclOneGpuPerRank() {
    auto rt = simulator(2, false);
    ncclUniqueId id;
    rt->getUniqueId(&id);
    ncclComm_t comms[2];
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    rt->setDevice(0);
    rt->groupStart();
    for (int r = 0; r < 2; ++r) rt->commInitRank(&comms[r], 2, id, r, &config);
    rt->groupEnd();
    ncclResult_t st = ncclInProgress;
    while (st == ncclInProgress) rt->commGetAsyncError(comms[0], &st);
    QCOMPARE(st, ncclInvalidUsage);
    QVERIFY(rt->ncclLastError(comms[0]).find("one GPU per rank") != std::string::npos);
  }

  // CUDA_VISIBLE_DEVICES as CUDA reads it: indices into the runtime's order, renumbered from 0; the
  // list ends at the first entry that is not a new, valid index; empty hides every GPU. NVML (the
  // simulator's deviceCount) still has all four.
  void visibleDevicesSelectAndRenumber() {
    const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
        {"2,3", {"0000:20:00.0", "0000:28:00.0"}},
        {"3,1", {"0000:28:00.0", "0000:18:00.0"}},
        {"0,7,1", {"0000:10:00.0"}},
        {"1,1,2", {"0000:18:00.0"}},
        {"GPU-5a3c", {}},
        {"", {}},
    };
    for (const auto& [list, buses] : cases) {
      SimulatorOptions o;
      o.devices = 4;
      o.memoryMb = 64;
      o.visibleDevices = list;
      std::unique_ptr<GpuRuntime> rt(makeSimulatedRuntime(o));
      int count = -1;
      QCOMPARE(rt->getDeviceCount(&count), cudaSuccess);
      QVERIFY2(count == static_cast<int>(buses.size()), list.c_str());
      for (int n = 0; n < count; ++n) {
        char bus[32];
        QCOMPARE(rt->deviceGetPCIBusId(bus, sizeof bus, n), cudaSuccess);
        QCOMPARE(std::string(bus), buses[static_cast<size_t>(n)]);
      }
      QCOMPARE(rt->setDevice(count), cudaErrorInvalidDevice);
      QCOMPARE(static_cast<sim::SimulatedRuntime&>(*rt).deviceCount(), 4);
    }
  }

  // Note [CUDA architectures]: the driver's rule, and the simulator following it for a GPU of
  // another compute capability.
  void architectureRule() {
    const auto built = parseArchitectures("75-virtual 90-real");
    for (int cc : {75, 80, 86, 89, 90, 100, 120}) QVERIFY2(architecturesRun(built, cc), qPrintable(QString::number(cc)));
    for (int cc : {50, 61, 70}) QVERIFY(!architecturesRun(built, cc));
    const auto sassOnly = parseArchitectures("80-real 90-real");
    QVERIFY(architecturesRun(sassOnly, 86));  // sm_80 code runs on sm_86
    QVERIFY(architecturesRun(sassOnly, 90));
    QVERIFY(!architecturesRun(sassOnly, 75));
    QVERIFY(!architecturesRun(sassOnly, 100));  // no PTX: nothing for a newer major
    QVERIFY(architecturesRun(parseArchitectures("86"), 89));
    QVERIFY_THROWS_EXCEPTION(netsmith::Error, parseArchitectures("sm_90"));
    QVERIFY_THROWS_EXCEPTION(netsmith::Error, parseArchitectures("90-fast"));

    const std::string rebuild = noKernelImageMessage("cuda:1", "NVIDIA A100", 80, "90-real");
    QVERIFY2(rebuild.find("cuda:1 (NVIDIA A100, compute capability 8.0, sm_80) cannot run this build's kernels: it "
                          "carries sm_90") == 0,
             rebuild.c_str());
    QVERIFY2(rebuild.find("-DNETSMITH_CUDA_ARCHITECTURES=80") != std::string::npos, rebuild.c_str());
    const std::string old = noKernelImageMessage("cuda:0", "GeForce GTX 1080", 61, "75-virtual 90-real");
    QVERIFY2(old.find("carries compute_75 PTX and sm_90") != std::string::npos, old.c_str());
    QVERIFY2(old.find("supports compute capability 7.5 (Turing) and newer") != std::string::npos, old.c_str());

    SimulatorOptions o;
    o.devices = 1;
    o.memoryMb = 64;
    o.computeCapability = 61;
    std::unique_ptr<GpuRuntime> pascal(makeSimulatedRuntime(o));
    QCOMPARE(pascal->kernelImageLoads(), cudaErrorNoKernelImageForDevice);
    o.computeCapability = 75;
    std::unique_ptr<GpuRuntime> turing(makeSimulatedRuntime(o));
    QCOMPARE(turing->kernelImageLoads(), cudaSuccess);  // every build carries compute_75 PTX
    GpuProperties p;
    QCOMPARE(turing->deviceProperties(0, &p), cudaSuccess);
    QCOMPARE(p.computeCapability, 75);
    QCOMPARE(p.totalMemory, size_t{64} << 20);
  }

  // NETSMITH_SIMULATED_GPU_LAG_US: the host is ahead; an event completes only when the device
  // gets there, and a timed pair measures the device's time.
  void lagKeepsTheHostAhead() {
    SimulatorOptions o;
    o.devices = 1;
    o.memoryMb = 64;
    o.lag = std::chrono::milliseconds(40);
    std::unique_ptr<GpuRuntime> rt(makeSimulatedRuntime(o));
    cudaStream_t s = newStream(*rt);
    float* x = deviceFloats(*rt, 4);
    cudaEvent_t before = nullptr, after = nullptr, untimed = nullptr;
    QCOMPARE(rt->eventCreateTimed(&before), cudaSuccess);
    QCOMPARE(rt->eventCreateTimed(&after), cudaSuccess);
    QCOMPARE(rt->eventCreate(&untimed), cudaSuccess);
    rt->eventRecord(before, s);
    rt->launchHost(s, "slow", setTo(x, 4, 1.0f, 30));
    rt->eventRecord(after, s);
    rt->eventRecord(untimed, s);
    QCOMPARE(rt->eventQuery(before), cudaErrorNotReady);  // queued, not reached: the host is ahead
    float ms = 0;
    QCOMPARE(rt->eventElapsedTime(&ms, before, after), cudaErrorNotReady);
    QCOMPARE(rt->streamSynchronize(s), cudaSuccess);
    QCOMPARE(rt->eventElapsedTime(&ms, before, after), cudaSuccess);
    QVERIFY2(ms >= 29 && ms < 2000, qPrintable(QString::number(ms)));
    QCOMPARE(rt->eventElapsedTime(&ms, before, untimed), cudaErrorInvalidResourceHandle);
    rt->streamDestroy(s);
  }

  // Without CUDA_DEVICE_ORDER=PCI_BUS_ID the runtime numbers GPUs in another order than NVML.
  void driverOrderDiffersFromPciOrder() {
    auto rt = simulator(4, false, false);
    char bus[32];
    rt->deviceGetPCIBusId(bus, sizeof bus, 0);
    QCOMPARE(std::string(bus), std::string("0000:28:00.0"));  // the last GPU on the bus
  }

  // Note [GPU numbering]: the backend's runtime numbers cuda:N as NVML (nvidia-smi) does. CTest
  // starts this test with NETSMITH_SIMULATED_GPUS=4 and no CUDA_DEVICE_ORDER.
  void cudaOrdinalIsNvmlIndex() {
    GpuRuntime& rt = gpuRuntime();
    QVERIFY(rt.simulated());
    Nvml* nvml = Nvml::instance();
    QVERIFY2(nvml, Nvml::instanceError().c_str());
    int count = 0;
    rt.getDeviceCount(&count);
    QCOMPARE(count, 4);
    QCOMPARE(nvml->deviceCount(), 4);
    for (int n = 0; n < count; ++n) {
      char bus[32];
      QCOMPARE(rt.deviceGetPCIBusId(bus, sizeof bus, n), cudaSuccess);
      QCOMPARE(nvml->indexOfPciBusId(bus), n);
    }
    const auto sample = nvml->sample(0);
    QVERIFY(sample && sample->temperatureC && sample->powerW);
    QVERIFY(*sample->temperatureC >= 30 && *sample->temperatureC <= 85);
    QVERIFY(*sample->powerW >= 60 && *sample->powerW <= 360);
  }
};

QTEST_GUILESS_MAIN(TestSimRuntime)
#include "tst_sim_runtime.moc"
