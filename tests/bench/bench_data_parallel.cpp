// netsmith-bench-parallel: what the data-parallel trainer gives users on this machine — training
// samples/s through runTraining() itself (the trainer, its worker pool, replicas, bucketed
// all-reduce and events), in three configurations per model and batch size:
//
//   A = 2 workers × 1 thread   (devices cpu:0,cpu:1, parallel.threads_per_device 1)
//   B = 1 worker  × 1 thread   (devices cpu:0,       parallel.threads_per_device 1)
//   C = 1 worker  × 2 threads  (devices cpu:0,       parallel.threads_per_device 2)
//
//   netsmith-bench-parallel --project P [--project P2 ...] [--batches 64,256] [--repeats 2]
//                           [--seconds S] [--warmup-iterations W] [--min-iterations M]
//
// The batch is the per-device batch_size (DESIGN.md §6), with the default lr_policy scale_lr:
// A's two workers each train on `batch` samples, so one A iteration is a logical batch of
// 2 × batch. That is the natural data-parallel setting (keep_logical_batch would halve each
// worker's batch and so measure a different, smaller-batch kernel speed).
//
// Every measurement is one fresh runTraining() of a temporary copy of the project (batch_size,
// devices, threads_per_device set; validation removed; max epoch 1; trainSamples chosen so the
// epoch takes about --seconds for B) in a temporary run folder. Samples/s come from the
// `iteration` events: the clock starts at the first event after the warm-up iterations (first
// iterations create oneDNN primitives and fault in memory) and stops at the epoch's last
// iteration event, so data loading, replica construction, the end-of-epoch replica check and
// checkpoint are outside. The per-device compute/sync/wait figures are averaged over the same
// window, weighted by the iterations each event covers; the epoch event's `scaling` summary is
// reported as the engine computes it (whole epoch, warm-up included).
//
// A, B and C run interleaved (A, B, C, A, B, C, ...) for each model and batch, so a change in
// the load of this shared machine hits all three alike; the table gives every repeat and the
// ratios of the medians. Ends with one JSON line of all figures.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/core/error.h"
#include "engine/project/graph.h"
#include "engine/project/project_io.h"
#include "engine/train/events.h"
#include "engine/train/trainer.h"

namespace {

using namespace netsmith;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Options {
  std::vector<std::string> projects;
  std::vector<int64_t> batches{64, 256};
  int repeats = 3;
  double seconds = 4.0;        // B's (slowest configuration's) time per measurement, roughly
  int64_t warmupIterations = 3;
  int64_t minIterations = 20;  // measured A iterations at least, whatever --seconds gives
};

struct Config {
  const char* name;
  int workers;
  int threads;
};
constexpr Config kConfigs[] = {{"A", 2, 1}, {"B", 1, 1}, {"C", 1, 2}};

[[noreturn]] void usage(const std::string& msg) {
  std::fprintf(stderr,
               "%s\nusage: netsmith-bench-parallel --project P [--project P2 ...] [--batches 64,256] [--repeats 2]\n"
               "                               [--seconds S] [--warmup-iterations W] [--min-iterations M]\n",
               msg.c_str());
  std::exit(2);
}

Options parseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage("missing value after " + a);
      return argv[++i];
    };
    auto integer = [&](const std::string& v, int64_t min) {
      char* end = nullptr;
      const long long n = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || *end || n < min) usage(a + ": expected an integer >= " + std::to_string(min) + ", got '" + v + "'");
      return static_cast<int64_t>(n);
    };
    if (a == "--project") {
      o.projects.push_back(value());
    } else if (a == "--batches") {
      o.batches.clear();
      const std::string v = value();
      for (size_t start = 0; start <= v.size();) {
        const size_t comma = std::min(v.find(',', start), v.size());
        o.batches.push_back(integer(v.substr(start, comma - start), 1));
        start = comma + 1;
      }
    } else if (a == "--repeats") {
      o.repeats = static_cast<int>(integer(value(), 1));
    } else if (a == "--seconds") {
      const std::string v = value();
      char* end = nullptr;
      o.seconds = std::strtod(v.c_str(), &end);
      if (v.empty() || *end || !(o.seconds > 0)) usage("--seconds: expected a positive number, got '" + v + "'");
    } else if (a == "--warmup-iterations") {
      o.warmupIterations = integer(value(), 1);
    } else if (a == "--min-iterations") {
      o.minIterations = integer(value(), 2);
    } else if (a == "-h" || a == "--help") {
      usage("netsmith-bench-parallel: data-parallel training throughput through runTraining()");
    } else {
      usage("unknown argument '" + a + "'");
    }
  }
  if (o.projects.empty()) usage("--project is required (e.g. projects/fashion_mnist_lenet.nsproj)");
  return o;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// CPU time as the kernel counts it: this process (all threads), and the whole machine from
