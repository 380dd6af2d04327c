// netsmith-bench-train: training-step throughput of one project on the CPU backend, for
// comparison with tests/bench/pytorch_peer.py (same models, same batch, same thread count).
//
//   netsmith-bench-train --project P --batch B --threads T --iterations N --warmup W
//                        [--per-layer-iterations K] [--seed S] [--precision float|bfloat16]
//                        [--synthetic N] [--seconds S]
//
// A step is exactly what the trainer does per iteration: gatherBatch from the in-memory
// training set (shuffled order), Network::forward, backward(1/B), Optimizer::step. Data loading
// and network construction are outside the timed region. Prints one JSON line.
//
// --seconds S ends the timed loop early, after the first iteration that finds S seconds passed
// (at least 2 iterations), so a slow configuration does not run for minutes; "iterations" in the
// output is the number actually timed. --iterations stays the most it runs.
//
// --synthetic N replaces the project's training set by N random samples of the network's Input
// shape (uniform in [0, 1)) with random class labels (0 .. the prediction's width - 1), drawn from
// --seed; the project's dataset section is then never read. For models without a dataset on the
// machine (tests/bench/colour_cnn_64.nsproj): only throughput means anything then, the loss does
// not (there is nothing to learn). The step is the same: the same gather, shuffle and kernels.
//
// per_layer_ms comes from a second, separate pass over the same kernels and parameter values
// (Network does not expose per-node timings and the engine is not changed for a benchmark). It
// runs only for chain networks (every layer reads the layer before it), which covers the sample
// projects; the main figures never include it.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/backend/cpu/cpu_precision.h"
#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/optim/lr_schedule.h"
#include "engine/optim/optimizer.h"
#include "engine/project/graph.h"
#include "engine/project/project_io.h"
#include "engine/model/network.h"

namespace {

using namespace netsmith;
using Clock = std::chrono::steady_clock;
using OrderedJson = nlohmann::ordered_json;

double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// CPU seconds of the whole process (all threads). On a shared machine a single-threaded step's
// CPU time is far steadier than its wall time, which includes the time other processes ran.
double processCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Options {
  std::string project;
  int64_t batch = 0;  // 0: the project's batch_size
  int threads = 1;
  int64_t iterations = 50;
  int64_t warmup = 5;
  int64_t perLayerIterations = -1;  // -1: min(iterations, 20); 0: skip the per-layer pass
  uint64_t seed = 1;
  std::string precision;  // empty: the project's config.precision
  int64_t synthetic = 0;  // > 0: that many random samples instead of the project's training set
  double seconds = 0;     // > 0: stop timing after the iteration that passes this (>= 2 iterations)
};

[[noreturn]] void usage(const char* msg) {
  std::fprintf(stderr,
               "%s\nusage: netsmith-bench-train --project P [--batch B] [--threads T] [--iterations N] [--warmup W]\n"
               "                            [--per-layer-iterations K] [--seed S] [--precision float|bfloat16]\n"
               "                            [--synthetic N] [--seconds S]\n",
               msg);
  std::exit(2);
}

Options parseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value after " + a).c_str());
      return argv[++i];
    };
    auto integer = [&](int64_t min) {
      const std::string v = value();
      char* end = nullptr;
      const long long n = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || *end || n < min) usage((a + ": expected an integer >= " + std::to_string(min) + ", got '" + v + "'").c_str());
      return static_cast<int64_t>(n);
    };
    if (a == "--project") o.project = value();
    else if (a == "--batch") o.batch = integer(1);
    else if (a == "--threads") o.threads = static_cast<int>(integer(0));
    else if (a == "--iterations") o.iterations = integer(1);
    else if (a == "--warmup") o.warmup = integer(0);
    else if (a == "--per-layer-iterations") o.perLayerIterations = integer(0);
    else if (a == "--seed") o.seed = static_cast<uint64_t>(integer(0));
    else if (a == "--precision") o.precision = value();
    else if (a == "--synthetic") o.synthetic = integer(1);
    else if (a == "--seconds") {
      const std::string v = value();
      char* end = nullptr;
      o.seconds = std::strtod(v.c_str(), &end);
      if (v.empty() || *end || !(o.seconds > 0)) usage(("--seconds: expected a number > 0, got '" + v + "'").c_str());
    }
    else if (a == "-h" || a == "--help") usage("netsmith-bench-train: training-step throughput");
    else usage(("unknown argument '" + a + "'").c_str());
  }
  if (o.project.empty()) usage("--project is required");
  if (o.perLayerIterations < 0) o.perLayerIterations = std::min<int64_t>(o.iterations, 20);
  return o;
}

