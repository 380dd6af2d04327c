// The in-process communicator (Note [In-process all-reduce]) and the gradient buckets (Note
// [Bucket order]): exact fixed-order sums on every rank, broadcast, barrier, a late rank named
// within the timeout, abort, and a bucket reduced while backward still runs. Runs under
// ThreadSanitizer and AddressSanitizer in the test command's sanitizer subsets.
// netsmith-test-labels: tsan asan
#include <QtTest>
#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <thread>

#include "engine/comm/communicator.h"
#include "engine/comm/gradient_buckets.h"

using namespace netsmith;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::vector<std::string> cpuNames(int n) {
  std::vector<std::string> names;
  for (int r = 0; r < n; ++r) names.push_back("cpu:" + std::to_string(r));
  return names;
}

// Values of mixed sign and magnitude (2^-10 .. 2^10), so that the float sum depends on the order
// of the terms and a reduction in another order shows up as different bits.
float valueAt(int rank, int64_t i) {
  uint64_t h = (static_cast<uint64_t>(rank) + 1) * 0x9E3779B97F4A7C15ull ^ (static_cast<uint64_t>(i) * 0xBF58476D1CE4E5B9ull);
  h ^= h >> 31;
  h *= 0x94D049BB133111EBull;
  h ^= h >> 29;
  const float mantissa = static_cast<float>(static_cast<int64_t>(h % 2001) - 1000) / 997.0f;
  return std::ldexp(mantissa, static_cast<int>((h >> 20) % 21) - 10);
}

// The tree of Note [Reduction tree], written out independently: ranks [lo, hi) split after the
// largest power of two below their count.
float treeOrderSum(int lo, int hi, int64_t i) {
  if (hi - lo == 1) return valueAt(lo, i);
  int half = 1;
  while (half * 2 < hi - lo) half *= 2;
  return treeOrderSum(lo, lo + half, i) + treeOrderSum(lo + half, hi, i);
}

// The result the all-reduce promises, in float.
std::vector<float> fixedOrderSum(int n, int64_t count) {
  std::vector<float> sum(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) sum[static_cast<size_t>(i)] = treeOrderSum(0, n, i);
  return sum;
}

// Runs body(rank, communicator) on one thread per rank; returns each rank's exception message
// ("" when it returned normally).
std::vector<std::string> runRanks(InProcessGroup& group, const std::function<void(int, Communicator&)>& body) {
  const int n = group.size();
  std::vector<std::string> errors(static_cast<size_t>(n));
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      try {
        body(r, group.communicator(r));
      } catch (const std::exception& e) {
        errors[static_cast<size_t>(r)] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  return errors;
}

void verifyNoErrors(const std::vector<std::string>& errors) {
  for (size_t r = 0; r < errors.size(); ++r) QVERIFY2(errors[r].empty(), qPrintable(QString("rank %1: %2").arg(r).arg(QString::fromStdString(errors[r]))));
}

}  // namespace

class CommunicatorTest : public QObject {
  Q_OBJECT

 private slots:
  void allReduceIsTheFixedOrderSumOnEveryRank_data() {
    QTest::addColumn<int>("ranks");
    QTest::addColumn<qint64>("count");
    for (int n : {1, 2, 3, 4, 5, 6, 8}) {
      for (qint64 count : {0LL, 1LL, 7LL, 1000LL, 1000003LL}) {
        QTest::addRow("%d ranks, %lld values", n, count) << n << count;
      }
    }
  }
  void allReduceIsTheFixedOrderSumOnEveryRank() {
    QFETCH(int, ranks);
    QFETCH(qint64, count);
    const std::vector<float> expected = fixedOrderSum(ranks, count);
    std::vector<std::vector<float>> buffers(static_cast<size_t>(ranks));
    for (int r = 0; r < ranks; ++r) {
      auto& b = buffers[static_cast<size_t>(r)];
      b.resize(static_cast<size_t>(count));
      for (int64_t i = 0; i < count; ++i) b[static_cast<size_t>(i)] = valueAt(r, i);
    }
    InProcessGroup group(ranks, cpuNames(ranks), 10.0);
    verifyNoErrors(runRanks(group, [&](int r, Communicator& comm) {
      if (comm.rank() != r || comm.size() != ranks) throw Error("wrong rank or size");
      comm.allReduceSum(buffers[static_cast<size_t>(r)].data(), count);
    }));
    for (int r = 0; r < ranks; ++r) {
      const auto& b = buffers[static_cast<size_t>(r)];
      const bool same = count == 0 || std::memcmp(b.data(), expected.data(), static_cast<size_t>(count) * sizeof(float)) == 0;
      QVERIFY2(same, qPrintable(QString("rank %1 differs from the fixed-order sum").arg(r)));
    }
  }

