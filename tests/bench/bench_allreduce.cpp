// netsmith-bench-allreduce: bandwidth of the in-process all-reduce (Note [In-process
// all-reduce]) against a plain memcpy of the same bytes, measured in the same run.
//
//   netsmith-bench-allreduce [--ranks N] [--seconds S]
//
// Buffers: a LeNet-sized gradient (430,000 floats, 1.7 MB) and 16 MiB. Each rank is a thread
// with its own buffer, which it rewrites before every call, as backward does (otherwise each
// chunk would stay in its owner's cache from one call to the next, and the figures would be too
// good). A call's time is measured on rank 0 from the moment all ranks leave a barrier until its
// all-reduce returns (the last round is a barrier, so every rank is done by then). Algorithm bandwidth = buffer bytes / time; bus bandwidth =
// 2(N-1)/N × that (NCCL's convention, comparable across N). The memcpy is one thread copying the
// same bytes between two warm buffers. The two are timed in alternating slices of the time budget
// (--seconds per buffer and method). Figures are medians over repeats (best in brackets); the
// ratio is algorithm bandwidth / memcpy bandwidth, and the goal of issue 3 is >= 0.5. Prints one
// line per buffer, then one JSON line.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "engine/comm/communicator.h"
#include "engine/core/tensor.h"

namespace {

using namespace netsmith;
using Clock = std::chrono::steady_clock;
constexpr int kSlices = 5;

struct Stats {
  double median = 0;
  double best = 0;
};

Stats summarize(std::vector<double> seconds) {
  std::sort(seconds.begin(), seconds.end());
  return {seconds[seconds.size() / 2], seconds.front()};
}

// Repeats fn until `budget` seconds have passed (at least minRepeats times), after a warm-up.
template <typename Fn>
std::vector<double> timeRepeated(double budget, int minRepeats, Fn&& fn) {
  for (int i = 0; i < 3; ++i) fn();
  std::vector<double> times;
  const auto start = Clock::now();
  while (static_cast<int>(times.size()) < minRepeats || std::chrono::duration<double>(Clock::now() - start).count() < budget) {
    const auto t = Clock::now();
    fn();
    times.push_back(std::chrono::duration<double>(Clock::now() - t).count());
  }
  return times;
}

std::vector<double> memcpySeconds(int64_t count, double budget) {
  Tensor src(Shape{count}), dst(Shape{count});
  src.fill(1.0f);
  dst.zero();
  return timeRepeated(budget, 20, [&] { std::memcpy(dst.data(), src.data(), static_cast<size_t>(count) * sizeof(float)); });
}

std::vector<double> allReduceSeconds(int ranks, int64_t count, double budget) {
  std::vector<std::string> names;
  for (int r = 0; r < ranks; ++r) names.push_back("cpu:" + std::to_string(r));
  InProcessGroup group(ranks, names, 60.0);
  std::vector<double> times;
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      Communicator& comm = group.communicator(r);
      // Zeros: sums never overflow or turn subnormal, which would change the speed.
      Tensor buffer(Shape{count});
      buffer.zero();
      for (int i = 0; i < 3; ++i) comm.allReduceSum(buffer.data(), count);
      const auto start = Clock::now();
      for (int i = 0;; ++i) {
        // Rank 0 decides when to stop; the flag travels by broadcast so all ranks agree.
        float more = 0;
        if (r == 0) more = (i < 20 || std::chrono::duration<double>(Clock::now() - start).count() < budget) ? 1.0f : 0.0f;
        comm.broadcast(&more, 1, 0);
        if (more == 0) break;
        buffer.zero();
        comm.barrier();
        const auto t = Clock::now();
        comm.allReduceSum(buffer.data(), count);
        if (r == 0) times.push_back(std::chrono::duration<double>(Clock::now() - t).count());
      }
    });
  }
  for (auto& t : threads) t.join();
  return times;
}

}  // namespace

int main(int argc, char** argv) {
  int ranks = 2;
  double budget = 1.0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--ranks" && i + 1 < argc) {
      ranks = std::atoi(argv[++i]);
    } else if (a == "--seconds" && i + 1 < argc) {
      budget = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: netsmith-bench-allreduce [--ranks N] [--seconds S]\n");
      return 2;
    }
  }
  if (ranks < 1 || budget <= 0) {
    std::fprintf(stderr, "--ranks must be >= 1 and --seconds > 0\n");
    return 2;
  }
  struct Case {
    const char* name;
    int64_t count;
  };
  const Case cases[] = {{"lenet_gradient", 430000}, {"16MiB", int64_t{16} << 18}};
  std::string json = "{\"bench\":\"allreduce\",\"ranks\":" + std::to_string(ranks) + ",\"hardware_threads\":" +
                     std::to_string(std::thread::hardware_concurrency()) + ",\"cases\":[";
  for (const Case& c : cases) {
    const double bytes = static_cast<double>(c.count) * sizeof(float);
    // Alternating slices, so that a change in the machine's load (it is shared) affects both.
    std::vector<double> copyTimes, reduceTimes;
    for (int slice = 0; slice < kSlices; ++slice) {
      const auto c1 = memcpySeconds(c.count, budget / kSlices);
      copyTimes.insert(copyTimes.end(), c1.begin(), c1.end());
      const auto r1 = allReduceSeconds(ranks, c.count, budget / kSlices);
      reduceTimes.insert(reduceTimes.end(), r1.begin(), r1.end());
    }
    const Stats copy = summarize(copyTimes);
    const Stats reduce = summarize(reduceTimes);
    const double copyGBs = bytes / copy.median * 1e-9;
    const double algGBs = bytes / reduce.median * 1e-9;
    const double busGBs = algGBs * 2.0 * (ranks - 1) / ranks;
    const double ratio = algGBs / copyGBs;
    std::printf(
        "%-15s %9lld floats (%.2f MB), %d ranks: all-reduce %8.1f us (best %8.1f), algbw %6.2f GB/s (best %6.2f), "
        "busbw %6.2f GB/s; memcpy %8.1f us, %6.2f GB/s (best %6.2f); all-reduce/memcpy %.2f %s\n",
        c.name, static_cast<long long>(c.count), bytes * 1e-6, ranks, reduce.median * 1e6, reduce.best * 1e6, algGBs,
        bytes / reduce.best * 1e-9, busGBs, copy.median * 1e6, copyGBs, bytes / copy.best * 1e-9, ratio,
        ratio >= 0.5 ? "(goal >= 0.5 met)" : "(goal >= 0.5 NOT met)");
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "%s{\"case\":\"%s\",\"floats\":%lld,\"allreduce_us\":%.2f,\"allreduce_best_us\":%.2f,"
                  "\"algbw_gbs\":%.3f,\"busbw_gbs\":%.3f,\"memcpy_us\":%.2f,\"memcpy_gbs\":%.3f,\"ratio\":%.3f}",
                  &c == cases ? "" : ",", c.name, static_cast<long long>(c.count), reduce.median * 1e6,
                  reduce.best * 1e6, algGBs, busGBs, copy.median * 1e6, copyGBs, ratio);
    json += buf;
  }
  json += "]}";
  std::printf("%s\n", json.c_str());
  return 0;
}
