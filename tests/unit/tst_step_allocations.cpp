// A steady-state training step on the CPU allocates nothing of its own (Note [Primitives across
// steps], engine/backend/cpu/primitive_call.h; Note [No allocation per step], engine/train/
// network.cpp): every heap allocation of a step happens inside oneDNN's dnnl_primitive_execute.
//
// Note [Counting a step's allocations]
// This binary replaces malloc, calloc, realloc, the aligned allocators (glibc's __libc_* behind
// them) and the global operator new, and wraps dnnl_primitive_execute (the engine calls it
// through the C API; dlsym(RTLD_NEXT) finds oneDNN's). While counting is on, each allocation is
// attributed to oneDNN when it happens inside an execute: on the executing thread, or, when one
// worker runs alone ("window" mode), on any thread while that worker is inside one (oneDNN's
// OpenMP threads). Several workers run with one thread each, so everything oneDNN does happens on
// the thread that called it ("thread" mode).
// What the test asserts, for every counted step after warm-up steps at the batch size: the
// step's allocations are exactly those made inside dnnl_primitive_execute, none besides them. A
// failure prints where the others came from (module and offset: `addr2line -Cfe MODULE OFFSET`).
// The one known exception is the data: gatherBatch (engine/data) allocates the shapes of the
// batch tensors on every call, so Replica's step may make exactly that many outside oneDNN per
// gather, measured by calling gatherBatch alone.
// What oneDNN allocates is printed per step next to an estimate: sum over the executions of c(k),
// with c(k) what one execute of a trivial primitive with k arguments allocates (a oneDNN sum of
// k - 1 sources, measured here: k + 2 with oneDNN 2.6, its execution context). It is only an
// estimate: the real count depends on the implementation and the thread count (the closures of
// its parallel loops, a scratchpad, GEMM's buffers: a jit:uni reorder makes 3 on one thread and
// 6 on two, a GEMM inner product 7 to 11), so it is not asserted.
// Rows: the three sample projects in float and bfloat16 (skipped where the CPU cannot run bf16
// natively), 1 and 2 threads (backward-weights is chunked on one thread: Note [Conv chunks]),
// through Network + Optimizer as the benchmark steps; and Replica::trainStep with 1 and 2
// workers, in fast and reproducible mode (gradient buckets, the in-process all-reduce, the chunk
// tree).
#include <QtTest>

#include <dlfcn.h>
#include <execinfo.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <oneapi/dnnl/dnnl.h>
#include <string>
#include <thread>
#include <vector>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/backend/cpu/cpu_precision.h"
#include "engine/comm/communicator.h"
#include "engine/core/rng.h"
#include "engine/data/dataset.h"
#include "engine/op_interface/op_registry.h"
#include "engine/optim/optimizer.h"
#include "engine/project/graph.h"
#include "engine/project/project_io.h"
#include "engine/model/network.h"
#include "engine/train/parallel_plan.h"
#include "engine/train/replica.h"

using namespace netsmith;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NETSMITH_COUNT_ALLOCATIONS 0  // the sanitizers own malloc
#else
#define NETSMITH_COUNT_ALLOCATIONS 1
#endif