  // Three rounds per all-reduce, a thousand times: a lost wake-up or a generation mix-up hangs
  // or corrupts a sum here.
  void manySmallAllReducesDoNotDeadlock() {
    constexpr int kRanks = 3;
    constexpr int kRounds = 1000;
    InProcessGroup group(kRanks, cpuNames(kRanks), 10.0);
    verifyNoErrors(runRanks(group, [&](int r, Communicator& comm) {
      float values[5];
      for (int k = 0; k < kRounds; ++k) {
        for (int i = 0; i < 5; ++i) values[i] = static_cast<float>(k + r * i);
        comm.allReduceSum(values, 5);
        for (int i = 0; i < 5; ++i) {
          if (values[i] != static_cast<float>(kRanks * k + 3 * i)) throw Error(format("round {} value {} is {}", k, i, values[i]));
        }
      }
    }));
  }

  void broadcastCopiesTheRootsBuffer() {
    constexpr int kRanks = 3;
    constexpr int64_t kCount = 1001;
    InProcessGroup group(kRanks, cpuNames(kRanks), 10.0);
    std::vector<std::vector<float>> buffers(kRanks);
    for (int r = 0; r < kRanks; ++r)
      for (int64_t i = 0; i < kCount; ++i) buffers[static_cast<size_t>(r)].push_back(valueAt(r, i));
    verifyNoErrors(runRanks(group, [&](int r, Communicator& comm) {
      comm.broadcast(buffers[static_cast<size_t>(r)].data(), kCount, 1);
      comm.broadcast(nullptr, 0, 2);
    }));
    for (int r = 0; r < kRanks; ++r)
      for (int64_t i = 0; i < kCount; ++i) QCOMPARE(buffers[static_cast<size_t>(r)][static_cast<size_t>(i)], valueAt(1, i));
  }

  // Plain (non-atomic) writes before a barrier are visible to every rank after it: TSan checks
  // the happens-before edges the barrier creates.
  void barrierOrdersMemory() {
    constexpr int kRanks = 4;
    constexpr int kRounds = 200;
    InProcessGroup group(kRanks, cpuNames(kRanks), 10.0);
    std::vector<int> cells(kRanks, -1);
    verifyNoErrors(runRanks(group, [&](int r, Communicator& comm) {
      for (int k = 0; k < kRounds; ++k) {
        cells[static_cast<size_t>(r)] = k * kRanks + r;
        comm.barrier();
        for (int other = 0; other < kRanks; ++other) {
          if (cells[static_cast<size_t>(other)] != k * kRanks + other) throw Error(format("round {}: rank {} not seen", k, other));
        }
        comm.barrier();  // nobody writes the next round's cell while another still reads this one
      }
    }));
  }

  void differentCollectivesAreAnErrorOnEveryRank() {
    InProcessGroup group(2, cpuNames(2), 10.0);
    const auto errors = runRanks(group, [&](int r, Communicator& comm) {
      std::vector<float> mine(12, 1.0f);
      comm.allReduceSum(mine.data(), r == 0 ? 10 : 12);
    });
    for (const auto& e : errors) {
      QVERIFY2(e.find("different collectives") != std::string::npos, e.c_str());
      QVERIFY2(e.find("cpu:1 made allReduceSum of 12 values") != std::string::npos, e.c_str());
    }
  }

