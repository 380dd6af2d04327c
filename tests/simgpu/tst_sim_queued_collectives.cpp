// Note [Queued collectives] on simulated GPUs whose host runs ahead (NETSMITH_SIMULATED_GPU_LAG_US,
// set here before the process's runtime starts): a gradient bucket's all-reduce waits on the
// device for its own gradients only, so it runs while a long backward queued after it is still
// computing (issue 25: the bucket's event was recorded when the reducer's thread got to it, behind
// the whole backward pass); and a rank's own long backward pass does not count against the
// collective timeout, which is for the peers.
#include <QtTest>

#include <barrier>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "engine/backend/cuda/cuda_device.h"
#include "engine/backend/cuda/gpu_runtime.h"
#include "engine/devices/device_factory.h"

using namespace netsmith;
using namespace netsmith::cuda;

namespace {

constexpr int kLagMs = 20;
constexpr int kBackwardMs = 900;

HostKernel setTo(float* p, int64_t n, float value, int sleepMs = 0) {
  return [=](DeviceMemoryAccess& m) {
    if (sleepMs) std::this_thread::sleep_for(std::chrono::milliseconds(sleepMs));
    float* h = m.at(p, n);
    for (int64_t i = 0; i < n; ++i) h[i] = value;
  };
}

float* deviceFloats(int64_t n) {
  void* p = nullptr;
  gpuRuntime().malloc(&p, static_cast<size_t>(n) * sizeof(float));
  return static_cast<float*>(p);
}

float firstValue(CudaDeviceContext& ctx, const float* p) {
  float v = 0;
  ctx.download(&v, p, 1);
  return v;
}

// Runs body(rank, context, communicator) on one thread per rank of a 2-GPU NCCL group with the
// given collective timeout; returns the ranks' error messages (empty: none).
template <typename Body>
std::vector<std::string> onTwoGpus(double timeoutSeconds, Body body) {
  const std::vector<std::string> ids = {"cuda:0", "cuda:1"};
  const DeviceKind& kind = deviceKindOf(ids[0]);
  auto group = kind.makeGroup(ids, timeoutSeconds);
  std::vector<std::string> errors(2);
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r)
    threads.emplace_back([&, r] {
      try {
        DeviceOptions o;
        o.id = ids[static_cast<size_t>(r)];
        auto ctx = kind.makeContext(o);
        kind.attachWorker(*group, r, *ctx);
        body(r, cudaContext(*ctx), group->communicator(r));
      } catch (const std::exception& e) {
        errors[static_cast<size_t>(r)] = e.what();
      }
    });
  for (auto& t : threads) t.join();
  return errors;
}

}  // namespace

