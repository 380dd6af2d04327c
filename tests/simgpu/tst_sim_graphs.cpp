// CUDA graphs on the simulated GPUs (Note [Simulated CUDA graphs], sim_graphs.cpp): a captured
// stream runs nothing until the graph is launched, then its kernels and copies run at every
// launch with the arguments frozen at capture and the memory read at launch; the calls a real
// capture refuses — waits, allocations, pageable copies, events crossing the capture — fail and
// invalidate it; an event recorded in the capture is not recorded by a launch.
#include <QtTest>

#include <memory>

#include "engine/backend/cuda/gpu_runtime.h"

using namespace netsmith::cuda;

namespace {

std::unique_ptr<GpuRuntime> simulator() {
  SimulatorOptions o;
  o.devices = 1;
  o.jitter = true;
  o.seed = 11;
  o.memoryMb = 64;
  return std::unique_ptr<GpuRuntime>(makeSimulatedRuntime(o));
}

// One simulated GPU, current on this thread, with `bytes` of its memory and a stream of it.
struct OneGpu {
  std::unique_ptr<GpuRuntime> rt = simulator();
  void* x = nullptr;
  cudaStream_t s = nullptr;
  bool ok = false;
  explicit OneGpu(size_t bytes) {
    ok = rt->setDevice(0) == cudaSuccess && rt->malloc(&x, bytes) == cudaSuccess && rt->streamCreate(&s) == cudaSuccess;
  }
};

// x[i] += step for n floats.
HostKernel addTo(float* x, int64_t n, float step) {
  return [=](DeviceMemoryAccess& m) {
    float* h = m.at(x, n);
    for (int64_t i = 0; i < n; ++i) h[i] += step;
  };
}

}  // namespace

class TestSimGraphs : public QObject {
  Q_OBJECT

 private slots:
  // Captured: a copy in from pinned memory, a kernel, a copy out to pinned memory. Nothing runs
  // at capture; each launch runs all three, reading the pinned input as it is at that launch.
  void launchRunsTheCapturedWorkEachTime() {
    constexpr int64_t n = 5;
    OneGpu gpu(n * sizeof(float));
    QVERIFY(gpu.ok);
    GpuRuntime* rt = gpu.rt.get();
    void* x = gpu.x;
    cudaStream_t s = gpu.s;
    void* in = nullptr;
    void* out = nullptr;
    QCOMPARE(rt->hostAlloc(&in, n * sizeof(float)), cudaSuccess);
    QCOMPARE(rt->hostAlloc(&out, n * sizeof(float)), cudaSuccess);
    auto* input = static_cast<float*>(in);
    auto* output = static_cast<float*>(out);
    for (int64_t i = 0; i < n; ++i) input[i] = 1.0f;

    QCOMPARE(rt->streamBeginCapture(s), cudaSuccess);
    QCOMPARE(rt->memcpyAsync(x, in, n * sizeof(float), cudaMemcpyHostToDevice, s), cudaSuccess);
    QCOMPARE(rt->launchHost(s, "add 0.5", addTo(static_cast<float*>(x), n, 0.5f)), cudaSuccess);
    QCOMPARE(rt->memcpyAsync(out, x, n * sizeof(float), cudaMemcpyDeviceToHost, s), cudaSuccess);
    cudaGraph_t graph = nullptr;
    QCOMPARE(rt->streamEndCapture(s, &graph), cudaSuccess);
    QVERIFY(graph);
    cudaGraphExec_t exec = nullptr;
    QCOMPARE(rt->graphInstantiate(&exec, graph), cudaSuccess);
    for (int64_t i = 0; i < n; ++i) output[i] = -7.0f;
    QCOMPARE(rt->streamSynchronize(s), cudaSuccess);
    QCOMPARE(output[0], -7.0f);  // the capture ran nothing

    for (int launch = 1; launch <= 3; ++launch) {
      for (int64_t i = 0; i < n; ++i) input[i] = static_cast<float>(10 * launch);
      QCOMPARE(rt->graphLaunch(exec, s), cudaSuccess);
      QCOMPARE(rt->streamSynchronize(s), cudaSuccess);
      for (int64_t i = 0; i < n; ++i) QCOMPARE(output[i], static_cast<float>(10 * launch) + 0.5f);
    }
    QCOMPARE(rt->graphExecDestroy(exec), cudaSuccess);
    QCOMPARE(rt->graphDestroy(graph), cudaSuccess);
    QCOMPARE(rt->graphLaunch(exec, s), cudaErrorInvalidValue);
  }