// /proc/stat (busy = user + nice + system + irq + softirq; steal = time the hypervisor gave this
// VM's CPUs to someone else). On a shared 2-core VM these tell whether the measurement had the
// cores it asked for: 2 workers need 2 free cores.
struct CpuSample {
  double process = 0;   // seconds
  double busy = 0;      // seconds, summed over all CPUs
  double steal = 0;
};

CpuSample sampleCpu() {
  CpuSample s;
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  s.process = static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  if (std::FILE* f = std::fopen("/proc/stat", "r")) {
    unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    if (std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &system, &idle, &iowait, &irq,
                    &softirq, &steal) == 8) {
      const double hz = static_cast<double>(::sysconf(_SC_CLK_TCK));
      s.busy = static_cast<double>(user + nice + system + irq + softirq) / hz;
      s.steal = static_cast<double>(steal) / hz;
    }
    std::fclose(f);
  }
  return s;
}

// Keeps the events of one run with the time each arrived. The trainer publishes an iteration
// event on its coordinating thread right after the step, so the arrival time is the step's end.
class RecordingSink final : public EventSink {
 public:
  struct Stamped {
    Clock::time_point at;
    CpuSample cpu;
    Json event;
  };
  void publish(const Json& event) override {
    const auto now = Clock::now();
    const CpuSample cpu = event.value("event", "") == "iteration" ? sampleCpu() : CpuSample{};
    std::lock_guard lock(m_mutex);
    m_events.push_back({now, cpu, event});
  }
  std::vector<Stamped> take() {
    std::lock_guard lock(m_mutex);
    return std::move(m_events);
  }

 private:
  std::mutex m_mutex;
  std::vector<Stamped> m_events;
};

struct Measurement {
  double samplesPerS = 0;
  int64_t measuredIterations = 0;
  double measuredSeconds = 0;
  int64_t logicalBatch = 0;
  int64_t iterationsPerEpoch = 0;
  // Per iteration, mean over the workers (ms), over the measured window.
  double computeMs = 0, syncMs = 0, waitMs = 0;
  std::vector<double> computeMsPerDevice;
  // Cores busy during the window: this process, every other process, and stolen by the hypervisor.
  double ownCores = 0, otherCores = 0, stealCores = 0;
  Json scaling;  // the epoch event's scaling summary, as the engine wrote it
  std::vector<std::string> warnings;
};

struct Model {
  std::string key;   // "lenet" from fashion_mnist_lenet.nsproj
  std::string path;
  Project project;
  int64_t multiplyAdds = 0;
  int64_t parameters = 0;
  int64_t trainSize = 0;  // samples in the training set: an epoch cannot be longer
};