class TestSimQueuedCollectives : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY2(qgetenv("NETSMITH_SIMULATED_GPUS") == "4", "run through CTest, which sets NETSMITH_SIMULATED_GPUS=4");
    qputenv("NETSMITH_SIMULATED_GPU_LAG_US", QByteArray::number(kLagMs * 1000));
    QVERIFY(gpuRuntime().simulated());
  }

  // Two buckets: bucket 0's gradients, then a long backward that produces bucket 1's. The
  // reducer's thread is late on purpose: it queues bucket 0 only after the long kernel is queued.
  // Bucket 0 must still complete long before the long kernel ends, on the device's clock.
  void bucketOverlapsTheBackwardQueuedAfterIt() {
    std::vector<float> hiddenMs(2, -1), sums(4, 0);
    std::vector<QueuedTiming> timings(2);
    const auto errors = onTwoGpus(30.0, [&](int r, CudaDeviceContext& ctx, Communicator& comm) {
      GpuRuntime& rt = gpuRuntime();
      if (!comm.queuesCollectives()) throw std::runtime_error("the NCCL communicator does not queue its collectives");
      float* g0 = deviceFloats(1000);
      float* g1 = deviceFloats(1000);
      rt.launchHost(ctx.stream(), "gradients of bucket 0", setTo(g0, 1000, static_cast<float>(r + 1)));
      comm.markQueued(0);
      rt.launchHost(ctx.stream(), "long backward", setTo(g1, 1000, static_cast<float>(10 * (r + 1)), kBackwardMs));
      cudaEvent_t backwardEnd = nullptr, bucket0Done = nullptr;
      rt.eventCreateTimed(&backwardEnd);
      rt.eventCreateTimed(&bucket0Done);
      rt.eventRecord(backwardEnd, ctx.stream());
      comm.markQueued(1);
      // The reducer's thread, late.
      const ReducePiece p0{g0, 1000}, p1{g1, 1000};
      comm.queueAllReduceSumPieces(std::span(&p0, 1), g0, 0);
      rt.eventRecord(bucket0Done, ctx.commStream());
      comm.queueAllReduceSumPieces(std::span(&p1, 1), g1, 1);
      timings[static_cast<size_t>(r)] = comm.finishQueued();
      float ms = 0;
      if (rt.eventElapsedTime(&ms, bucket0Done, backwardEnd) != cudaSuccess)
        throw std::runtime_error("cudaEventElapsedTime failed: " + rt.lastErrorDetail());
      hiddenMs[static_cast<size_t>(r)] = ms;
      sums[static_cast<size_t>(2 * r)] = firstValue(ctx, g0);
      sums[static_cast<size_t>(2 * r + 1)] = firstValue(ctx, g1);
    });
    for (int r = 0; r < 2; ++r) {
      QVERIFY2(errors[static_cast<size_t>(r)].empty(), errors[static_cast<size_t>(r)].c_str());
      QCOMPARE(sums[static_cast<size_t>(2 * r)], 3.0f);
      QCOMPARE(sums[static_cast<size_t>(2 * r + 1)], 30.0f);
      // Bucket 0 ended most of the long kernel before the long kernel did.
      QVERIFY2(hiddenMs[static_cast<size_t>(r)] > kBackwardMs / 2,
               qPrintable(QString("rank %1: bucket 0 ended %2 ms before backward").arg(r).arg(hiddenMs[static_cast<size_t>(r)])));
      const QueuedTiming& t = timings[static_cast<size_t>(r)];
      QVERIFY2(t.commSeconds > 0 && t.unhiddenSeconds >= 0 && t.commSeconds > t.unhiddenSeconds,
               qPrintable(QString("rank %1: comm %2 s, unhidden %3 s").arg(r).arg(t.commSeconds).arg(t.unhiddenSeconds)));
    }
  }

  // A collective timeout of 0.3 s and a backward pass of 0.9 s before the collective, on both
  // ranks: the wait for the own GPU is not the peers' lateness, so nothing times out.
  void longOwnBackwardIsNotLate() {
    std::vector<float> sums(2, 0);
    const auto errors = onTwoGpus(0.3, [&](int r, CudaDeviceContext& ctx, Communicator& comm) {
      float* g = deviceFloats(256);
      gpuRuntime().launchHost(ctx.stream(), "long backward", setTo(g, 256, static_cast<float>(r + 1), kBackwardMs));
      comm.allReduceSum(g, 256);  // blocking
      float* h = deviceFloats(256);
      gpuRuntime().launchHost(ctx.stream(), "long backward", setTo(h, 256, 1.0f, kBackwardMs));
      comm.markQueued(0);
      const ReducePiece p{h, 256};
      comm.queueAllReduceSumPieces(std::span(&p, 1), h, 0);
      comm.finishQueued();
      sums[static_cast<size_t>(r)] = firstValue(ctx, g) + firstValue(ctx, h);
    });
    for (int r = 0; r < 2; ++r) {
      QVERIFY2(errors[static_cast<size_t>(r)].empty(), errors[static_cast<size_t>(r)].c_str());
      QCOMPARE(sums[static_cast<size_t>(r)], 5.0f);
    }
  }
};

QTEST_GUILESS_MAIN(TestSimQueuedCollectives)
#include "tst_sim_queued_collectives.moc"