// Walks the shuffled epoch orders batch after batch, as the trainer does (short tails dropped).
class BatchSource {
 public:
  BatchSource(const Dataset& data, int64_t batch, uint64_t seed) : m_data(data), m_batch(batch), m_seed(seed) {
    NS_CHECK(batch <= data.size, "--batch {} is larger than the {} training samples", batch, data.size);
    m_order = epochOrder(data.size, seed, m_epoch, true);
  }
  std::span<const int64_t> next() {
    if ((m_pos + 1) * m_batch > m_data.size) {
      m_order = epochOrder(m_data.size, m_seed, ++m_epoch, true);
      m_pos = 0;
    }
    return {m_order.data() + m_pos++ * m_batch, static_cast<size_t>(m_batch)};
  }
  uint64_t epoch() const { return static_cast<uint64_t>(m_epoch); }

 private:
  const Dataset& m_data;
  int64_t m_batch;
  uint64_t m_seed;
  int64_t m_epoch = 0;
  int64_t m_pos = 0;
  std::vector<int64_t> m_order;
};

// The per-layer pass: the graph's kernels run one by one with a clock around each call. Mirrors
// Network::forward/backward for a chain (single input, the previous node), which is all it
// accepts; returns null figures otherwise.
class ChainTimer {
 public:
  ChainTimer(const Graph& graph, DeviceContext& device, Network& source) : m_graph(graph), m_device(device) {
    const size_t n = graph.nodes.size();
    for (size_t i = 0; i < n; ++i) {
      const GraphNode& node = graph.nodes[i];
      if (node.schema->isInput) continue;
      if (node.inputs.size() != 1 || node.inputs[0] != static_cast<int>(i) - 1) return;
    }
    if (graph.inputNode != 0 || graph.lossNode != static_cast<int>(n) - 1) return;
    m_nodes.resize(n);
    std::vector<ParameterRef> params = source.parameters();  // graph order, then blob order
    size_t next = 0;
    bool upstream = false;
    for (size_t i = 0; i < n; ++i) {
      const GraphNode& node = graph.nodes[i];
      Node& rt = m_nodes[i];
      rt.needsInputGrad = upstream;
      for (const ParamBlob& blob : node.blobs) {
        rt.params.emplace_back(blob.shape);
        rt.params.back().copyFrom(*params.at(next++).value);
        rt.grads.emplace_back(blob.trainable ? Tensor(blob.shape) : Tensor());
        upstream = upstream || blob.trainable;
      }
      for (size_t b = 0; b < node.blobs.size(); ++b) {
        rt.paramPtrs.push_back(&rt.params[b]);
        rt.gradPtrs.push_back(node.blobs[b].trainable ? &rt.grads[b] : nullptr);
      }
      if (!node.schema->isInput) {
        const OpParams p(node.params);
        rt.kernel = node.schema->kernels.at(device.backend())(KernelSetup{device, node.inputShapes, node.outputShape, p});
      }
    }
    m_ok = true;
  }

  bool ok() const { return m_ok; }
  void resetClocks() {
    for (Node& n : m_nodes) n.forwardMs = n.backwardMs = 0;
    m_steps = 0;
  }

  void step(const Tensor& x, const Tensor& labels, float weight, const RandomKey& random) {
    const int64_t batch = x.dim(0);
    makeTarget(labels, batch);
    m_nodes[0].output.resize(x.shape());
    std::memcpy(m_nodes[0].output.data(), x.data(), x.size() * sizeof(float));
    for (size_t i = 1; i < m_nodes.size(); ++i) {
      const GraphNode& node = m_graph.nodes[i];
      Node& rt = m_nodes[i];
      const Tensor* in[] = {&m_nodes[i - 1].output};
      rt.output.resize(withBatch(batch, node.outputShape));
      KernelCall call{m_device, in, rt.paramPtrs, rt.output};
      call.target = node.schema->isLoss() ? &m_target : nullptr;
      call.training = true;
      call.random = random;
      call.random.node = i;
      const auto t = Clock::now();
      rt.kernel->forward(call);
      m_device.synchronize();
      rt.forwardMs += msSince(t);
    }
    Node& loss = m_nodes.back();
    m_lossGrad.resize(loss.output.shape());
    m_lossGrad.fill(weight);
    for (size_t i = m_nodes.size() - 1; i >= 1; --i) {
      const GraphNode& node = m_graph.nodes[i];
      Node& rt = m_nodes[i];
      Node& producer = m_nodes[i - 1];
      if (!rt.needsInputGrad && rt.grads.empty()) break;
      const Tensor* in[] = {&producer.output};
      Tensor* inGrad[] = {rt.needsInputGrad ? &producer.outputGrad : nullptr};
      if (rt.needsInputGrad) producer.outputGrad.resize(producer.output.shape());
      KernelCall call{m_device, in, rt.paramPtrs, rt.output};
      call.target = node.schema->isLoss() ? &m_target : nullptr;
      call.training = true;
      call.random = random;
      call.random.node = i;
      call.outputGrad = i + 1 == m_nodes.size() ? &m_lossGrad : &rt.outputGrad;
      call.inputGrads = inGrad;
      call.paramGrads = rt.gradPtrs;
      const auto t = Clock::now();
      rt.kernel->backward(call);
      m_device.synchronize();
      rt.backwardMs += msSince(t);
    }
    ++m_steps;
  }