namespace {

constexpr int kMaxArgs = 16;
constexpr int kTraces = 16;
constexpr int kFrames = 24;

struct Trace {
  int depth = 0;
  void* frames[kFrames];
};

std::atomic<bool> g_counting{false};
bool g_windowMode = true;  // see Note [Counting a step's allocations]
std::atomic<int> g_executeDepth{0};
std::atomic<int64_t> g_allocations{0}, g_news{0}, g_inExecute{0};
std::atomic<int64_t> g_executes[kMaxArgs + 1];
Trace g_outside[kTraces];
std::atomic<int> g_outsideTraces{0};
thread_local int t_executeDepth = 0;
thread_local int t_quiet = 0;  // the hooks' own work: not counted

void onAllocation() {
  if (!g_counting.load(std::memory_order_relaxed) || t_quiet) return;
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (t_executeDepth > 0 || (g_windowMode && g_executeDepth.load(std::memory_order_relaxed) > 0)) {
    g_inExecute.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  const int i = g_outsideTraces.fetch_add(1);
  if (i >= kTraces) return;
  ++t_quiet;
  g_outside[i].depth = backtrace(g_outside[i].frames, kFrames);
  --t_quiet;
}

using ExecuteFn = dnnl_status_t (*)(const_dnnl_primitive_t, dnnl_stream_t, int, const dnnl_exec_arg_t*);
ExecuteFn g_realExecute = nullptr;

}  // namespace

#if NETSMITH_COUNT_ALLOCATIONS
extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void __libc_free(void*);

void* malloc(size_t n) {
  onAllocation();
  return __libc_malloc(n);
}
void free(void* p) { __libc_free(p); }
void* calloc(size_t count, size_t n) {
  onAllocation();
  return __libc_calloc(count, n);
}
void* realloc(void* p, size_t n) {
  onAllocation();
  return __libc_realloc(p, n);
}
void* memalign(size_t alignment, size_t n) {
  onAllocation();
  return __libc_memalign(alignment, n);
}
void* aligned_alloc(size_t alignment, size_t n) {
  onAllocation();
  return __libc_memalign(alignment, n);
}
int posix_memalign(void** out, size_t alignment, size_t n) {
  onAllocation();
  void* p = __libc_memalign(alignment, n);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

// The engine's executes come here; oneDNN's own (nested primitives) do not.
dnnl_status_t dnnl_primitive_execute(const_dnnl_primitive_t primitive, dnnl_stream_t stream, int nargs,
                                     const dnnl_exec_arg_t* args) {
  ++t_executeDepth;
  g_executeDepth.fetch_add(1);
  const dnnl_status_t status = g_realExecute(primitive, stream, nargs, args);
  g_executeDepth.fetch_sub(1);
  --t_executeDepth;
  if (g_counting.load(std::memory_order_relaxed)) g_executes[std::min(nargs, kMaxArgs)].fetch_add(1);
  return status;
}
}  // extern "C"

// Counted on top of malloc (which they call): the measure the issue started from.
void* operator new(size_t n) {
  if (g_counting.load(std::memory_order_relaxed) && !t_quiet) g_news.fetch_add(1, std::memory_order_relaxed);
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  return p;
}
void* operator new[](size_t n) { return operator new(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  if (g_counting.load(std::memory_order_relaxed) && !t_quiet) g_news.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(n ? n : 1);
}
void* operator new[](size_t n, const std::nothrow_t& tag) noexcept { return operator new(n, tag); }
void* operator new(size_t n, std::align_val_t alignment) {
  if (g_counting.load(std::memory_order_relaxed) && !t_quiet) g_news.fetch_add(1, std::memory_order_relaxed);
  void* p = nullptr;
  if (posix_memalign(&p, std::max(sizeof(void*), static_cast<size_t>(alignment)), n ? n : 1) != 0)
    throw std::bad_alloc();
  return p;
}
void* operator new[](size_t n, std::align_val_t alignment) { return operator new(n, alignment); }
void* operator new(size_t n, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  try {
    return operator new(n, alignment);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](size_t n, std::align_val_t alignment, const std::nothrow_t& tag) noexcept {
  return operator new(n, alignment, tag);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
#endif  // NETSMITH_COUNT_ALLOCATIONS

namespace {

struct StepCount {
  int64_t allocations = 0;  // every malloc-family call
  int64_t news = 0;         // operator new calls among them
  int64_t inExecute = 0;    // inside dnnl_primitive_execute
  int64_t executes[kMaxArgs + 1] = {};
  int64_t outside() const { return allocations - inExecute; }
  int64_t executeCount() const {
    int64_t n = 0;
    for (int64_t e : executes) n += e;
    return n;
  }
};

void startCounting(bool windowMode) {
  g_windowMode = windowMode;
  g_allocations = 0;
  g_news = 0;
  g_inExecute = 0;
  for (auto& e : g_executes) e = 0;
  g_outsideTraces = 0;
  g_counting = true;
}

StepCount stopCounting() {
  g_counting = false;
  StepCount c;
  c.allocations = g_allocations.load();
  c.news = g_news.load();
  c.inExecute = g_inExecute.load();
  for (int k = 0; k <= kMaxArgs; ++k) c.executes[k] = g_executes[k].load();
  return c;
}

// Where the allocations outside oneDNN came from, for a failure message.
std::string outsideTraces() {
  std::string out;
  const int n = std::min(g_outsideTraces.load(), kTraces);
  for (int i = 0; i < n; ++i) {
    out += "\n  allocation " + std::to_string(i + 1) + ":";
    for (int f = 1; f < g_outside[i].depth; ++f) {
      Dl_info info{};
      char line[600];
      const auto address = reinterpret_cast<uintptr_t>(g_outside[i].frames[f]);
      if (dladdr(g_outside[i].frames[f], &info) && info.dli_fname) {
        std::snprintf(line, sizeof line, "\n    %s 0x%lx %s", info.dli_fname,
                      static_cast<unsigned long>(address - reinterpret_cast<uintptr_t>(info.dli_fbase) - 1),
                      info.dli_sname ? info.dli_sname : "");
      } else {
        std::snprintf(line, sizeof line, "\n    0x%lx", static_cast<unsigned long>(address));
      }
      out += line;
    }
  }
  return out;
}

// What one execute of a trivial primitive with k arguments allocates inside oneDNN: a sum of
// k - 1 sources of 16 floats. Every one of 8 measured executes must allocate the same.
int64_t g_contextAllocations[kMaxArgs + 1];

int64_t measureContext(dnnl::engine& eng, dnnl::stream& stream, int k) {
  const dnnl::memory::desc md({16}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
  std::vector<dnnl::memory> mems;
  for (int i = 0; i < k; ++i) mems.emplace_back(md, eng);
  const std::vector<dnnl::memory::desc> sources(static_cast<size_t>(k - 1), md);
  const std::vector<float> scales(static_cast<size_t>(k - 1), 1.0f);
  const dnnl::sum sum(dnnl::sum::primitive_desc(md, scales, sources, eng));
  std::vector<dnnl_exec_arg_t> args;
  for (int i = 0; i < k - 1; ++i) args.push_back({DNNL_ARG_MULTIPLE_SRC + i, mems[static_cast<size_t>(i)].get()});
  args.push_back({DNNL_ARG_DST, mems.back().get()});
  for (int i = 0; i < 3; ++i) dnnl_primitive_execute(sum.get(), stream.get(), k, args.data());
  int64_t first = -1;
  for (int i = 0; i < 8; ++i) {
    startCounting(true);
    dnnl_primitive_execute(sum.get(), stream.get(), k, args.data());
    const StepCount c = stopCounting();
    if (c.outside() != 0) return -1;
    if (first < 0) first = c.inExecute;
    if (c.inExecute != first) return -1;
  }
  return first;
}

// The executions' contexts of a step: sum over executions of c(nargs).
int64_t contextOf(const StepCount& c) {
  int64_t n = 0;
  for (int k = 0; k <= kMaxArgs; ++k) n += c.executes[k] * g_contextAllocations[k];
  return n;
}

std::string executesText(const StepCount& c) {
  std::string s;
  for (int k = 0; k <= kMaxArgs; ++k)
    if (c.executes[k]) s += (s.empty() ? "" : ", ") + std::to_string(c.executes[k]) + "x" + std::to_string(k);
  return s;
}

Graph loadSample(const QString& sample, Project& project) {
  project = loadProject(std::string(NETSMITH_SOURCE_DIR) + "/projects/fashion_mnist_" + sample.toStdString() +
                        ".nsproj");
  return buildGraph(project.network, OpRegistry::builtin());
}

bool skipPrecision(Precision p) { return p == Precision::BFloat16 && cpu::bf16Support() != cpu::Bf16Support::Native; }

// Checks every counted step (`allowedOutside` allocations outside oneDNN: the data gather's) and
// prints the first: total, operator new, the executions and the trivial-primitive estimate.
void checkSteps(const char* what, const std::vector<StepCount>& steps, int64_t allowedOutside = 0) {
  for (size_t i = 0; i < steps.size(); ++i) {
    const StepCount& c = steps[i];
    if (c.outside() != allowedOutside) qWarning("%s", outsideTraces().c_str());
    QVERIFY2(c.outside() == allowedOutside,
             qPrintable(QString("%1, step %2: %3 allocation(s) outside oneDNN's execute (of %4), expected %5; "
                                "where: the warning above")
                            .arg(what)
                            .arg(i + 1)
                            .arg(c.outside())
                            .arg(c.allocations)
                            .arg(allowedOutside)));
  }
  int64_t lo = steps[0].allocations, hi = lo;
  for (const StepCount& c : steps) lo = std::min(lo, c.allocations), hi = std::max(hi, c.allocations);
  const StepCount& c = steps[0];
  qInfo("%s: %lld allocations per step (operator new %lld; steps %lld..%lld), %lld of them inside %lld executes "
        "(count x arguments: %s; trivial primitives would make %lld)",
        what, static_cast<long long>(c.allocations), static_cast<long long>(c.news), static_cast<long long>(lo),
        static_cast<long long>(hi), static_cast<long long>(c.inExecute), static_cast<long long>(c.executeCount()),
        executesText(c).c_str(), static_cast<long long>(contextOf(c)));
}

// A dataset of `count` random samples of the graph's Input shape with class labels 0..9, in memory.
Dataset randomDataset(const Graph& graph, int64_t count) {
  Dataset d;
  d.source = d.labelSource = "random";
  d.sampleShape = graph.input().outputShape;
  d.size = count;
  Rng rng(5);
  d.features.resize(static_cast<size_t>(count * numel(d.sampleShape)));
  for (float& v : d.features) v = rng.uniform(0.0f, 1.0f);
  d.labels.resize(static_cast<size_t>(count));
  for (size_t i = 0; i < d.labels.size(); ++i) d.labels[i] = static_cast<float>(i % 10);
  d.numClasses = 10;
  return d;
}

std::vector<int>* volatile g_sink = nullptr;

constexpr int kWarmupSteps = 2;
constexpr int kCountedSteps = 3;
constexpr int64_t kBatch = 64;

}  // namespace

class StepAllocationsTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
#if !NETSMITH_COUNT_ALLOCATIONS
    QSKIP("a sanitizer build replaces malloc itself");
#endif
    g_realExecute = reinterpret_cast<ExecuteFn>(dlsym(RTLD_NEXT, "dnnl_primitive_execute"));
    QVERIFY2(g_realExecute, "oneDNN's dnnl_primitive_execute not found behind this binary's");
    void* frames[4];
    backtrace(frames, 4);  // loads the unwinder now, not inside a counted allocation
    // Counting works at all: a vector allocates once, outside oneDNN.
    startCounting(true);
    g_sink = new std::vector<int>(100);
    StepCount c = stopCounting();
    delete g_sink;
    QCOMPARE(c.allocations, int64_t{2});
    QCOMPARE(c.news, int64_t{2});
    QCOMPARE(c.outside(), int64_t{2});

    dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    dnnl::stream stream(eng);
    for (int k = 2; k <= 8; ++k) {
      g_contextAllocations[k] = measureContext(eng, stream, k);
      QVERIFY2(g_contextAllocations[k] >= 0, qPrintable(QString("a trivial execute of %1 arguments did not allocate "
                                                                "the same every time")
                                                            .arg(k)));
    }
    qInfo("one execute of a trivial primitive with 2..8 arguments allocates %lld %lld %lld %lld %lld %lld %lld",
          static_cast<long long>(g_contextAllocations[2]), static_cast<long long>(g_contextAllocations[3]),
          static_cast<long long>(g_contextAllocations[4]), static_cast<long long>(g_contextAllocations[5]),
          static_cast<long long>(g_contextAllocations[6]), static_cast<long long>(g_contextAllocations[7]),
          static_cast<long long>(g_contextAllocations[8]));
    for (int k = 9; k <= kMaxArgs; ++k) g_contextAllocations[k] = g_contextAllocations[8] + (k - 8);
  }

  // Network forward + backward + Optimizer::step, as netsmith-bench-train's step (without the
  // data gather), on one worker.
  void networkStep_data() {
    QTest::addColumn<QString>("sample");
    QTest::addColumn<QString>("precision");
    QTest::addColumn<int>("threads");
    for (const char* s : {"mlp", "lenet", "resnet"})
      for (const char* p : {"float", "bfloat16"})
        for (int t : {2, 1}) QTest::newRow(qPrintable(QString("%1 %2 %3t").arg(s, p).arg(t))) << s << p << t;
  }

  void networkStep() {
    QFETCH(QString, sample);
    QFETCH(QString, precision);
    QFETCH(int, threads);
    const Precision p = parsePrecision(precision.toStdString());
    if (skipPrecision(p)) QSKIP("this CPU has no native bfloat16 (Note [CPU bfloat16])");
    Project project;
    const Graph graph = loadSample(sample, project);
    CpuDeviceContext device("cpu:0", threads, p);
    device.bindToCurrentThread();
    Network net(graph, device);
    net.initializeParameters(7);
    std::unique_ptr<Optimizer> optimizer = Optimizer::create(project.optimizer);
    std::vector<ParamSlot> trainable;
    for (const ParameterRef& ref : net.kernelParameters())
      if (ref.grad) trainable.push_back({ref.name, ref.value, ref.grad});
    Rng rng(3);
    Tensor x(withBatch(kBatch, graph.input().outputShape)), labels(Shape{kBatch, 1});
    std::vector<int64_t> ids(static_cast<size_t>(kBatch));
    const auto nextBatch = [&](int step) {
      for (int64_t i = 0; i < x.size(); ++i) x[i] = rng.uniform(0.0f, 1.0f);
      for (int64_t i = 0; i < kBatch; ++i) {
        labels[i] = static_cast<float>((i + step) % 10);
        ids[static_cast<size_t>(i)] = step * kBatch + i;
      }
    };
    double lossSum = 0;
    const auto step = [&] {
      const Tensor& loss = net.forward(x, labels, true, RandomKey{1, 0, 0, ids.data()});
      for (int64_t i = 0; i < loss.size(); ++i) lossSum += loss[i];
      net.backward(1.0f / static_cast<float>(kBatch));
      optimizer->step(trainable, optimizer->baseLearningRate());
    };
    for (int i = 0; i < kWarmupSteps; ++i) {
      nextBatch(i);
      step();
    }
    std::vector<StepCount> counts;
    for (int i = 0; i < kCountedSteps; ++i) {
      nextBatch(kWarmupSteps + i);  // outside the count: the data is not the step's
      startCounting(true);
      step();
      counts.push_back(stopCounting());
    }
    QVERIFY(std::isfinite(lossSum));
    checkSteps(qPrintable(QString("%1 %2, %3 thread(s)").arg(sample, precision).arg(threads)), counts);
  }

  // Replica::trainStep, the data gather included, on one worker (1 or 2 threads) or on 2 workers
  // of one thread each.
  void replicaStep_data() {
    QTest::addColumn<QString>("sample");
    QTest::addColumn<int>("workers");
    QTest::addColumn<int>("threads");
    QTest::addColumn<bool>("deterministic");
    QTest::newRow("lenet 1 worker 2 threads") << "lenet" << 1 << 2 << false;
    QTest::newRow("lenet 1 worker reproducible") << "lenet" << 1 << 1 << true;
    QTest::newRow("resnet 1 worker 2 threads") << "resnet" << 1 << 2 << false;
    QTest::newRow("lenet 2 workers") << "lenet" << 2 << 1 << false;
    QTest::newRow("lenet 2 workers reproducible") << "lenet" << 2 << 1 << true;
    QTest::newRow("resnet 2 workers") << "resnet" << 2 << 1 << false;
  }

  void replicaStep() {
    QFETCH(QString, sample);
    QFETCH(int, workers);
    QFETCH(int, threads);
    QFETCH(bool, deterministic);
    Project project;
    const Graph graph = loadSample(sample, project);
    project.config.deterministic = deterministic;
    project.parallel.devices.clear();
    for (int w = 0; w < workers; ++w) project.parallel.devices.push_back("cpu:" + std::to_string(w));
    project.parallel.threadsPerDevice = threads;
    project.config.batchSize = kBatch;
    const Dataset train = randomDataset(graph, 1024);
    bool hasBatchNormalization = false;
    for (const GraphNode& node : graph.nodes) hasBatchNormalization |= node.schema->name == "BatchNormalization";
    const TrainingPlan plan = planTraining(project, train.size, 1, std::max(workers * threads, availableCores()),
                                           hasBatchNormalization);
    QCOMPARE(plan.activeDevices, workers);
    InProcessGroup group(workers, project.parallel.devices, 60.0);

    // What gatherBatch allocates by itself per call, on tensors that already have the batch's size.
    int64_t perGather = 0;
    {
      const std::vector<int64_t> ids{0, 1, 2, 3};
      Tensor x, y;
      gatherBatch(train, ids, x, y);
      startCounting(true);
      gatherBatch(train, ids, x, y);
      perGather = stopCounting().allocations;
    }
    const int64_t slice = plan.devices[0].batch;
    const int64_t gathers = workers * (deterministic ? slice / plan.chunk : 1);
    // The workers step together; the main thread turns counting on and off between steps, while
    // they wait on `phase` (atomics only: nothing allocates there).
    std::atomic<int> phase{0}, done{0};
    std::vector<std::string> errors(static_cast<size_t>(workers));
    const int totalSteps = kWarmupSteps + kCountedSteps;
    std::vector<std::thread> threadsOf;
    for (int w = 0; w < workers; ++w) {
      threadsOf.emplace_back([&, w] {
        try {
          const DevicePlan& slot = plan.devices[static_cast<size_t>(w)];
          CpuDeviceContext device(slot.id, slot.threads, Precision::Float);
          device.bindToCurrentThread();
          Replica replica(graph, plan, slot, device, group.communicator(w), 7);
          const std::vector<int64_t> order = epochOrder(train.size, 7, 0, true);
          for (int s = 0; s < totalSteps; ++s) {
            while (phase.load() < 2 * s + 1) std::this_thread::yield();
            const std::span<const int64_t> batch(order.data() + s * plan.logicalBatch,
                                                 static_cast<size_t>(plan.logicalBatch));
            replica.trainStep(train, batch, 0, plan.effectiveLr);
            done.fetch_add(1);
          }
        } catch (const std::exception& e) {
          errors[static_cast<size_t>(w)] = e.what();
          group.communicator(w).abort(e.what());
          done.fetch_add(totalSteps * workers);
        }
      });
    }
    std::vector<StepCount> counts;
    for (int s = 0; s < totalSteps; ++s) {
      const bool counted = s >= kWarmupSteps;
      if (counted) startCounting(workers == 1);
      phase.store(2 * s + 1);
      while (done.load() < (s + 1) * workers) std::this_thread::yield();
      if (counted) counts.push_back(stopCounting());
      phase.store(2 * s + 2);
    }
    for (auto& t : threadsOf) t.join();
    for (const std::string& e : errors) QVERIFY2(e.empty(), e.c_str());
    checkSteps(qPrintable(QString("Replica %1, %2 worker(s) x %3 thread(s)%4")
                              .arg(sample)
                              .arg(workers)
                              .arg(threads)
                              .arg(deterministic ? ", reproducible" : "")),
               counts, gathers * perGather);
    if (perGather) qInfo("of them outside oneDNN: %lld gathers x %lld (gatherBatch's)", static_cast<long long>(gathers),
                         static_cast<long long>(perGather));
  }
};

QTEST_GUILESS_MAIN(StepAllocationsTest)
#include "tst_step_allocations.moc"
