// netsmith-bench-peak: what this CPU can do at most, so that a benchmark's GFLOP/s can be read as
// a fraction of it (tests/bench/run_cpu_benchmark.sh prints both).
//
//   netsmith-bench-peak [--threads 1,2] [--seconds S] [--gemm N]
//
// For each thread count:
//  - fma_avx512 / fma_avx2: an FMA loop with 12 independent accumulators per thread (vfmadd on
//    zmm / ymm registers, no memory traffic), fp32 GFLOP/s (2 FLOPs per lane per FMA). The
//    instruction-level ceiling: no real kernel exceeds it.
//  - dpbf16_avx512: the same with vdpbf16ps (AVX512_BF16: 32 bf16 products summed pairwise into
//    16 fp32 lanes, 64 FLOPs per instruction), where the CPU has it: the bf16 ceiling.
//  - gemm_f32 / gemm_bf16: oneDNN's matmul on an N x N x N problem (default 2048), f32 in and out,
//    and bf16 inputs with f32 output (what bfloat16 training asks of oneDNN); the weights in the
//    layout oneDNN prefers, reordered once outside the timing. The practical ceiling of a GEMM
//    library on this machine.
// Every figure is the best of several timed repeats (a ceiling: on a shared machine the best is the
// one least disturbed); the median is printed beside it. One JSON line on stdout.
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include "oneapi/dnnl/dnnl.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Each kernel runs `iters` iterations of 12 independent FMAs on 12 named register accumulators
// (an array would be kept on the stack) and returns a value that depends on every accumulator, so
// the compiler can drop nothing. The empty asm keeps it from folding the loop.
#define NS_PEAK_ACCS(T, init) T a0 = init(1.00f), a1 = init(1.01f), a2 = init(1.02f), a3 = init(1.03f), \
    a4 = init(1.04f), a5 = init(1.05f), a6 = init(1.06f), a7 = init(1.07f), a8 = init(1.08f), a9 = init(1.09f), \
    a10 = init(1.10f), a11 = init(1.11f)
#define NS_PEAK_STEP(op) a0 = op(a0); a1 = op(a1); a2 = op(a2); a3 = op(a3); a4 = op(a4); a5 = op(a5); \
    a6 = op(a6); a7 = op(a7); a8 = op(a8); a9 = op(a9); a10 = op(a10); a11 = op(a11)
#define NS_PEAK_BARRIER(c) __asm__ volatile("" : "+" c(a0), "+" c(a1), "+" c(a2), "+" c(a3), "+" c(a4), "+" c(a5), \
    "+" c(a6), "+" c(a7), "+" c(a8), "+" c(a9), "+" c(a10), "+" c(a11))

__attribute__((target("avx512f"))) float fmaAvx512(long iters) {
  NS_PEAK_ACCS(__m512, _mm512_set1_ps);
  const __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-7f);
#define OP(a) _mm512_fmadd_ps(a, x, y)
  for (long n = 0; n < iters; ++n) {
    NS_PEAK_STEP(OP);
    NS_PEAK_BARRIER("v");
  }
#undef OP
  const __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                                               _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7))),
                                 _mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)));
  return _mm512_reduce_add_ps(s);
}

__attribute__((target("avx2,fma"))) float fmaAvx2(long iters) {
  NS_PEAK_ACCS(__m256, _mm256_set1_ps);
  const __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-7f);
#define OP(a) _mm256_fmadd_ps(a, x, y)
  for (long n = 0; n < iters; ++n) {
    NS_PEAK_STEP(OP);
    NS_PEAK_BARRIER("x");
  }
#undef OP
  const __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                                               _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7))),
                                 _mm256_add_ps(_mm256_add_ps(a8, a9), _mm256_add_ps(a10, a11)));
  float out[8];
  _mm256_storeu_ps(out, s);
  return out[0] + out[7];
}

__attribute__((target("avx512f,avx512bf16"))) float dpbf16Avx512(long iters) {
  NS_PEAK_ACCS(__m512, _mm512_set1_ps);
  const __m512bh x = _mm512_cvtne2ps_pbh(_mm512_set1_ps(1e-3f), _mm512_set1_ps(1e-3f));
  const __m512bh y = _mm512_cvtne2ps_pbh(_mm512_set1_ps(1e-4f), _mm512_set1_ps(1e-4f));
#define OP(a) _mm512_dpbf16_ps(a, x, y)
  for (long n = 0; n < iters; ++n) {
    NS_PEAK_STEP(OP);
    NS_PEAK_BARRIER("v");
  }
#undef OP
  const __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                                               _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7))),
                                 _mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)));
  return _mm512_reduce_add_ps(s);
}

struct Figure {
  double best = 0, median = 0;
};

Figure summarize(std::vector<double> gflops) {
  std::sort(gflops.begin(), gflops.end());
  return {gflops.back(), gflops[gflops.size() / 2]};
}

volatile float g_sink = 0;