  OrderedJson figures() const {
    OrderedJson out = OrderedJson::object();
    for (size_t i = 1; i < m_nodes.size(); ++i) {
      const double s = static_cast<double>(std::max<int64_t>(m_steps, 1));
      out[m_graph.nodes[i].id] = {{"type", m_graph.nodes[i].schema->name},
                                  {"fwd", m_nodes[i].forwardMs / s},
                                  {"bwd", m_nodes[i].backwardMs / s}};
    }
    return out;
  }

 private:
  struct Node {
    std::unique_ptr<Kernel> kernel;
    std::vector<Tensor> params, grads;
    std::vector<Tensor*> paramPtrs, gradPtrs;
    Tensor output, outputGrad;
    bool needsInputGrad = false;  // some layer before this one has trainable parameters
    double forwardMs = 0, backwardMs = 0;
  };

  // Network's Note [Loss targets], for the cases the sample projects use.
  void makeTarget(const Tensor& labels, int64_t batch) {
    const GraphNode& loss = m_graph.loss();
    const int64_t width = labels.size() / batch;
    const int64_t predSize = numel(m_graph.prediction().outputShape);
    if (loss.schema->lossTarget == LossTarget::ClassIndex) {
      m_target.copyFrom(labels);
      return;
    }
    m_target.resize(withBatch(batch, m_graph.prediction().outputShape));
    if (width == predSize) {
      std::memcpy(m_target.data(), labels.data(), labels.size() * sizeof(float));
      return;
    }
    m_target.zero();
    for (int64_t r = 0; r < batch; ++r) m_target[r * predSize + static_cast<int64_t>(labels[r])] = 1.0f;
  }

  const Graph& m_graph;
  DeviceContext& m_device;
  std::vector<Node> m_nodes;
  Tensor m_target, m_lossGrad;
  int64_t m_steps = 0;
  bool m_ok = false;
};

// --synthetic: `count` samples of the Input's shape, uniform in [0, 1), and class labels uniform
// in [0, classes) where classes is the width of the prediction (the loss's input).
Dataset syntheticDataset(const Graph& graph, int64_t count, uint64_t seed) {
  Dataset d;
  d.source = d.labelSource = "synthetic";
  d.sampleShape = graph.input().outputShape;
  d.size = count;
  const int64_t classes = std::max<int64_t>(numel(graph.prediction().outputShape), 1);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> value(0.0f, 1.0f);
  std::uniform_int_distribution<int64_t> label(0, classes - 1);
  d.features.resize(static_cast<size_t>(count * numel(d.sampleShape)));
  for (float& v : d.features) v = value(rng);
  d.labels.resize(static_cast<size_t>(count));
  for (float& l : d.labels) l = static_cast<float>(label(rng));
  d.numClasses = classes;
  return d;
}

