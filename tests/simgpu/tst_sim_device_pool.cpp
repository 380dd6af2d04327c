// The device pool's out-of-memory retry (Note [Device pool]) while this GPU's collective waits for
// a peer. The retry synchronizes the device and frees its cached blocks; on simulated GPUs both
// wait for the device, cudaMalloc too (Note [Simulated GPUs]), so a retry during a collective
// waits until the peer queues its part — it must then go on — or until the run's failure path
// aborts the communicators — it must then return, not hang.
#include <QtTest>

#include <atomic>
#include <chrono>
#include <thread>

#include "engine/backend/cuda/cuda_memory.h"
#include "engine/backend/cuda/gpu_runtime.h"
#include "engine/core/error.h"

using namespace netsmith;
using namespace netsmith::cuda;
using Clock = std::chrono::steady_clock;

// Outside the anonymous namespace: the test's lambdas capture it.
struct TwoRanks {
  ncclComm_t comms[2] = {};
  cudaStream_t streams[2] = {};
  float* buffers[2] = {};
};

namespace {

constexpr size_t kMiB = size_t{1} << 20;

// Two blocking communicators over cuda:0 and cuda:1, a stream and one float of each.
TwoRanks twoRanks(GpuRuntime& rt) {
  TwoRanks t;
  ncclUniqueId id;
  rt.getUniqueId(&id);
  rt.groupStart();
  for (int r = 0; r < 2; ++r) {
    rt.setDevice(r);
    rt.commInitRank(&t.comms[r], 2, id, r, nullptr);
  }
  rt.groupEnd();
  for (int r = 0; r < 2; ++r) {
    rt.setDevice(r);
    rt.streamCreate(&t.streams[r]);
    void* p = nullptr;
    rt.malloc(&p, sizeof(float));
    t.buffers[r] = static_cast<float*>(p);
    const float value = static_cast<float>(r + 1);
    rt.memcpyAsync(p, &value, sizeof value, cudaMemcpyHostToDevice, t.streams[r]);
    rt.streamSynchronize(t.streams[r]);
  }
  return t;
}

// Fills the pool's cache with a 40 MiB block, so a 50 MiB request fails on a 64 MiB GPU until
// the cache is given back.
void cacheFortyMiB(DevicePool& pool) {
  float* block = pool.allocate(40 * kMiB);
  pool.deallocate(block, 40 * kMiB);
}

// On cuda:0: caches 40 MiB in `pool`, then queues rank 0's part of an all-reduce, which waits for
// rank 1's. False when the collective cannot be queued.
bool cacheAndQueueOnRankZero(GpuRuntime& rt, TwoRanks& t, DevicePool& pool) {
  rt.setDevice(0);
  cacheFortyMiB(pool);
  return rt.allReduceSum(t.buffers[0], t.buffers[0], 1, t.comms[0], t.streams[0]) == ncclSuccess;
}

}  // namespace

class TestSimDevicePool : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    // Before the process's runtime starts: small GPUs, so the retry is reached.
    qputenv("NETSMITH_SIMULATED_GPU_MEMORY_MB", "64");
    qputenv("NETSMITH_SIMULATED_GPU_ALLOC_SYNC", "1");
    int count = 0;
    gpuRuntime().getDeviceCount(&count);
    QVERIFY2(gpuRuntime().simulated() && count >= 2, "needs NETSMITH_SIMULATED_GPUS >= 2");
  }

  // The retry waits for the peer's part of the collective, then allocates.
  void retryDuringACollectiveGoesOn() {
    GpuRuntime& rt = gpuRuntime();
    TwoRanks t = twoRanks(rt);
    DevicePool pool(0);
    QVERIFY(cacheAndQueueOnRankZero(rt, t, pool));
    const auto start = Clock::now();
    std::thread peer([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      rt.setDevice(1);
      rt.allReduceSum(t.buffers[1], t.buffers[1], 1, t.comms[1], t.streams[1]);
    });
    float* block = nullptr;
    try {
      block = pool.allocate(50 * kMiB);
    } catch (const Error& e) {
      peer.join();
      QFAIL(e.what());
    }
    const auto waited = Clock::now() - start;
    peer.join();
    QVERIFY(block);
    QVERIFY2(waited >= std::chrono::milliseconds(250), "the retry's synchronization did not wait for the collective");
    QCOMPARE(pool.bytesCached(), size_t{0});
    float sum = 0;
    rt.memcpyAsync(&sum, t.buffers[0], sizeof sum, cudaMemcpyDeviceToHost, t.streams[0]);
    QCOMPARE(sum, 3.0f);
    pool.deallocate(block, 50 * kMiB);
    for (int r = 0; r < 2; ++r) {
      rt.setDevice(r);
      rt.free(t.buffers[r]);
      rt.streamDestroy(t.streams[r]);
      rt.commAbort(t.comms[r]);
    }
  }

  // A peer that never comes: the failure path's abort of every communicator ends the wait, and
  // the retry returns instead of hanging.
  void retryEndsWhenTheRunAborts() {
    GpuRuntime& rt = gpuRuntime();
    TwoRanks t = twoRanks(rt);
    DevicePool pool(0);
    QVERIFY(cacheAndQueueOnRankZero(rt, t, pool));
    std::atomic<bool> aborted = false;
    std::thread failurePath([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      aborted = true;
      for (int r = 0; r < 2; ++r) rt.commAbort(t.comms[r]);
    });
    float* block = nullptr;
    try {
      block = pool.allocate(50 * kMiB);
    } catch (const Error&) {
      // Also acceptable: the aborted collective's error, reported by the retry.
    }
    failurePath.join();
    QVERIFY2(aborted, "the retry returned before the abort, so it did not wait for the collective");
    if (block) pool.deallocate(block, 50 * kMiB);
    for (int r = 0; r < 2; ++r) {
      rt.setDevice(r);
      rt.free(t.buffers[r]);
      rt.streamDestroy(t.streams[r]);
    }
  }
};

QTEST_GUILESS_MAIN(TestSimDevicePool)
#include "tst_sim_device_pool.moc"