std::string fixed2(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string modelKey(const std::string& path) {
  std::string stem = fs::path(path).stem().string();
  for (const char* prefix : {"fashion_mnist_", "fashion-mnist-"})
    if (stem.rfind(prefix, 0) == 0) stem = stem.substr(std::string(prefix).size());
  return stem;
}

// The dataset the project reads must exist; say what to install when it does not, before any
// run starts (runTraining would fail with the bare path).
void checkDataset(const Project& p) {
  for (const std::string& file : {p.dataset.training.images, p.dataset.training.labels, p.dataset.training.csv}) {
    if (file.empty() || fs::exists(file)) continue;
    NS_THROW("{}: training data {} not found. The sample projects read the real Fashion-MNIST from ${DATASETS} = {} "
             "(set $NETSMITH_DATASETS to use another folder): install Debian's dataset-fashion-mnist "
             "(apt-get install dataset-fashion-mnist), as installer/install-deps.sh does",
             p.path, file, datasetsRoot());
  }
}

class Bench {
 public:
  explicit Bench(Options o) : m_o(std::move(o)) {
    char tmpl[] = "/tmp/netsmith-bench-parallel-XXXXXX";
    NS_CHECK(::mkdtemp(tmpl) != nullptr, "cannot create a temporary folder in /tmp");
    m_tmp = tmpl;
  }
  ~Bench() {
    std::error_code ec;
    fs::remove_all(m_tmp, ec);
  }

  int run();

 private:
  Measurement measure(const Model& m, const Config& c, int64_t batch, int64_t trainSamples, bool probe = false);
  int64_t chooseTrainSamples(const Model& m, int64_t batch);

  Options m_o;
  fs::path m_tmp;
  int m_runs = 0;
};

Measurement Bench::measure(const Model& m, const Config& c, int64_t batch, int64_t trainSamples, bool probe) {
  // The project as a user would set it up for this configuration.
  Project p = m.project;
  p.config.batchSize = batch;
  p.config.maxEpoch = 1;
  p.config.deterministic = false;  // fast mode: the mode throughput matters in
  p.dataset.validation = {};       // validation is not training throughput; skip loading it
  p.parallel.devices.clear();
  for (int w = 0; w < c.workers; ++w) p.parallel.devices.push_back("cpu:" + std::to_string(w));
  p.parallel.workerLoad.clear();
  p.parallel.threadsPerDevice = c.threads;
  const int id = m_runs++;
  const fs::path projectPath = m_tmp / format("{}_{}_b{}_{}.nsproj", m.key, c.name, batch, id);
  saveProject(p, projectPath.string());

  RecordingSink sink;
  EventBus bus;
  bus.add(&sink);
  TrainOptions options;
  options.projectPath = projectPath.string();
  options.runDir = (m_tmp / format("run{}", id)).string();
  options.maxEpoch = 1;
  options.trainSamples = trainSamples;
  options.events = &bus;
  const TrainResult result = runTraining(options);
  std::error_code ec;
  fs::remove_all(options.runDir, ec);
  fs::remove(projectPath, ec);
  NS_CHECK(result.status == "completed", "{} {} batch {}: training {}: {}", m.key, c.name, batch, result.status,
           result.message);

  Measurement out;
  const auto events = sink.take();
  const int64_t warmup = m_o.warmupIterations;
  const RecordingSink::Stamped* start = nullptr;
  const RecordingSink::Stamped* last = nullptr;
  int64_t previousIteration = 0;
  double weight = 0;
  for (const auto& e : events) {
    const std::string kind = e.event.value("event", "");
    if (kind == "warning") out.warnings.push_back(e.event.value("message", ""));
    if (kind == "started") {
      out.logicalBatch = e.event.at("logical_batch").get<int64_t>();
      out.iterationsPerEpoch = e.event.at("iterations_per_epoch").get<int64_t>();
      // The plan must be what was asked for, or the figures would be mislabelled.
      const Json& devices = e.event.at("devices");
      NS_CHECK(static_cast<int>(devices.size()) == c.workers && out.logicalBatch == batch * c.workers,
               "{} {}: the trainer planned {} device(s) with logical batch {}, expected {} × {}", m.key, c.name,
               devices.size(), out.logicalBatch, c.workers, batch);
      for (const Json& d : devices)
        NS_CHECK(d.at("threads").get<int>() == c.threads, "{} {}: {} got {} threads, asked for {}", m.key, c.name,
                 d.at("id").get<std::string>(), d.at("threads").get<int>(), c.threads);
    }
    if (kind == "epoch") out.scaling = e.event.value("scaling", Json());
    if (kind != "iteration") continue;
    const int64_t it = e.event.at("iteration").get<int64_t>();
    if (start) {
      // This event's figures are per-iteration means over the iterations since the previous one.
      const double n = static_cast<double>(it - previousIteration);
      const Json& devices = e.event.at("devices");
      out.computeMsPerDevice.resize(devices.size(), 0.0);
      for (size_t d = 0; d < devices.size(); ++d) {
        const Json& dev = devices[d];
        const double k = n / static_cast<double>(devices.size());
        out.computeMs += k * dev.value("compute_ms", 0.0);
        out.syncMs += k * dev.value("sync_ms", 0.0);
        out.waitMs += k * dev.value("wait_ms", 0.0);
        out.computeMsPerDevice[d] += n * dev.value("compute_ms", 0.0);
      }
      weight += n;
      last = &e;
    } else if (it >= warmup) {
      start = &e;
    }
    previousIteration = it;
  }
  if (probe && out.scaling.is_object()) {
    // A probe only sizes the real runs: the epoch's training-only rate is good enough, and a
    // short fast run may have no iteration event between its warm-up and its end.
    out.samplesPerS = out.scaling.value("samples_per_s", 0.0);
    NS_CHECK(out.samplesPerS > 0, "{} {} batch {}: the epoch event has no scaling.samples_per_s", m.key, c.name, batch);
    return out;
  }
  NS_CHECK(start && last && weight > 0,
           "{} {} batch {}: too few iteration events after {} warm-up iterations ({} iterations per epoch): raise "
           "--seconds or --min-iterations",
           m.key, c.name, batch, warmup, out.iterationsPerEpoch);
  out.measuredIterations = last->event.at("iteration").get<int64_t>() - start->event.at("iteration").get<int64_t>();
  out.measuredSeconds = std::chrono::duration<double>(last->at - start->at).count();
  out.samplesPerS = static_cast<double>(out.measuredIterations * out.logicalBatch) / out.measuredSeconds;
  out.computeMs /= weight;
  out.syncMs /= weight;
  out.waitMs /= weight;
  for (double& v : out.computeMsPerDevice) v /= weight;
  const double busy = last->cpu.busy - start->cpu.busy;
  out.ownCores = (last->cpu.process - start->cpu.process) / out.measuredSeconds;
  out.otherCores = std::max(0.0, busy / out.measuredSeconds - out.ownCores);
  out.stealCores = (last->cpu.steal - start->cpu.steal) / out.measuredSeconds;
  return out;
}

// Samples per run: one short B run (which also warms this process: oneDNN's primitive cache,
// the allocator) gives B's speed; the epoch then gets enough samples for B to take about
// --seconds, and at least warm-up + --min-iterations A iterations. Same for A, B and C, so the
// three do the same work.
int64_t Bench::chooseTrainSamples(const Model& m, int64_t batch) {
  const Config& b = kConfigs[1];
  const int64_t probe = (m_o.warmupIterations + 8) * batch;
  const Measurement r = measure(m, b, batch, probe, true);
  const int64_t logical = 2 * batch;  // A's logical batch: the largest of the three
  int64_t samples = static_cast<int64_t>(r.samplesPerS * m_o.seconds);
  samples = std::max(samples, (m_o.warmupIterations + m_o.minIterations) * logical);
  samples = (samples + logical - 1) / logical * logical;
  return std::min(samples, m.trainSize / logical * logical);
}

int Bench::run() {
  std::vector<Model> models;
  for (const std::string& path : m_o.projects) {
    Model m;
    m.path = path;
    m.key = modelKey(path);
    m.project = loadProject(path);
    checkDataset(m.project);
    const Graph g = buildGraph(m.project.network, OpRegistry::builtin());
    m.multiplyAdds = g.multiplyAdds;
    m.parameters = g.parameterCount;
    TrainOptions planOnly;  // loads the training set once, to know its size
    planOnly.projectPath = path;
    m.trainSize = planRun(planOnly).trainSamples;
    models.push_back(std::move(m));
  }

  std::printf("netsmith-bench-parallel: training samples/s through runTraining(), fast mode, lr_policy scale_lr\n");
  std::printf("batch = per-device batch_size: A's 2 workers train on 2 x batch samples per iteration, B and C on batch\n");
  std::printf("A = 2 workers x 1 thread, B = 1 worker x 1 thread, C = 1 worker x 2 threads; this machine: %d cores "
              "(engine's availableCores), %u hardware threads\n",
              availableCores(), std::thread::hardware_concurrency());
  std::printf("warm-up: first %lld iterations of each run excluded; %d repeats, order A,B,C,A,B,C,...; medians\n\n",
              static_cast<long long>(m_o.warmupIterations), m_o.repeats);

  std::printf("Counts (training FLOPs = forward + 2 backward GEMMs = 3 x 2 x forward multiply-adds):\n");
  for (const Model& m : models) {
    const double flops = 6.0 * static_cast<double>(m.multiplyAdds);
    std::printf("  %-6s %12lld MACs/sample forward, %7.2f MFLOP/sample training, %9lld parameters -> %6.2f MB of "
                "gradients all-reduced per iteration\n",
                m.key.c_str(), static_cast<long long>(m.multiplyAdds), flops / 1e6, static_cast<long long>(m.parameters),
                4.0 * static_cast<double>(m.parameters) / 1e6);
  }
  std::printf("\n");
  std::fflush(stdout);

  struct Row {
    const Model* model;
    int64_t batch;
    int64_t trainSamples;
    std::map<std::string, std::vector<Measurement>> runs;  // config name -> repeats
  };
  std::vector<Row> rows;
  std::vector<std::string> warnings;
  for (const Model& m : models) {
    for (int64_t batch : m_o.batches) {
      Row row{&m, batch, chooseTrainSamples(m, batch), {}};
      for (int r = 0; r < m_o.repeats; ++r) {
        for (const Config& c : kConfigs) {
          Measurement x = measure(m, c, batch, row.trainSamples);
          for (const auto& w : x.warnings)
            if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) warnings.push_back(w);
          row.runs[c.name].push_back(std::move(x));
        }
      }
      std::fprintf(stderr, "# done: %s batch %lld (%lld samples per run)\n", m.key.c_str(), static_cast<long long>(batch),
                   static_cast<long long>(row.trainSamples));
      rows.push_back(std::move(row));
    }
  }

  auto rates = [](const std::vector<Measurement>& v) {
    std::vector<double> out;
    for (const auto& x : v) out.push_back(x.samplesPerS);
    return out;
  };
  auto med = [](const std::vector<Measurement>& v, auto field) {
    std::vector<double> out;
    for (const auto& x : v) out.push_back(field(x));
    return median(out);
  };
  auto list = [](const std::vector<double>& v) {
    std::string s;
    for (double x : v) s += format("{}{}", s.empty() ? "" : " ", static_cast<long long>(std::lround(x)));
    return s;
  };

  std::printf("Throughput (samples/s; every repeat, then ratios and GFLOP/s of the medians):\n");
  char line[512];
  std::snprintf(line, sizeof line, "%-6s %5s %6s | %-17s | %-17s | %-17s | %5s %5s | %6s %6s %6s", "model", "batch",
                "n/run", "A 2w x 1t", "B 1w x 1t", "C 1w x 2t", "A/B", "A/C", "GF/s A", "B", "C");
  std::printf("%s\n%s\n", line, std::string(std::strlen(line), '-').c_str());
  for (const Row& row : rows) {
    const double a = median(rates(row.runs.at("A"))), b = median(rates(row.runs.at("B"))), c = median(rates(row.runs.at("C")));
    const double gf = 6.0 * static_cast<double>(row.model->multiplyAdds) / 1e9;
    std::printf("%-6s %5lld %6lld | %-17s | %-17s | %-17s | %5.2f %5.2f | %6.2f %6.2f %6.2f\n", row.model->key.c_str(),
                static_cast<long long>(row.batch), static_cast<long long>(row.trainSamples), list(rates(row.runs.at("A"))).c_str(),
                list(rates(row.runs.at("B"))).c_str(), list(rates(row.runs.at("C"))).c_str(), a / b, a / c, a * gf,
                b * gf, c * gf);
  }
  std::printf("  n/run: training samples per run (the same for A, B and C; B takes about --seconds)\n\n");

  std::printf("Where A's time goes (per iteration, mean of the 2 workers, measured window; medians over repeats):\n");
  std::snprintf(line, sizeof line, "%-6s %5s | %9s %8s %8s %6s | %9s %9s | %7s %7s | %7s %7s %7s", "model", "batch",
                "A compute", "sync", "wait", "share", "B compute", "C compute", "A/B cmp", "A/B max", "scaling",
                "speedup", "sync_s");
  std::printf("%s\n%s\n", line, std::string(std::strlen(line), '-').c_str());
  for (const Row& row : rows) {
    const auto& A = row.runs.at("A");
    const double compute = med(A, [](const Measurement& x) { return x.computeMs; });
    const double sync = med(A, [](const Measurement& x) { return x.syncMs; });
    const double wait = med(A, [](const Measurement& x) { return x.waitMs; });
    const double share = med(A, [](const Measurement& x) { return x.waitMs / (x.computeMs + x.waitMs); });
    const double bCompute = med(row.runs.at("B"), [](const Measurement& x) { return x.computeMs; });
    const double cCompute = med(row.runs.at("C"), [](const Measurement& x) { return x.computeMs; });
    const double engineShare = med(A, [](const Measurement& x) { return x.scaling.value("communication_share", NAN); });
    const double speedup = med(A, [](const Measurement& x) { return x.scaling.value("speedup_estimate", NAN); });
    const double syncS = med(A, [](const Measurement& x) { return x.scaling.value("sync_seconds", NAN); });
    std::printf("%-6s %5lld | %7.2fms %6.2fms %6.2fms %5.1f%% | %7.2fms %7.2fms | %7.2f %7.2f | %6.1f%% %7.2f %7.3f\n",
                row.model->key.c_str(), static_cast<long long>(row.batch), compute, sync, wait, 100 * share, bCompute,
                cCompute, compute / bCompute, 2 * bCompute / compute, 100 * engineShare, speedup, syncS);
  }
  std::printf(
      "  compute/sync/wait: the iteration events' per-device figures; share = wait / (compute + wait) over the window.\n"
      "  B/C compute: one worker's compute per iteration on the same per-device batch; A/B cmp = A's compute per worker\n"
      "  over B's: > 1 means the two workers slow each other down (shared cores, memory bandwidth, other load);\n"
      "  A/B max = 2 x B compute / A compute: the A/B this compute speed would give if sync and wait cost nothing.\n"
      "  scaling / speedup / sync_s: the epoch event's `scaling` summary for A (communication_share, speedup_estimate,\n"
      "  sync_seconds), whole epoch including warm-up; speedup_estimate = summed worker compute / wall time.\n");
  std::printf("\nCPU during the measured windows (cores busy, medians over repeats; the machine has %d):\n", availableCores());
  std::snprintf(line, sizeof line, "%-6s %5s | %-20s | %-20s | %-20s", "model", "batch", "A own/others/steal",
                "B own/others/steal", "C own/others/steal");
  std::printf("%s\n%s\n", line, std::string(std::strlen(line), '-').c_str());
  for (const Row& row : rows) {
    std::string cells[3];
    for (int k = 0; k < 3; ++k) {
      const auto& v = row.runs.at(kConfigs[k].name);
      cells[k] = format("{} / {} / {}", fixed2(med(v, [](const Measurement& x) { return x.ownCores; })),
                        fixed2(med(v, [](const Measurement& x) { return x.otherCores; })),
                        fixed2(med(v, [](const Measurement& x) { return x.stealCores; })));
    }
    std::printf("%-6s %5lld | %-20s | %-20s | %-20s\n", row.model->key.c_str(), static_cast<long long>(row.batch),
                cells[0].c_str(), cells[1].c_str(), cells[2].c_str());
  }
  std::printf(
      "  own: this process's CPU time / wall time (A's workers and communication threads, spinning included);\n"
      "  others: every other process on the machine (from /proc/stat); steal: taken by the hypervisor.\n");
  for (const Row& row : rows) {
    if (row.model->key != "lenet" || row.batch != 256) continue;
    const double ab = median(rates(row.runs.at("A"))) / median(rates(row.runs.at("B")));
    std::printf("\nGoal of issue 3: A/B >= 1.8 on LeNet batch 256: %.2f (%s)\n", ab, ab >= 1.8 ? "met" : "NOT met");
  }
  if (!warnings.empty()) {
    std::printf("Warnings from the trainer:\n");
    for (const auto& w : warnings) std::printf("  %s\n", w.c_str());
  }
  std::printf("\n");

  // One JSON line with everything, for scripts.
  Json j = {{"bench", "data_parallel"}, {"cores", availableCores()}, {"repeats", m_o.repeats},
            {"warmup_iterations", m_o.warmupIterations}, {"rows", Json::array()}};
  for (const Row& row : rows) {
    Json r = {{"model", row.model->key},
              {"batch", row.batch},
              {"train_samples", row.trainSamples},
              {"macs_per_sample", row.model->multiplyAdds},
              {"gradient_bytes", 4 * row.model->parameters}};
    for (const Config& c : kConfigs) {
      Json runs = Json::array();
      for (const Measurement& x : row.runs.at(c.name))
        runs.push_back({{"samples_per_s", x.samplesPerS},
                        {"iterations", x.measuredIterations},
                        {"seconds", x.measuredSeconds},
                        {"compute_ms", x.computeMs},
                        {"sync_ms", x.syncMs},
                        {"wait_ms", x.waitMs},
                        {"compute_ms_per_device", x.computeMsPerDevice},
                        {"own_cores", x.ownCores},
                        {"other_cores", x.otherCores},
                        {"steal_cores", x.stealCores},
                        {"scaling", x.scaling}});
      r[c.name] = {{"workers", c.workers}, {"threads", c.threads}, {"median_samples_per_s", median(rates(row.runs.at(c.name)))},
                   {"runs", runs}};
    }
    r["a_over_b"] = r["A"]["median_samples_per_s"].get<double>() / r["B"]["median_samples_per_s"].get<double>();
    r["a_over_c"] = r["A"]["median_samples_per_s"].get<double>() / r["C"]["median_samples_per_s"].get<double>();
    j["rows"].push_back(r);
  }
  std::printf("%s\n", j.dump().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parseArgs(argc, argv);
  try {
    Bench bench(std::move(o));
    return bench.run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "netsmith-bench-parallel: %s\n", e.what());
    return 1;
  }
}