int run(const Options& o) {
  const Project project = loadProject(o.project);
  const Graph graph = buildGraph(project.network, OpRegistry::builtin());
  const Precision precision = parsePrecision(o.precision.empty() ? project.config.precision : o.precision);
  cpu::checkCpuPrecision(precision);  // Note [CPU bfloat16]
  CpuDeviceContext device("cpu:0", o.threads, precision);
  device.bindToCurrentThread();

  const auto loadStart = Clock::now();
  const Dataset train = o.synthetic > 0 ? syntheticDataset(graph, o.synthetic, o.seed)
                                        : loadDataSource(project.dataset.training, project.dataset.scale, project.dataset.onError);
  const double loadMs = msSince(loadStart);
  NS_CHECK(numel(train.sampleShape) == numel(graph.input().outputShape), "{}: samples have shape {}, Input expects {}",
           train.source, shapeToString(train.sampleShape), shapeToString(graph.input().outputShape));

  const int64_t batch = o.batch > 0 ? o.batch : project.config.batchSize;
  Network network(graph, device);
  network.initializeParameters(project.config.seed);
  std::unique_ptr<Optimizer> optimizer = Optimizer::create(project.optimizer);
  const LearningRateSchedule schedule(project.optimizer, optimizer->baseLearningRate(),
                                      std::max<int64_t>(train.size / batch, 1), project.config.maxEpoch);
  std::vector<ParamSlot> slots;
  for (auto& p : network.parameters())
    if (p.grad) slots.push_back({p.name, p.value, p.grad});

  BatchSource batches(train, batch, o.seed);
  const float weight = 1.0f / static_cast<float>(batch);
  Tensor x, y;
  int64_t globalIteration = 0;
  double gatherMs = 0, forwardMs = 0, backwardMs = 0, stepMs = 0, firstLoss = NAN, lastLoss = NAN;

  auto trainStep = [&](bool timed) {
    auto t = Clock::now();
    const auto idx = batches.next();
    gatherBatch(train, idx, x, y);
    if (timed) gatherMs += msSince(t), t = Clock::now();
    const Tensor& loss = network.forward(x, y, true, RandomKey{project.config.seed, 0, batches.epoch(), idx.data()});
    double sum = 0;
    for (int64_t i = 0; i < loss.size(); ++i) sum += loss[i];
    if (timed) forwardMs += msSince(t), t = Clock::now();
    network.backward(weight);
    if (timed) backwardMs += msSince(t), t = Clock::now();
    optimizer->step(slots, schedule.at(globalIteration++));
    device.synchronize();
    if (timed) stepMs += msSince(t);
    if (std::isnan(firstLoss)) firstLoss = sum / batch;
    lastLoss = sum / batch;
  };

  for (int64_t i = 0; i < o.warmup; ++i) trainStep(false);
  const double cpuStart = processCpuSeconds();
  const auto start = Clock::now();
  int64_t iterations = 0;
  while (iterations < o.iterations) {
    trainStep(true);
    ++iterations;
    if (o.seconds > 0 && iterations >= 2 && msSince(start) >= 1000.0 * o.seconds) break;
  }
  const double totalMs = msSince(start);
  const double cpuSeconds = processCpuSeconds() - cpuStart;

  const double samplesPerS = 1000.0 * static_cast<double>(iterations * batch) / totalMs;
  OrderedJson out;
  out["samples_per_s"] = samplesPerS;
  out["ms_per_step"] = totalMs / static_cast<double>(iterations);
  // Samples per CPU-second (all threads' CPU time), and CPU ms per step.
  out["cpu_samples_per_s"] = static_cast<double>(iterations * batch) / cpuSeconds;
  out["cpu_ms_per_step"] = 1000.0 * cpuSeconds / static_cast<double>(iterations);
  OrderedJson perLayer = nullptr;
  if (o.perLayerIterations > 0) {
    ChainTimer timer(graph, device, network);
    if (timer.ok()) {
      // One untimed step first so primitive creation is not counted.
      for (int64_t i = 0; i <= o.perLayerIterations; ++i) {
        const auto idx = batches.next();
        gatherBatch(train, idx, x, y);
        timer.step(x, y, weight, RandomKey{project.config.seed, 0, batches.epoch(), idx.data()});
        if (i == 0) timer.resetClocks();
      }
    }
    if (timer.ok()) perLayer = timer.figures();
  }
  out["per_layer_ms"] = perLayer;
  const double n = static_cast<double>(iterations);
  out["phase_ms"] = {{"gather", gatherMs / n}, {"forward", forwardMs / n}, {"backward", backwardMs / n},
                     {"optimizer", stepMs / n}};
  out["project"] = project.name;
  out["solver"] = optimizer->solverName();
  out["precision"] = precisionName(precision);
  out["batch"] = batch;
  out["threads"] = device.threads();
  out["iterations"] = iterations;
  out["warmup"] = o.warmup;
  out["macs_per_sample"] = graph.multiplyAdds;
  out["data"] = o.synthetic > 0 ? "synthetic" : "project";
  out["train_gflops"] = 6.0 * static_cast<double>(graph.multiplyAdds) * samplesPerS / 1e9;
  out["loss_first"] = firstLoss;
  out["loss_last"] = lastLoss;
  out["load_ms"] = loadMs;
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parseArgs(argc, argv);
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "netsmith-bench-train: %s\n", e.what());
    return 1;
  }
}
