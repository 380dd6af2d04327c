#include "gpu_check.h"

#include "gpu_tolerance.h"

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <thread>
#include <tuple>

#include <unistd.h>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/devices/device_factory.h"
#include "engine/core/error.h"
#include "engine/core/rng.h"
#include "engine/op_interface/op_registry.h"
#include "engine/optim/optimizer.h"
#include "engine/project/graph.h"
#include "engine/project/project_io.h"
#include "engine/model/checkpoint.h"
#include "engine/model/network.h"
#include "engine/train/initial_parameters.h"
#include "engine/train/trainer.h"
#include "support/op_examples.h"
#include "support/param_synthesis.h"

#ifdef NETSMITH_HAVE_CUDA
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "engine/backend/cuda/cuda_device.h"
#endif

namespace netsmith::gpucheck {
namespace {

using Clock = std::chrono::steady_clock;

// A worker's context as the trainer makes it: through the device kind, on this thread.
std::unique_ptr<DeviceContext> makeContext(const std::string& device, const std::string& precision,
                                           bool deterministic = false) {
  DeviceOptions d;
  d.id = device;
  d.precision = parsePrecision(precision);
  d.deterministic = deterministic;
  return deviceKindOf(device).makeContext(d);
}

void upload(DeviceContext& device, Tensor& dst, const Tensor& host) {
  dst.resize(host.shape());
  device.upload(dst.data(), host.data(), host.size());
}

Tensor download(DeviceContext& device, const Tensor& src) {
  Tensor host(src.shape());
  if (src.format() != TensorFormat{}) {  // 16-bit or channels last: through a float32 NCHW copy
    Tensor wide(src.shape(), device.deviceAllocator());
    device.convert(wide, src);
    device.download(host.data(), wide.data(), wide.size());
    return host;
  }
  device.download(host.data(), src.data(), src.size());
  return host;
}

// The values a 16-bit activation can hold, for both sides: the check then measures the kernels,
// not the rounding of their inputs (which moves a pooling's maximum when two values round to one).
void roundTo(Storage storage, Tensor& t) {
  withFormat(storage, [&](auto f) {
    using F = decltype(f);
    for (int64_t i = 0; i < t.size(); ++i) t[i] = F::load(F::store(t[i]));
  });
}

// An activation of the GPU in `format` (Note [16-bit activations], Note [Channels last]).
void uploadAs(DeviceContext& device, Tensor& dst, const Tensor& host, TensorFormat format) {
  if (format == TensorFormat{}) return upload(device, dst, host);
  Tensor wide(device.deviceAllocator());
  upload(device, wide, host);
  dst = Tensor(device.deviceAllocator(), format);
  dst.resize(host.shape());
  device.convert(dst, wide);
  device.synchronize();  // `wide` goes now
}

// max |a − b| / max |a|: the error of b relative to the size of a (absolute when a is all 0).
double relativeError(const Tensor& a, const Tensor& b) {
  NS_CHECK(a.size() == b.size(), "tensor sizes differ: {} and {}", a.size(), b.size());
  double diff = 0, scale = 0;
  for (int64_t i = 0; i < a.size(); ++i) {
    const double d = std::fabs(static_cast<double>(a[i]) - b[i]);
    diff = std::isnan(d) ? INFINITY : std::max(diff, d);
    scale = std::max(scale, std::fabs(static_cast<double>(a[i])));
  }
  return scale > 0 ? diff / scale : diff;
}

// ‖a − b‖₂ / ‖a‖₂ over all named blobs together, and the blob with the largest own ratio.
struct ParameterDifference {
  double overall = 0;
  std::string worst;
};
ParameterDifference parameterDifference(const std::vector<std::pair<std::string, const Tensor*>>& a,
                                        const std::vector<std::pair<std::string, const Tensor*>>& b) {
  NS_CHECK(a.size() == b.size(), "{} blobs against {}", a.size(), b.size());
  double diff2 = 0, norm2 = 0, worstRatio = -1;
  ParameterDifference out;
  for (size_t i = 0; i < a.size(); ++i) {
    const Tensor& x = *a[i].second;
    const Tensor& y = *b[i].second;
    NS_CHECK(x.size() == y.size(), "blob {}: {} values against {}", a[i].first, x.size(), y.size());
    double d2 = 0, n2 = 0;
    for (int64_t k = 0; k < x.size(); ++k) {
      const double d = static_cast<double>(x[k]) - y[k];
      d2 += std::isnan(d) ? INFINITY : d * d;
      n2 += static_cast<double>(x[k]) * x[k];
    }
    diff2 += d2;
    norm2 += n2;
    const double ratio = n2 > 0 ? std::sqrt(d2 / n2) : std::sqrt(d2);
    if (ratio > worstRatio) {
      worstRatio = ratio;
      out.worst = a[i].first;
    }
  }
  out.overall = norm2 > 0 ? std::sqrt(diff2 / norm2) : std::sqrt(diff2);
  return out;
}

// ------------------------------------------------------------------------------------------
// Op examples: each op's own (Note [Op examples]), read through tests/support/op_examples.h as
// tests/unit/tst_op_gradients.cpp reads them; the main one is named "default" here.

constexpr int64_t kBatch = 4;
const std::vector<Shape> kCandidateShapes = {{3, 6, 6}, {6}, {2, 8, 8}};

struct Example {
  std::string variant;
  std::vector<Shape> inputs;
  Json params;
  float inputScale = 1.0f;
};

// The op's examples; `why` says why one could not be made (empty when all were). A candidate
// shape the op refused before one it accepts is no failure: SoftmaxCrossEntropy refuses the
// image (3,6,6) and takes the vector (6) (its "no example input works" stopped netsmith-gpu-check
// all on the H200).
std::vector<Example> examplesOf(const OpSchema& schema, std::string& why) {
  std::vector<Example> out;
  for (const std::string& name : test::exampleNames(schema)) {
    std::string reason;
    const std::optional<OpExample> e = test::findExample(schema, name, reason, kCandidateShapes);
    if (e) out.push_back({name.empty() ? "default" : name, e->inputs, e->params, e->inputScale});
    else why += reason;
  }
  return out;
}

// Values for an op's input: distinct, both signs; probabilities for BinaryCrossEntropy.
void fillInput(Tensor& t, Rng& rng, const std::string& op, float scale) {
  for (int64_t i = 0; i < t.size(); ++i)
    t[i] = op == "BinaryCrossEntropy" ? rng.uniform(0.05f, 0.95f) : scale * rng.uniform(-2.0f, 2.0f);
}

// activations: the GPU's activations (inputs, output and their gradients) in float32 NCHW, or as a GPU
// storing 16-bit activations keeps them (Note [16-bit activations], Note [Channels last]).
OpResult checkExample(const OpSchema& schema, const Example& example, const std::string& device,
                      const std::string& precision, DeviceContext& cpu, DeviceContext& gpu,
                      TensorFormat activations = {}) {
  OpResult r{schema.name, example.variant, precision};
  if (activations.storage != Storage::Float32)
    r.variant += activations.layout == Layout::ChannelsLast ? ", 16-bit NHWC" : ", 16-bit";
  try {
    const Json params = validateParams(schema, example.params, "params");
    const OpParams p(params);
    const Shape outShape = schema.inferShape(example.inputs, p);
    const std::vector<ParamBlob> blobs = schema.parameterBlobs ? schema.parameterBlobs(example.inputs, p)
                                                               : std::vector<ParamBlob>{};
    auto cpuKernel = schema.kernels.at("cpu")(KernelSetup{cpu, example.inputs, outShape, p});
    auto gpuKernel = schema.kernels.at("cuda")(KernelSetup{gpu, example.inputs, outShape, p});
    Rng rng(12345);
    TensorAllocator* memory = gpu.deviceAllocator();

    std::vector<Tensor> xs, xsGpu, ws, wsGpu, dxs, dxsGpu, dws, dwsGpu;
    for (const Shape& s : example.inputs) {
      xs.emplace_back(withBatch(kBatch, s));
      fillInput(xs.back(), rng, schema.name, example.inputScale);
      roundTo(activations.storage, xs.back());
      xsGpu.emplace_back(memory);
      uploadAs(gpu, xsGpu.back(), xs.back(), activations);
      dxs.emplace_back(withBatch(kBatch, s));
      dxsGpu.emplace_back(memory, activations);
      dxsGpu.back().resize(withBatch(kBatch, s));
    }
    for (const ParamBlob& b : blobs) {
      ws.emplace_back(b.shape);
      // Running variances must be positive; everything else any value.
      for (int64_t i = 0; i < ws.back().size(); ++i)
        ws.back()[i] = b.name == "var" ? rng.uniform(0.5f, 1.5f) : rng.uniform(-1.0f, 1.0f);
      wsGpu.emplace_back(memory);
      upload(gpu, wsGpu.back(), ws.back());
      dws.emplace_back(b.trainable ? Tensor(b.shape) : Tensor());
      dwsGpu.emplace_back(b.trainable ? Tensor(b.shape, memory) : Tensor(memory));
    }
    Tensor target, targetGpu(memory);
    if (schema.isLoss()) {
      const int64_t predSize = numel(example.inputs[0]);
      if (schema.lossTarget == LossTarget::ClassIndex) {
        target.resize({kBatch, 1});
        for (int64_t n = 0; n < kBatch; ++n) target[n] = static_cast<float>(rng.below(static_cast<uint64_t>(predSize)));
      } else {
        target.resize(withBatch(kBatch, example.inputs[0]));
        for (int64_t i = 0; i < target.size(); ++i) target[i] = rng.uniform(0.0f, 1.0f);
      }
      upload(gpu, targetGpu, target);
    }
    const std::vector<int64_t> ids{17, 3, 40000, 9};
    std::vector<const Tensor*> inCpu, inGpu;
    std::vector<Tensor*> pCpu, pGpu, dxCpu, dxGpu, dwCpu, dwGpu;
    for (size_t i = 0; i < xs.size(); ++i) {
      inCpu.push_back(&xs[i]);
      inGpu.push_back(&xsGpu[i]);
      dxCpu.push_back(&dxs[i]);
      dxGpu.push_back(&dxsGpu[i]);
    }
    for (size_t i = 0; i < ws.size(); ++i) {
      pCpu.push_back(&ws[i]);
      pGpu.push_back(&wsGpu[i]);
      dwCpu.push_back(blobs[i].trainable ? &dws[i] : nullptr);
      dwGpu.push_back(blobs[i].trainable ? &dwsGpu[i] : nullptr);
    }
    Tensor y(withBatch(kBatch, outShape)), yGpu(memory, activations);
    yGpu.resize(withBatch(kBatch, outShape));
    // Note [GPU tolerances]: each tensor against its own bound, from the terms behind a value.
    const double macs = schema.multiplyAdds ? static_cast<double>(kBatch) *
                                                  static_cast<double>(schema.multiplyAdds(example.inputs, outShape, p))
                                            : 0.0;
    double inputValues = 0;
    for (const Tensor& x : xs) inputValues += static_cast<double>(x.size());
    for (const Tensor& w : ws) inputValues += static_cast<double>(w.size());
    const auto note = [&](double e, const std::string& what, double& into, const Tensor& t, double from) {
      if (e > into) into = e;
      const double tolerance = gpuTolerance(precision, reductionLength(macs, from, static_cast<double>(t.size())));
      const double margin = std::isfinite(e) ? e / tolerance : INFINITY;
      if (margin > r.margin || r.worst.empty()) {
        r.margin = margin;
        r.tolerance = tolerance;
        r.worst = what;
      }
    };
    for (const bool training : {false, true}) {
      KernelCall c{cpu, inCpu, pCpu, y};
      KernelCall g{gpu, inGpu, pGpu, yGpu};
      c.target = schema.isLoss() ? &target : nullptr;
      g.target = schema.isLoss() ? &targetGpu : nullptr;
      c.training = g.training = training;
      c.random = g.random = RandomKey{7, 3, 2, ids.data()};
      cpuKernel->forward(c);
      gpuKernel->forward(g);
      const std::string mode = training ? "training" : "inference";
      note(relativeError(y, download(gpu, yGpu)), mode + " forward output", r.forwardError, y, inputValues);
      for (size_t i = 0; i < ws.size(); ++i)
        note(relativeError(ws[i], download(gpu, wsGpu[i])), mode + " forward " + blobs[i].name, r.forwardError, ws[i],
             inputValues);
    }
    // Backward after the training forward: output gradient random (for a loss: the per-sample
    // weights, positive).
    Tensor dy(y.shape()), dyGpu(memory);
    for (int64_t i = 0; i < dy.size(); ++i) dy[i] = schema.isLoss() ? rng.uniform(0.1f, 1.0f) : rng.uniform(-1.0f, 1.0f);
    roundTo(activations.storage, dy);
    uploadAs(gpu, dyGpu, dy, activations);
    KernelCall c{cpu, inCpu, pCpu, y};
    KernelCall g{gpu, inGpu, pGpu, yGpu};
    c.target = schema.isLoss() ? &target : nullptr;
    g.target = schema.isLoss() ? &targetGpu : nullptr;
    c.training = g.training = true;
    c.random = g.random = RandomKey{7, 3, 2, ids.data()};
    c.outputGrad = &dy;
    g.outputGrad = &dyGpu;
    c.inputGrads = dxCpu;
    g.inputGrads = dxGpu;
    c.paramGrads = dwCpu;
    g.paramGrads = dwGpu;
    cpuKernel->backward(c);
    gpuKernel->backward(g);
    const double backwardFrom = inputValues + static_cast<double>(dy.size());
    for (size_t i = 0; i < dxs.size(); ++i)
      note(relativeError(dxs[i], download(gpu, dxsGpu[i])), format("backward dx{}", i), r.backwardError, dxs[i],
           backwardFrom);
    for (size_t i = 0; i < dws.size(); ++i)
      if (blobs[i].trainable)
        note(relativeError(dws[i], download(gpu, dwsGpu[i])), "backward d" + blobs[i].name, r.backwardError, dws[i],
             backwardFrom);
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

// Synthetic data for a network: x uniform in [0, 1), labels class indices of the prediction.
void syntheticBatch(const Graph& graph, int64_t batch, uint64_t seed, Tensor& x, Tensor& y) {
  Rng rng(seed);
  x.resize(withBatch(batch, graph.input().outputShape));
  y.resize({batch, 1});
  for (int64_t i = 0; i < x.size(); ++i) x[i] = rng.uniform();
  const auto classes = static_cast<uint64_t>(numel(graph.prediction().outputShape));
  for (int64_t n = 0; n < batch; ++n) y[n] = static_cast<float>(rng.below(classes));
}

// Note [Check batch]: a batch both benchmark sides compute the same way, x[i] = ((i·7919) mod
// 1009) / 1009 over the flat (N, C, H, W) index and y[n] = (37·n) mod classes, so that the
// inference loss of the untrained network on it (BatchNormalization's running statistics,
// Dropout off) says whether they start from the same network (tests/bench/pytorch_gpu_peer.py
// computes it too).
void checkBatch(const Graph& graph, int64_t batch, Tensor& x, Tensor& y) {
  x.resize(withBatch(batch, graph.input().outputShape));
  y.resize({batch, 1});
  for (int64_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<double>((i * 7919) % 1009) / 1009.0);
  const auto classes = numel(graph.prediction().outputShape);
  for (int64_t n = 0; n < batch; ++n) y[n] = static_cast<float>((37 * n) % classes);
}

std::vector<ParamSlot> slotsOf(std::vector<ParameterRef> params) {
  std::vector<ParamSlot> slots;
  for (const ParameterRef& p : params)
    if (p.grad) slots.push_back({p.name, p.value, p.grad});
  return slots;
}

double meanOf(const Tensor& t) {
  double s = 0;
  for (int64_t i = 0; i < t.size(); ++i) s += t[i];
  return t.size() ? s / static_cast<double>(t.size()) : 0.0;
}

}  // namespace

std::string gpuUnavailableReason(const std::string& device) {
  if (!findDeviceKind(device)) return "this build has no CUDA backend (the CUDA toolkit was not found at configure time)";
  try {
    makeContext(device, "float");
    return {};
  } catch (const std::exception& e) {
    return e.what();
  }
}

std::vector<std::string> allGpus() {
  std::vector<std::string> ids;
#ifdef NETSMITH_HAVE_CUDA
  const int n = cuda::cudaDeviceCount();
  for (int i = 0; i < n; ++i) ids.push_back("cuda:" + std::to_string(i));
#endif
  return ids;
}

std::vector<OpResult> checkOps(const std::string& device, const std::string& precision) {
  CpuDeviceContext cpu("cpu:0", 0);
  cpu.bindToCurrentThread();
  auto gpu = makeContext(device, precision);
  std::vector<OpResult> out;
  for (const OpSchema* schema : OpRegistry::builtin().all()) {
    if (schema->isInput || !schema->kernels.count("cpu")) continue;
    if (!schema->kernels.count("cuda")) {
      OpResult r{schema->name, "-", precision};
      r.error = "no \"cuda\" kernel registered";
      out.push_back(r);
      continue;
    }
    std::string why;
    const std::vector<Example> examples = examplesOf(*schema, why);
    if (!why.empty()) {
      OpResult r{schema->name, "default", precision};
      r.error = "no example input works (" + why + "): declare one in the op's schema.cpp";
      out.push_back(r);
    }
    for (const Example& e : examples) {
      out.push_back(checkExample(*schema, e, device, precision, cpu, *gpu));
      // The same example as a GPU storing 16-bit activations runs it, where its kernel takes them.
      const Storage narrow = gpu->activationStorage();
      if (narrow == Storage::Float32 || !schema->takes16BitActivations.count("cuda")) continue;
      bool images = !schema->isLoss() && gpu->channelsLast() && schema->takesChannelsLast.count("cuda");
      for (const Shape& in : e.inputs) images = images && in.size() == 3;
      TensorFormat format{narrow, Layout::ChannelsFirst};
      out.push_back(checkExample(*schema, e, device, precision, cpu, *gpu, format));
      if (images) {
        format.layout = Layout::ChannelsLast;
        out.push_back(checkExample(*schema, e, device, precision, cpu, *gpu, format));
      }
    }
  }
  return out;
}

TrainResult compareTraining(const std::string& projectPath, const std::string& device, int steps, int64_t batch) {
  TrainResult r;
  r.project = projectPath;
  r.steps = steps;
  try {
    const Project project = loadProject(projectPath);
    const Graph graph = buildGraph(project.network, OpRegistry::builtin());
    CpuDeviceContext cpu("cpu:0", 0);
    cpu.bindToCurrentThread();
    auto gpu = makeContext(device, "float");
    Network cpuNet(graph, cpu), gpuNet(graph, *gpu);
    cpuNet.initializeParameters(project.config.seed);
    gpuNet.initializeParameters(project.config.seed);
    auto cpuOpt = Optimizer::create(project.optimizer);
    auto gpuOpt = Optimizer::create(project.optimizer);
    auto solver = deviceKindOf(device).makeSolver(*gpuOpt, *gpu);
    const auto cpuSlots = slotsOf(cpuNet.kernelParameters());
    const auto gpuSlots = slotsOf(gpuNet.kernelParameters());
    const double lr = gpuOpt->baseLearningRate();
    Tensor x, y;
    for (int s = 0; s < steps; ++s) {
      syntheticBatch(graph, batch, 1000 + static_cast<uint64_t>(s), x, y);
      const RandomKey key{1, 0, static_cast<uint64_t>(s), nullptr};
      r.cpuLoss.push_back(meanOf(cpuNet.forward(x, y, true, key)));
      r.gpuLoss.push_back(meanOf(gpuNet.forward(x, y, true, key)));
      cpuNet.backward(1.0f / static_cast<float>(batch));
      gpuNet.backward(1.0f / static_cast<float>(batch));
      cpuOpt->step(cpuSlots, lr);
      solver->step(gpuSlots, lr);
      r.maxLossError = std::max(r.maxLossError, std::fabs(r.gpuLoss.back() - r.cpuLoss.back()) /
                                                    std::max(std::fabs(r.cpuLoss.back()), 1e-12));
    }
    auto a = cpuNet.parameters(), b = gpuNet.parameters();
    // parameters() is the host view (Note [Device memory]).
    std::vector<std::pair<std::string, const Tensor*>> cpuBlobs, gpuBlobs;
    for (size_t i = 0; i < a.size(); ++i) {
      cpuBlobs.emplace_back(a[i].name, a[i].value);
      gpuBlobs.emplace_back(b[i].name, b[i].value);
    }
    const ParameterDifference d = parameterDifference(cpuBlobs, gpuBlobs);
    r.parameterError = d.overall;
    r.worstParameter = d.worst;
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

DeviceCountResult compareDeviceCounts(const std::string& projectPath, const std::vector<std::string>& devices,
                                      int iterations) {
  DeviceCountResult r;
  r.project = projectPath;
  r.devices = static_cast<int>(devices.size());
  r.iterations = iterations;
  try {
    NS_CHECK(!devices.empty(), "no devices given");
    Project project = loadProject(projectPath);
    project.config.deterministic = false;
    project.parallel.lrPolicy = "keep_logical_batch";
    // A folder of its own each call (mkdtemp): a name made from the pid and the clock was once
    // reused on a warm machine, and the trainer rightly refused the run folder another call left.
    std::string pattern = (std::filesystem::temp_directory_path() / "netsmith-device-counts-XXXXXX").string();
    NS_CHECK(::mkdtemp(pattern.data()) != nullptr, "cannot make a temporary folder {}: {}", pattern,
             std::strerror(errno));
    const std::filesystem::path dir = pattern;
    struct RemoveFolder {
      std::filesystem::path path;
      ~RemoveFolder() {
        std::error_code ignored;
        std::filesystem::remove_all(path, ignored);
      }
    } removeFolder{dir};
    const std::string copy = (dir / "project.nsproj").string();
    {
      std::ofstream out(copy);
      out << projectToPortableJson(project).dump(2);
    }
    std::vector<CheckpointData> parameters;
    for (const std::vector<std::string>& set : {std::vector<std::string>{devices[0]}, devices}) {
      TrainOptions o;
      o.projectPath = copy;
      // A folder per run, not per device count: with one GPU both runs train on one.
      o.runDir = (dir / (parameters.empty() ? "first-device" : "every-device")).string();
      o.maxEpoch = 1;
      o.trainSamples = static_cast<int64_t>(iterations) * project.config.batchSize;
      o.validationSamples = project.config.batchSize;
      o.devices = set;
      const netsmith::TrainResult run = runTraining(o);
      NS_CHECK(run.status == "completed", "training on {} device(s) {}: {}", set.size(), run.status, run.message);
      parameters.push_back(readCheckpoint(o.runDir + "/parameters.nsparams"));
    }
    std::vector<std::pair<std::string, const Tensor*>> one, all;
    for (const auto& [name, t] : parameters[0].tensors) one.emplace_back(name, &t);
    for (const auto& [name, t] : parameters[1].tensors) all.emplace_back(name, &t);
    const ParameterDifference d = parameterDifference(one, all);
    r.parameterError = d.overall;
    r.worst = d.worst;
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

std::string checkNccl(const std::vector<std::string>& devices) {
  try {
    const DeviceKind& kind = deviceKindOf(devices.at(0));
    auto group = kind.makeGroup(devices, 20.0);
    const int n = static_cast<int>(devices.size());
    std::vector<std::unique_ptr<DeviceContext>> contexts;
    std::vector<Tensor> buffers;
    // One thread per rank, as the trainer does (NCCL collectives of several ranks from one thread
    // would wait for each other).
    std::vector<std::string> errors(static_cast<size_t>(n));
    std::vector<std::thread> threads;
    std::vector<double> sums(static_cast<size_t>(n), 0), broadcasts(static_cast<size_t>(n), 0);
    std::vector<int> abortSeen(static_cast<size_t>(n), 0);
    // The abort must come after every rank has left the barrier: a collective completes on each
    // rank's stream on its own time, so rank 0 can return from barrier() while another rank still
    // waits for its completion event, and an abort then fails that rank's barrier instead of the
    // collective after it (the race the review found).
    std::barrier leftBarrier(n);
    for (int r = 0; r < n; ++r)
      threads.emplace_back([&, r] {
        bool arrived = false;
        try {
          auto ctx = makeContext(devices[static_cast<size_t>(r)], "float");
          kind.attachWorker(*group, r, *ctx);
          Communicator& comm = group->communicator(r);
          Tensor host({1000});
          for (int64_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(r + 1);
          Tensor dev(ctx->deviceAllocator());
          upload(*ctx, dev, host);
          comm.allReduceSum(dev.data(), dev.size());
          sums[static_cast<size_t>(r)] = download(*ctx, dev)[999];
          for (int64_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(10 * (r + 1));
          upload(*ctx, dev, host);
          comm.broadcast(dev.data(), dev.size(), n - 1);
          broadcasts[static_cast<size_t>(r)] = download(*ctx, dev)[0];
          comm.barrier();
          leftBarrier.arrive_and_wait();
          arrived = true;
          if (r == 0) comm.abort("test abort");
          try {
            comm.allReduceSum(dev.data(), dev.size());
          } catch (const CommError& e) {
            abortSeen[static_cast<size_t>(r)] = std::string(e.what()).find("test abort") != std::string::npos;
          }
          dev = Tensor();
          ctx.reset();
        } catch (const std::exception& e) {
          errors[static_cast<size_t>(r)] = e.what();
          if (!arrived) leftBarrier.arrive_and_drop();  // the others must not wait for this rank
        }
      });
    for (auto& t : threads) t.join();
    const double expectedSum = n * (n + 1) / 2.0;
    for (int r = 0; r < n; ++r) {
      const auto i = static_cast<size_t>(r);
      if (!errors[i].empty()) return format("rank {} ({}): {}", r, devices[i], errors[i]);
      if (sums[i] != expectedSum) return format("rank {}: all-reduce gave {}, expected {}", r, sums[i], expectedSum);
      if (broadcasts[i] != 10.0 * n) return format("rank {}: broadcast gave {}, expected {}", r, broadcasts[i], 10 * n);
      if (!abortSeen[i]) return format("rank {}: a collective after abort() did not throw CommError naming the reason", r);
    }
    return {};
  } catch (const std::exception& e) {
    return e.what();
  }
}

Json BenchResult::toJson() const {
  return {{"project", project},       {"device", device},     {"precision", precision},
          {"batch", batch},           {"iterations", iterations}, {"samples_per_s", samplesPerSecond},
          {"flops_per_sample", flopsPerSample}, {"tflops", samplesPerSecond * flopsPerSample / 1e12},
          {"mean_loss", meanLoss},    {"check_loss", checkLoss}, {"solver", solver},
          {"initial_parameters", initialParameters}, {"error", error}};
}

BenchResult benchTraining(const std::string& projectPath, const std::string& device, const std::string& precision,
                          int64_t batch, int iterations, int warmup) {
  BenchResult r{projectPath, device, precision, batch, iterations};
  try {
    const Project project = loadProject(projectPath);
    const Graph graph = buildGraph(project.network, OpRegistry::builtin());
    r.flopsPerSample = 6.0 * static_cast<double>(graph.multiplyAdds);
    auto ctx = makeContext(device, precision);
    if (auto* c = dynamic_cast<CpuDeviceContext*>(ctx.get())) c->bindToCurrentThread();
    Network net(graph, *ctx);
    net.initializeParameters(project.config.seed);
    // An imported model (tests/bench/torchvision_bench_models.py) starts from its weights, as
    // `netsmith-cli train` would (Note [Initial parameters]), so that PyTorch's peer, loading the
    // same values, trains the same network from the same point.
    if (!project.config.initialParameters.empty()) {
      applyInitialParameters(readInitialParameters(project.config.initialParameters, graph), net);
      r.initialParameters = project.config.initialParameters;
    }
    r.solver = project.optimizer.solver;
    auto opt = Optimizer::create(project.optimizer);
    std::unique_ptr<DeviceSolver> solver;
    if (const auto& make = deviceKindOf(device).makeSolver) solver = make(*opt, *ctx);
    const auto slots = slotsOf(net.kernelParameters());
    const double lr = opt->baseLearningRate();
    // A pool of synthetic batches in the context's staging memory, one copied in per iteration.
    std::vector<Tensor> xs, ys;
    for (int i = 0; i < 4; ++i) {
      xs.emplace_back(ctx->stagingAllocator());
      ys.emplace_back(ctx->stagingAllocator());
      syntheticBatch(graph, batch, static_cast<uint64_t>(i), xs.back(), ys.back());
    }
    {
      Tensor cx(ctx->stagingAllocator()), cy(ctx->stagingAllocator());
      checkBatch(graph, batch, cx, cy);
      r.checkLoss = meanOf(net.forward(cx, cy, false, RandomKey{1, 0, 0, nullptr}));
    }
    double lossSum = 0;
    Clock::time_point start;
    for (int it = 0; it < warmup + iterations; ++it) {
      if (it == warmup) {
        ctx->synchronize();
        start = Clock::now();
        lossSum = 0;
      }
      // The trainer's order (Note [Loss read after the step is queued], engine/train/replica.cpp):
      // forward, backward and the update queued, then the loss read.
      const auto k = static_cast<size_t>(it % 4);
      net.queueForward(xs[k], ys[k], true, RandomKey{1, 0, static_cast<uint64_t>(it), nullptr});
      net.backward((solver ? solver->lossScale() : 1.0f) / static_cast<float>(batch));
      if (solver) solver->step(slots, lr);
      else opt->step(slots, lr);
      lossSum += meanOf(net.queuedLoss());
    }
    ctx->synchronize();
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    r.samplesPerSecond = static_cast<double>(batch) * iterations / seconds;
    r.meanLoss = lossSum / std::max(iterations, 1);
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

Json measurePeak(const std::string& device) {
#ifdef NETSMITH_HAVE_CUDA
  try {
    auto base = makeContext(device, "float");
    auto& ctx = static_cast<cuda::CudaDeviceContext&>(*base);
    const int n = 8192;
    Tensor a({int64_t{n} * n}, ctx.deviceAllocator()), b({int64_t{n} * n}, ctx.deviceAllocator()),
        c({int64_t{n} * n}, ctx.deviceAllocator());
    ctx.fill(a.data(), a.size(), 0.5f);
    ctx.fill(b.data(), b.size(), 0.25f);
    Json out = Json::object();
    const float one = 1.0f, zero = 0.0f;
    for (const auto& [name, compute, math] :
         {std::tuple{"fp32", CUBLAS_COMPUTE_32F, CUBLAS_PEDANTIC_MATH},
          std::tuple{"tf32", CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_DEFAULT_MATH},
          std::tuple{"bf16", CUBLAS_COMPUTE_32F_FAST_16BF, CUBLAS_DEFAULT_MATH},
          std::tuple{"fp16", CUBLAS_COMPUTE_32F_FAST_16F, CUBLAS_DEFAULT_MATH}}) {
      cublasSetMathMode(ctx.cublas(), math);
      const auto run = [&] {
        cublasGemmEx(ctx.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a.data(), CUDA_R_32F, n, b.data(), CUDA_R_32F,
                     n, &zero, c.data(), CUDA_R_32F, n, compute, CUBLAS_GEMM_DEFAULT);
      };
      run();
      ctx.synchronize();
      const int reps = 10;
      const auto start = Clock::now();
      for (int i = 0; i < reps; ++i) run();
      ctx.synchronize();
      const double s = std::chrono::duration<double>(Clock::now() - start).count();
      out[name] = 2.0 * n * double(n) * n * reps / s / 1e12;
    }
    return out;
  } catch (const std::exception& e) {
    return {{"error", e.what()}};
  }
#else
  (void)device;
  return Json::object();
#endif
}

}  // namespace netsmith::gpucheck
