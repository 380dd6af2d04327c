// Draft: allocation counting around steady-state training steps.
#include <QtTest>

#include <dlfcn.h>
#include <execinfo.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <new>
#include <oneapi/dnnl/dnnl.h>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/backend/cpu/cpu_precision.h"
#include "engine/core/rng.h"
#include "engine/ops/op_registry.h"
#include "engine/optim/optimizer.h"
#include "engine/project/graph.h"
#include "engine/project/project_io.h"
#include "engine/train/network.h"

using namespace netsmith;

namespace {

std::atomic<bool> g_counting{false};
std::atomic<int64_t> g_mallocs{0};
std::atomic<int64_t> g_news{0};
thread_local int t_inHook = 0;

// Traces
constexpr int kMaxTraces = 20000;
constexpr int kFrames = 20;
struct Trace {
  int depth;
  void* frames[kFrames];
};
Trace g_traces[kMaxTraces];
std::atomic<int> g_traceCount{0};
bool g_tracing = false;

void countMalloc() {
  if (!g_counting.load(std::memory_order_relaxed)) return;
  g_mallocs.fetch_add(1, std::memory_order_relaxed);
  if (g_tracing && t_inHook == 0) {
    ++t_inHook;
    const int i = g_traceCount.fetch_add(1);
    if (i < kMaxTraces) g_traces[i].depth = backtrace(g_traces[i].frames, kFrames);
    --t_inHook;
  }
}

}  // namespace

extern "C" {
void* __libc_malloc(size_t);
void __libc_free(void*);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);

void* malloc(size_t n) {
  countMalloc();
  return __libc_malloc(n);
}
void free(void* p) { __libc_free(p); }
void* calloc(size_t a, size_t b) {
  countMalloc();
  return __libc_calloc(a, b);
}
void* realloc(void* p, size_t n) {
  countMalloc();
  return __libc_realloc(p, n);
}
void* memalign(size_t a, size_t n) {
  countMalloc();
  return __libc_memalign(a, n);
}
void* aligned_alloc(size_t a, size_t n) {
  countMalloc();
  return __libc_memalign(a, n);
}
int posix_memalign(void** out, size_t a, size_t n) {
  countMalloc();
  void* p = __libc_memalign(a, n);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

using ExecuteFn = dnnl_status_t (*)(const_dnnl_primitive_t, dnnl_stream_t, int, const dnnl_exec_arg_t*);
}

namespace {
ExecuteFn g_realExecute = nullptr;
std::atomic<int64_t> g_executes{0};
std::atomic<int64_t> g_insideExecute{0};
std::map<int, int64_t> g_executesByArgs;  // worker thread only
}  // namespace

extern "C" dnnl_status_t dnnl_primitive_execute(const_dnnl_primitive_t p, dnnl_stream_t s, int nargs,
                                               const dnnl_exec_arg_t* args) {
  const bool counting = g_counting.load();
  const int64_t before = g_mallocs.load();
  const dnnl_status_t st = g_realExecute(p, s, nargs, args);
  if (counting) {
    ++g_executes;
    g_insideExecute += g_mallocs.load() - before;
    g_counting = false;
    ++g_executesByArgs[nargs];
    g_counting = true;
  }
  return st;
}