// GFLOP/s of `kernel` on `threads` threads, each running the same iteration count; repeats until
// `seconds` have passed (at least 3 repeats).
Figure loopPeak(float (*kernel)(long), double flopsPerIter, int threads, double seconds) {
  // Calibrate: iterations for ~0.1 s on one thread.
  long iters = 1 << 16;
  for (;;) {
    const auto t = Clock::now();
    g_sink = g_sink + kernel(iters);
    if (secondsSince(t) > 0.05) break;
    iters *= 2;
  }
  iters *= 2;
  std::vector<double> runs;
  const auto start = Clock::now();
  while (runs.size() < 3 || secondsSince(start) < seconds) {
    const auto t = Clock::now();
#pragma omp parallel num_threads(threads)
    { g_sink = g_sink + kernel(iters); }
    runs.push_back(flopsPerIter * static_cast<double>(iters) * threads / secondsSince(t) / 1e9);
  }
  return summarize(runs);
}

// oneDNN matmul C(n x n, f32) = A(n x n) * B(n x n), A and B in `type`.
Figure gemmPeak(dnnl::memory::data_type type, int threads, int64_t n, double seconds) {
  using namespace dnnl;
  omp_set_num_threads(threads);
  engine eng(engine::kind::cpu, 0);
  stream strm(eng);
  const memory::dims dims{n, n};
  const memory::desc aMd(dims, type, memory::format_tag::ab);
  const memory::desc bAny(dims, type, memory::format_tag::any);
  const memory::desc cMd(dims, memory::data_type::f32, memory::format_tag::ab);
  const matmul::primitive_desc pd(matmul::desc(aMd, bAny, cMd), eng);
  memory a(aMd, eng), bPlain(memory::desc(dims, type, memory::format_tag::ab), eng), b(pd.weights_desc(), eng),
      c(cMd, eng);
  // Fill through f32 and a reorder, so bf16 gets the same values.
  memory af(memory::desc(dims, memory::data_type::f32, memory::format_tag::ab), eng);
  auto* p = static_cast<float*>(af.get_data_handle());
  for (int64_t i = 0; i < n * n; ++i) p[i] = static_cast<float>((i * 7919) % 1000) * 1e-3f - 0.5f;
  reorder(af, a).execute(strm, af, a);
  reorder(af, bPlain).execute(strm, af, bPlain);
  reorder(bPlain, b).execute(strm, bPlain, b);
  matmul mm(pd);
  const std::unordered_map<int, memory> args{{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}};
  mm.execute(strm, args);  // warm-up (JIT, first touch)
  strm.wait();
  std::vector<double> runs;
  const auto start = Clock::now();
  while (runs.size() < 3 || secondsSince(start) < seconds) {
    const auto t = Clock::now();
    mm.execute(strm, args);
    strm.wait();
    runs.push_back(2.0 * static_cast<double>(n) * n * n / secondsSince(t) / 1e9);
  }
  return summarize(runs);
}

nlohmann::ordered_json toJson(const Figure& f) { return {{"best", f.best}, {"median", f.median}}; }

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> threadCounts{1, 2};
  double seconds = 1.0;
  int64_t gemmN = 2048;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--threads" && v) {
      threadCounts.clear();
      for (std::string s = argv[++i]; !s.empty();) {
        const size_t comma = s.find(',');
        threadCounts.push_back(std::atoi(s.substr(0, comma).c_str()));
        s = comma == std::string::npos ? "" : s.substr(comma + 1);
      }
    } else if (a == "--seconds" && v) {
      seconds = std::atof(argv[++i]);
    } else if (a == "--gemm" && v) {
      gemmN = std::atoll(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: netsmith-bench-peak [--threads 1,2] [--seconds S] [--gemm N]\n");
      return 2;
    }
  }
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f");
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const bool bf16 = avx512 && __builtin_cpu_supports("avx512bf16");
  nlohmann::ordered_json out;
  out["isa"] = {{"avx512f", avx512}, {"avx2_fma", avx2}, {"avx512_bf16", bf16}};
  out["gemm_n"] = gemmN;
  const dnnl_version_t* ver = dnnl_version();
  out["onednn"] = std::to_string(ver->major) + "." + std::to_string(ver->minor) + "." + std::to_string(ver->patch);
  out["unit"] = "GFLOP/s (best and median of the timed repeats)";
  for (const int t : threadCounts) {
    nlohmann::ordered_json row;
    if (avx512) row["fma_avx512"] = toJson(loopPeak(fmaAvx512, 12 * 16 * 2, t, seconds));
    if (avx2) row["fma_avx2"] = toJson(loopPeak(fmaAvx2, 12 * 8 * 2, t, seconds));
    if (bf16) row["dpbf16_avx512"] = toJson(loopPeak(dpbf16Avx512, 12 * 32 * 2, t, seconds));
    row["gemm_f32"] = toJson(gemmPeak(dnnl::memory::data_type::f32, t, gemmN, seconds));
    try {
      row["gemm_bf16"] = toJson(gemmPeak(dnnl::memory::data_type::bf16, t, gemmN, seconds));
    } catch (const dnnl::error& e) {
      row["gemm_bf16"] = std::string("unsupported: ") + e.what();
    }
    out["threads_" + std::to_string(t)] = row;
  }
  std::printf("%s\n", out.dump().c_str());
  return 0;
}