  void lateRankIsNamedWithinTheTimeout() {
    constexpr int kRanks = 3;
    InProcessGroup group(kRanks, cpuNames(kRanks), 0.5);
    std::vector<double> seconds(kRanks, 0.0);
    std::vector<int> culprits(kRanks, -2);
    std::atomic<int> finished{0};
    const auto errors = runRanks(group, [&](int r, Communicator& comm) {
      float values[4] = {1, 2, 3, 4};
      if (r == 1) {
        // The stalled worker: it reaches the all-reduce only after the others gave up.
        while (finished.load() < kRanks - 1) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      const auto start = Clock::now();
      try {
        comm.allReduceSum(values, 4);
      } catch (const CommError& e) {
        seconds[static_cast<size_t>(r)] = secondsSince(start);
        culprits[static_cast<size_t>(r)] = e.culpritRank();
        ++finished;
        throw;
      }
      ++finished;
    });
    for (int r = 0; r < kRanks; ++r) {
      QCOMPARE(QString::fromStdString(errors[static_cast<size_t>(r)]), QString("cpu:1 did not reach the all-reduce within 0.5 s"));
      QCOMPARE(culprits[static_cast<size_t>(r)], 1);
    }
    for (int r : {0, 2}) {
      QVERIFY2(seconds[static_cast<size_t>(r)] >= 0.45 && seconds[static_cast<size_t>(r)] < 2.0, qPrintable(QString::number(seconds[static_cast<size_t>(r)])));
    }
    QVERIFY(seconds[1] < 0.2);  // the late rank is told at once, it does not wait again
  }

  void abortStopsTheOthersWithTheReason() {
    constexpr int kRanks = 3;
    InProcessGroup group(kRanks, cpuNames(kRanks), 30.0);  // far longer than the test may take
    std::vector<double> seconds(kRanks, 0.0);
    const auto errors = runRanks(group, [&](int r, Communicator& comm) {
      std::vector<float> values(1000, 1.0f);
      comm.allReduceSum(values.data(), 1000);  // one that succeeds first
      if (r == 2) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        const auto start = Clock::now();
        comm.abort("out of memory in backward");
        comm.abort("a second reason is ignored");
        seconds[2] = secondsSince(start);
        comm.barrier();  // its own later calls throw too
        return;
      }
      const auto start = Clock::now();
      try {
        comm.allReduceSum(values.data(), 1000);
      } catch (const CommError&) {
        seconds[static_cast<size_t>(r)] = secondsSince(start);
        throw;
      }
    });
    for (int r = 0; r < kRanks; ++r) {
      QCOMPARE(QString::fromStdString(errors[static_cast<size_t>(r)]), QString("cpu:2 failed: out of memory in backward"));
    }
    QVERIFY2(seconds[0] < 2.0 && seconds[1] < 2.0, qPrintable(QString("%1 %2").arg(seconds[0]).arg(seconds[1])));
  }

  void bucketsFollowBackwardOrderWithASmallFirstBucket() {
    // Sizes in floats; caps of 100 and 1000 bytes (25 and 250 floats).
    const std::vector<int64_t> sizes = {10, 10, 10, 300, 40, 200, 20, 0, 5};
    std::vector<Tensor> grads;
    for (int64_t s : sizes) grads.emplace_back(Shape{s});
    std::vector<Tensor*> pointers;
    for (auto& g : grads) pointers.push_back(&g);
    GradientBuckets buckets(pointers, BucketOptions{100, 1000});
    // {10,10,10} reaches 120 bytes >= 100; {300} alone is over 1000; {40,200,20} reaches 1040.
    QCOMPARE(buckets.bucketCount(), 4);
    QCOMPARE(buckets.firstGradient(1), 3);
    QCOMPARE(buckets.firstGradient(2), 4);
    QCOMPARE(buckets.firstGradient(3), 7);
    QCOMPARE(buckets.firstGradient(4), 9);
    QCOMPARE(buckets.bucketSize(0), 30);
    QCOMPARE(buckets.bucketSize(1), 300);
    QCOMPARE(buckets.bucketSize(3), 5);
    QCOMPARE(buckets.bucketOf(8), 3);
    QVERIFY(buckets.bucketData(1) == grads[3].data());  // one gradient: reduced in place

    // Two ranks with the same values: reducing bucket 2 doubles its gradients, through the flat
    // buffer (one collective), and leaves the other buckets alone.
    InProcessGroup group(2, cpuNames(2), 10.0);
    verifyNoErrors(runRanks(group, [&](int r, Communicator& comm) {
      std::vector<Tensor> mine;
      for (int64_t s : sizes) mine.emplace_back(Shape{s});
      std::vector<Tensor*> mp;
      for (auto& g : mine) mp.push_back(&g);
      for (size_t g = 0; g < mine.size(); ++g)
        for (int64_t i = 0; i < mine[g].size(); ++i) mine[g][i] = static_cast<float>(g * 1000 + i);
      GradientBuckets rankBuckets(mp, BucketOptions{100, 1000});
      rankBuckets.reduce(2, comm);
      if (rankBuckets.bucketData(2)[40] != 2 * 5000.0f) throw Error("bucket 2's flat buffer does not hold the sums");
      if (mine[4][39] != 2 * 4039.0f || mine[6][19] != 2 * 6019.0f) throw Error("sums not copied back");
      if (mine[3][0] != 3000.0f) throw Error("another bucket was touched");
      (void)r;
    }));
  }