void* operator new(size_t n) {
  if (g_counting.load(std::memory_order_relaxed)) g_news.fetch_add(1, std::memory_order_relaxed);
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  return p;
}
void* operator new[](size_t n) { return operator new(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  if (g_counting.load(std::memory_order_relaxed)) g_news.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(n ? n : 1);
}
void* operator new[](size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void* operator new(size_t n, std::align_val_t a) {
  if (g_counting.load(std::memory_order_relaxed)) g_news.fetch_add(1, std::memory_order_relaxed);
  void* p = nullptr;
  if (posix_memalign(&p, std::max(sizeof(void*), static_cast<size_t>(a)), n ? n : 1) != 0) throw std::bad_alloc();
  return p;
}
void* operator new[](size_t n, std::align_val_t a) { return operator new(n, a); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { std::free(p); }

namespace {

struct Counts {
  int64_t mallocs = 0, news = 0, executes = 0, inside = 0;
};

template <class F>
Counts counted(F&& f) {
  g_mallocs = 0;
  g_news = 0;
  g_executes = 0;
  g_insideExecute = 0;
  g_counting = true;
  f();
  g_counting = false;
  return {g_mallocs.load(), g_news.load(), g_executes.load(), g_insideExecute.load()};
}

void dumpTraces() {
  const int n = std::min(g_traceCount.load(), kMaxTraces);
  std::map<std::vector<std::string>, int> byStack;
  for (int i = 0; i < n; ++i) {
    std::vector<std::string> frames;
    for (int f = 2; f < g_traces[i].depth; ++f) {
      Dl_info info{};
      char buf[512];
      if (dladdr(g_traces[i].frames[f], &info) && info.dli_fname) {
        std::snprintf(buf, sizeof buf, "%s+0x%lx", info.dli_fname,
                      static_cast<unsigned long>(static_cast<char*>(g_traces[i].frames[f]) -
                                                 static_cast<char*>(info.dli_fbase)) - 1);
      } else {
        std::snprintf(buf, sizeof buf, "%p", g_traces[i].frames[f]);
      }
      frames.push_back(buf);
    }
    ++byStack[frames];
  }
  FILE* out = std::fopen("/tmp/alloc_traces.txt", "w");
  for (const auto& [frames, count] : byStack) {
    std::fprintf(out, "COUNT %d\n", count);
    for (const auto& f : frames) std::fprintf(out, "  %s\n", f.c_str());
  }
  std::fclose(out);
}

}  // namespace

class StepAllocationsTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    g_realExecute = reinterpret_cast<ExecuteFn>(dlsym(RTLD_NEXT, "dnnl_primitive_execute"));
    QVERIFY(g_realExecute);
    void* frames[4];
    backtrace(frames, 4);
  }

  void steps_data() {
    QTest::addColumn<QString>("sample");
    QTest::addColumn<QString>("precision");
    QTest::addColumn<int>("threads");
    for (const char* s : {"mlp", "lenet", "resnet"})
      for (const char* p : {"float", "bfloat16"})
        QTest::newRow(qPrintable(QString("%1 %2").arg(s, p))) << s << p << 2;
  }

  void steps() {
    QFETCH(QString, sample);
    QFETCH(QString, precision);
    QFETCH(int, threads);
    const Precision p = parsePrecision(precision.toStdString());
    if (p == Precision::BFloat16 && cpu::bf16Support() != cpu::Bf16Support::Native) QSKIP("no native bf16");
    const Project project =
        loadProject(std::string(NETSMITH_SOURCE_DIR) + "/projects/fashion_mnist_" + sample.toStdString() + ".nsproj");
    const Graph graph = buildGraph(project.network, OpRegistry::builtin());
    CpuDeviceContext device("cpu:0", threads, p);
    device.bindToCurrentThread();
    Network net(graph, device);
    net.initializeParameters(7);
    std::unique_ptr<Optimizer> optimizer = Optimizer::create(project.optimizer);
    std::vector<ParamSlot> paramSlots;
    for (const ParameterRef& ref : net.kernelParameters())
      if (ref.grad) paramSlots.push_back({ref.name, ref.value, ref.grad});
    const int64_t batch = 64;
    Rng rng(3);
    Tensor x(withBatch(batch, graph.input().outputShape)), labels(Shape{batch, 1});
    for (int64_t i = 0; i < x.size(); ++i) x[i] = rng.uniform(0.0f, 1.0f);
    for (int64_t i = 0; i < batch; ++i) labels[i] = static_cast<float>(i % 10);
    std::vector<int64_t> ids(batch);
    for (int64_t i = 0; i < batch; ++i) ids[i] = i;
    const double lr = optimizer->baseLearningRate();
    int64_t epoch = 0;
    double lossSum = 0;
    const auto step = [&] {
      const Tensor& loss = net.forward(x, labels, true, RandomKey{1, 0, static_cast<uint64_t>(epoch), ids.data()});
      for (int64_t i = 0; i < loss.size(); ++i) lossSum += loss[i];
      net.backward(1.0f / static_cast<float>(batch));
      optimizer->step(paramSlots, lr);
    };
    for (int i = 0; i < 3; ++i) step();
    g_tracing = qEnvironmentVariableIsSet("NETSMITH_ALLOC_TRACE");
    g_traceCount = 0;
    g_executesByArgs.clear();
    const int kSteps = 4;
    const Counts c = counted([&] {
      for (int i = 0; i < kSteps; ++i) step();
    });
    g_tracing = false;
    if (qEnvironmentVariableIsSet("NETSMITH_ALLOC_TRACE")) dumpTraces();
    std::string byArgs;
    for (const auto& [k, v] : g_executesByArgs) byArgs += std::to_string(k) + ":" + std::to_string(v / kSteps) + " ";
    qInfo("%s %s: per step mallocs %.1f, operator new %.1f, executes %.1f (%s), mallocs inside execute %.1f",
          qPrintable(sample), qPrintable(precision), c.mallocs / double(kSteps), c.news / double(kSteps),
          c.executes / double(kSteps), byArgs.c_str(), c.inside / double(kSteps));
  }
};

QTEST_GUILESS_MAIN(StepAllocationsTest)
#include "tst_step_allocations.moc"