  // Each call that a real capture refuses fails and invalidates the capture.
  void refusedCallsInvalidateTheCapture_data() {
    QTest::addColumn<QString>("call");
    for (const char* c : {"cudaStreamSynchronize", "cudaMalloc", "cudaHostAlloc", "cudaMemcpyAsync from pageable memory",
                          "cudaMemcpyAsync to pageable memory", "cudaDeviceSynchronize",
                          "cudaEventSynchronize on a captured event", "cudaStreamWaitEvent on an outside event"})
      QTest::newRow(c) << QString(c);
  }
  void refusedCallsInvalidateTheCapture() {
    QFETCH(QString, call);
    OneGpu gpu(64);
    QVERIFY(gpu.ok);
    GpuRuntime* rt = gpu.rt.get();
    void* x = gpu.x;
    cudaStream_t s = gpu.s;
    cudaEvent_t outside = nullptr, inside = nullptr;
    QCOMPARE(rt->eventCreate(&outside), cudaSuccess);
    QCOMPARE(rt->eventCreate(&inside), cudaSuccess);
    QCOMPARE(rt->eventRecord(outside, s), cudaSuccess);
    float pageable[16] = {};

    QCOMPARE(rt->streamBeginCapture(s), cudaSuccess);
    QCOMPARE(rt->launchHost(s, "add 1", addTo(static_cast<float*>(x), 4, 1.0f)), cudaSuccess);
    cudaError_t refused = cudaSuccess;
    void* p = nullptr;
    if (call == "cudaStreamSynchronize") refused = rt->streamSynchronize(s);
    else if (call == "cudaMalloc") refused = rt->malloc(&p, 64);
    else if (call == "cudaHostAlloc") refused = rt->hostAlloc(&p, 64);
    else if (call == "cudaMemcpyAsync from pageable memory")
      refused = rt->memcpyAsync(x, pageable, sizeof pageable, cudaMemcpyHostToDevice, s);
    else if (call == "cudaMemcpyAsync to pageable memory")
      refused = rt->memcpyAsync(pageable, x, sizeof pageable, cudaMemcpyDeviceToHost, s);
    else if (call == "cudaDeviceSynchronize") refused = rt->deviceSynchronize();
    else if (call == "cudaEventSynchronize on a captured event") {
      QCOMPARE(rt->eventRecord(inside, s), cudaSuccess);
      refused = rt->eventSynchronize(inside);
    } else if (call == "cudaStreamWaitEvent on an outside event") refused = rt->streamWaitEvent(s, outside);
    QVERIFY2(refused == cudaErrorStreamCaptureUnsupported || refused == cudaErrorStreamCaptureIsolation,
             rt->errorName(refused));
    QVERIFY(!p);
    cudaGraph_t graph = nullptr;
    QCOMPARE(rt->streamEndCapture(s, &graph), cudaErrorStreamCaptureInvalidated);
    QVERIFY(!graph);
    QCOMPARE(rt->streamSynchronize(s), cudaSuccess);  // the capture is over: allowed again
  }

  // An event recorded inside the capture is a dependency of the graph: a launch does not record
  // it, so the host learns of a launch's end from an event recorded after cudaGraphLaunch.
  void eventsRecordedInTheCaptureAreNotRecordedByALaunch() {
    OneGpu gpu(16);
    QVERIFY(gpu.ok);
    GpuRuntime* rt = gpu.rt.get();
    void* x = gpu.x;
    cudaStream_t s = gpu.s;
    cudaEvent_t inside = nullptr, after = nullptr;
    QCOMPARE(rt->eventCreate(&inside), cudaSuccess);
    QCOMPARE(rt->eventCreate(&after), cudaSuccess);
    QCOMPARE(rt->streamBeginCapture(s), cudaSuccess);
    QCOMPARE(rt->launchHost(s, "add 1", addTo(static_cast<float*>(x), 4, 1.0f)), cudaSuccess);
    QCOMPARE(rt->eventRecord(inside, s), cudaSuccess);
    QCOMPARE(rt->streamWaitEvent(s, inside), cudaSuccess);  // inside the capture: its own order
    cudaGraph_t graph = nullptr;
    QCOMPARE(rt->streamEndCapture(s, &graph), cudaSuccess);
    cudaGraphExec_t exec = nullptr;
    QCOMPARE(rt->graphInstantiate(&exec, graph), cudaSuccess);
    QCOMPARE(rt->graphLaunch(exec, s), cudaSuccess);
    QCOMPARE(rt->eventRecord(after, s), cudaSuccess);
    QCOMPARE(rt->eventSynchronize(after), cudaSuccess);
    // `inside` was never recorded outside a capture: as an event never recorded, it reads done,
    // however far the launch got; the event recorded after the launch is the one to wait for.
    QCOMPARE(rt->eventQuery(inside), cudaSuccess);
    QCOMPARE(rt->graphExecDestroy(exec), cudaSuccess);
    QCOMPARE(rt->graphDestroy(graph), cudaSuccess);
  }
};

QTEST_GUILESS_MAIN(TestSimGraphs)
#include "tst_sim_graphs.moc"