  // Bucket 0 is summed over the ranks while each worker has not yet produced bucket 1: the
  // communication overlaps the rest of backward. Rank 1 marks its buckets in the opposite order
  // in the second iteration; the reducer still reduces them in index order.
  void bucketReducedWhileBackwardGoesOn() {
    constexpr int kRanks = 2;
    constexpr int kIterations = 3;
    const std::vector<int64_t> sizes = {1000, 300000, 1000};
    InProcessGroup group(kRanks, cpuNames(kRanks), 10.0);
    std::vector<int> overlapped(kRanks, 0);
    verifyNoErrors(runRanks(group, [&](int r, Communicator& comm) {
      std::vector<Tensor> grads;
      for (int64_t s : sizes) grads.emplace_back(Shape{s});
      std::vector<Tensor*> pointers;
      for (auto& g : grads) pointers.push_back(&g);
      GradientBuckets buckets(pointers, BucketOptions{4000, int64_t{25} << 20});
      if (buckets.bucketCount() != 2) throw Error("expected 2 buckets");
      BucketReducer reducer(comm, buckets);
      const auto produce = [&](int g, int it) {
        for (int64_t i = 0; i < grads[g].size(); ++i) grads[g][i] = static_cast<float>((r + 1) * (g + it + 1));
      };
      for (int it = 0; it < kIterations; ++it) {
        if (r == 1 && it == 1) {
          produce(1, it); produce(2, it);
          reducer.gradientReady(1); reducer.gradientReady(2);
          produce(0, it);
          reducer.gradientReady(0);
        } else {
          produce(0, it);
          reducer.gradientReady(0);
          // "Computing" the rest of backward: bucket 1 is not ready until bucket 0 is reduced.
          const auto start = Clock::now();
          while (reducer.reducedCount() < 1 && secondsSince(start) < 5.0) std::this_thread::sleep_for(std::chrono::microseconds(200));
          if (reducer.reducedCount() >= 1) ++overlapped[static_cast<size_t>(r)];
          produce(1, it); produce(2, it);
          reducer.gradientReady(1); reducer.gradientReady(2);
        }
        reducer.wait();
        for (int g = 0; g < 3; ++g) {
          const float expected = static_cast<float>((1 + 2) * (g + it + 1));
          for (int64_t i = 0; i < grads[g].size(); ++i)
            if (grads[g][i] != expected) throw Error(format("iteration {} gradient {}[{}] is {}, expected {}", it, g, i, grads[g][i], expected));
        }
        if (reducer.lastIteration().commSeconds <= 0) throw Error("no communication time recorded");
      }
    }));
    QCOMPARE(overlapped[0], kIterations);
    QCOMPARE(overlapped[1], kIterations - 1);
  }

  // A worker that fails mid-iteration: its reducer is destroyed before its buckets are reduced;
  // the other rank's wait() reports the failed device and its reason, long before the timeout.
  void failedWorkerStopsTheOthersReducer() {
    InProcessGroup group(2, cpuNames(2), 30.0);
    std::vector<std::string> reasons(2);
    const auto start = Clock::now();
    verifyNoErrors(runRanks(group, [&](int r, Communicator& comm) {
      Tensor g0(Shape{100}), g1(Shape{100});
      g0.fill(1);
      g1.fill(1);
      GradientBuckets buckets({&g0, &g1}, BucketOptions{4, 4});
      BucketReducer reducer(comm, buckets);
      reducer.gradientReady(0);
      if (r == 1) {
        comm.abort("injected failure in backward");
        return;  // the reducer is destroyed mid-iteration
      }
      reducer.gradientReady(1);
      try {
        reducer.wait();
      } catch (const CommError& e) {
        reasons[0] = e.what();
      }
      try {
        reducer.wait();  // the error stays
      } catch (const CommError& e) {
        reasons[1] = e.what();
      }
    }));
    QVERIFY(secondsSince(start) < 5.0);
    QCOMPARE(QString::fromStdString(reasons[0]), QString("cpu:1 failed: injected failure in backward"));
    QCOMPARE(reasons[1], reasons[0]);
  }

  void badArgumentsAreErrors() {
    QVERIFY_THROWS_EXCEPTION(Error, InProcessGroup(2, cpuNames(3), 1.0));
    QVERIFY_THROWS_EXCEPTION(Error, InProcessGroup(0, {}, 1.0));
    QVERIFY_THROWS_EXCEPTION(Error, InProcessGroup(1, cpuNames(1), 0.0));
    InProcessGroup group(1, cpuNames(1), 1.0);
    float x = 1;
    QVERIFY_THROWS_EXCEPTION(Error, group.communicator(0).broadcast(&x, 1, 1));
    QVERIFY_THROWS_EXCEPTION(Error, group.communicator(0).allReduceSum(&x, -1));
    QVERIFY_THROWS_EXCEPTION(Error, group.communicator(1));
    group.communicator(0).allReduceSum(&x, 1);
    QCOMPARE(x, 1.0f);
  }
};

QTEST_GUILESS_MAIN(CommunicatorTest)
#include "tst_communicator.moc"
