#include "engine/model/network.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "engine/core/error.h"
#include "engine/core/rng.h"
#include "engine/core/sha256.h"
#include "engine/model/step_timer.h"

namespace netsmith {
namespace {

// Note [No allocation per step]: a training step allocates nothing once the first steps at a
// batch size have sized every tensor (Note [Primitives across steps] in
// engine/backend/cpu/primitive_call.h says what the kernels keep; tests/unit/
// tst_step_allocations.cpp checks it). Tensor::resize takes its Shape by value, so even an
// unchanged shape would cost a vector copy: Network keeps each node's batch shape, recomputed
// only when the batch size changes, and resizes a tensor only when its shape differs; a
// fanned-out gradient's later contribution has a scratch tensor per shape and port (scratchFor). The
// per-call argument lists (inputs, input gradients) are members too.
void fitShape(Tensor& t, const Shape& shape) {
  if (t.shape() != shape) t.resize(shape);
}

// Note [Frozen layers]: training leaves the blob as it is: every blob of a frozen layer, and the
// trainable ones of a layer with lr_mult 0 (whose running statistics still follow the batches).
bool isHeld(const GraphNode& node, size_t blob) {
  return node.frozen || (node.blobs[blob].trainable && !node.learns());
}
}  // namespace

struct Network::NodeRuntime {
  std::unique_ptr<Kernel> kernel;
  std::vector<Tensor> params;
  std::vector<Tensor> grads;      // empty Tensor for blobs that are not trainable
  std::vector<Tensor*> paramPtrs;
  std::vector<Tensor*> gradPtrs;  // null for blobs that are not trainable
  std::vector<Tensor> hostParams;  // device memory only: the host view (Note [Device memory])
  std::vector<Tensor> hostGrads;
  Tensor output;
  Tensor outputGrad;
  // Note [16-bit activations], Note [Channels last]: the format of output and outputGrad, which is
  // also the one its kernel reads its inputs in; copies of output in the other formats its readers
  // use, each converted once per forward pass (at pass convertedIn).
  TensorFormat format;
  struct Copy {
    Tensor tensor;
    uint64_t convertedIn = 0;
  };
  std::vector<Copy> copies;
  Shape batchShape;          // (batch of the last forward, output shape): Note [No allocation per step]
  bool gradWritten = false;  // outputGrad holds the first contribution of this backward pass
  // Note [Fused ReLU]: this node's forward writes the output of node `writesInto` (its ReLU),
  // or this ReLU's output is written by the node before it (`foldedAway`).
  int writesInto = -1;
  bool foldedAway = false;
};

// Note [16-bit activations]
// On a GPU computing in half or bfloat16 (DeviceContext::activationStorage()), a layer whose
// kernel takes 16-bit activations (OpSchema::takes16BitActivations, declared where the CUDA
// kernel is registered) stores its output and its output's gradient in 16 bits, and reads its
// inputs in 16 bits: half the memory and half the traffic of float32, and tensor cores throughout
// (PyTorch's autocast keeps activations in 16 bits the same way). What stays float32: the Input
// (the batch as the dataset gives it), the loss and its gradient (the softmax inside the loss
// too), every parameter, parameter gradient and optimizer state (master weights), and
// BatchNormalization's statistics (its kernel computes them in float32 from 16-bit values). A
// layer without a 16-bit kernel keeps float32 too; where a reader's storage differs from its
// producer's, the network converts the producer's output once per forward pass (outputAs) and,
// going back, converts the reader's gradient into the producer's as it adds it (DeviceContext::
// convert and accumulateTensor, rounding to nearest even). Simulated GPUs store the same bits:
// their CPU kernels read the 16-bit values widened and their results are rounded as they are
// stored (Note [Simulated kernels]); the GPU kernels compute in float32 too, so the two differ by
// the order of the sums only. NETSMITH_ACTIVATIONS=float32 keeps every activation in float32 (to
// compare, and to measure what 16 bits save).

// Note [Fused ReLU]: a Convolution, Deconvolution or Affine followed by a ReLU that is its only
// reader computes max(y, 0) as a oneDNN post-op while it writes, straight into the ReLU's output;
// the ReLU's forward is skipped and the layer's own output is never allocated. That saves a
// pass over the activation each way (on LeNet the ReLUs were 10% of the step). The ReLU's
// backward reads its output (eltwise_relu_use_dst_for_bwd: y > 0 exactly where x > 0) and the
// layer's backward reads its input, never its output, so the backward pass is unchanged. The
// values are the same as unfused, bit for bit: the post-op applies the same max to the same
// float before it is stored.

Network::Network(const Graph& graph, DeviceContext& device, bool fuse)
    : m_graph(graph),
      m_device(device),
      m_deviceMemory(device.deviceAllocator()),
      m_target(device.stagingAllocator()),
      m_targetDevice(m_deviceMemory),
      m_lossGrad(m_deviceMemory),
      m_lossHost(device.stagingAllocator()) {
  const size_t n = graph.nodes.size();
  m_needsGrad.assign(n, false);
  const ActivationRules rules = ActivationRules::of(device);
  for (size_t i = 0; i < n; ++i) {
    const GraphNode& node = graph.nodes[i];
    auto rt = std::make_unique<NodeRuntime>();
    rt->format = formatFor(node, rules);
    rt->output = Tensor(m_deviceMemory, rt->format);
    rt->outputGrad = Tensor(m_deviceMemory, rt->format);
    // Note [Frozen layers]: a layer that does not learn has no gradient tensors, so nothing
    // downstream (optimizer, all-reduce) sees its blobs, and backward skips it when no layer
    // before it learns either (m_needsGrad).
    bool hasTrainable = false;
    for (const ParamBlob& blob : node.blobs) {
      const bool learned = blob.trainable && node.learns();
      rt->params.emplace_back(blob.shape, m_deviceMemory);
      rt->grads.emplace_back(learned ? Tensor(blob.shape, m_deviceMemory) : Tensor());
      if (onDevice()) {
        rt->hostParams.emplace_back(blob.shape);
        rt->hostGrads.emplace_back(learned ? Tensor(blob.shape) : Tensor());
      }
      hasTrainable = hasTrainable || learned;
    }
    for (size_t b = 0; b < node.blobs.size(); ++b) {
      rt->paramPtrs.push_back(&rt->params[b]);
      rt->gradPtrs.push_back(node.blobs[b].trainable && node.learns() ? &rt->grads[b] : nullptr);
    }
    bool upstream = hasTrainable;
    for (int p : node.inputs) upstream = upstream || m_needsGrad[p];
    m_needsGrad[i] = upstream;
    if (!node.schema->isInput) {
      const auto it = node.schema->kernels.find(device.backend());
      NS_CHECK(it != node.schema->kernels.end(), "layer '{}' ({}) has no kernel for the {} backend of device {}", node.id,
               node.schema->name, device.backend(), device.id());
      const OpParams params(node.params);
      rt->kernel = it->second(KernelSetup{device, node.inputShapes, node.outputShape, params});
    }
    m_nodes.push_back(std::move(rt));
  }
  if (fuse) fuseRelus();
}

bool Network::fusionWanted() {
  static const bool wanted = [] {
    const char* v = std::getenv("NETSMITH_FUSION");
    return !(v && std::strcmp(v, "off") == 0);
  }();
  return wanted;
}

void Network::fuseRelus() {
  const size_t n = m_graph.nodes.size();
  std::vector<int> readers(n, 0);
  for (const GraphNode& node : m_graph.nodes)
    for (int p : node.inputs) ++readers[static_cast<size_t>(p)];
  for (size_t i = 0; i < n; ++i) {
    const GraphNode& node = m_graph.nodes[i];
    if (!node.schema->foldsIntoProducer || node.inputs.size() != 1) continue;
    NodeRuntime& producer = *m_nodes[static_cast<size_t>(node.inputs[0])];
    // The producer writes the ReLU's output in its own storage (Note [16-bit activations]).
    if (readers[static_cast<size_t>(node.inputs[0])] != 1 || producer.format != m_nodes[i]->format || !producer.kernel ||
        !producer.kernel->fuseRelu())
      continue;
    producer.writesInto = static_cast<int>(i);
    m_nodes[i]->foldedAway = true;
  }
}

int Network::fusedRelus() const {
  return static_cast<int>(std::count_if(m_nodes.begin(), m_nodes.end(), [](const auto& rt) { return rt->foldedAway; }));
}

int Network::forwardDoneBy(int node) const {
  if (!m_nodes[static_cast<size_t>(node)]->foldedAway) return -1;
  return m_graph.nodes[static_cast<size_t>(node)].inputs.at(0);
}

const Shape& Network::outputShapeOf(int node) const { return m_nodes[static_cast<size_t>(node)]->batchShape; }

const Tensor& Network::inputFor(TensorFormat format, int producer) {
  NodeRuntime& p = *m_nodes[static_cast<size_t>(producer)];
  if (p.format == format) return p.output;
  auto copy = std::find_if(p.copies.begin(), p.copies.end(), [&](const auto& c) { return c.tensor.format() == format; });
  if (copy == p.copies.end()) {  // the first forward pass (the network's readers are fixed)
    p.copies.push_back({Tensor(m_deviceMemory, format), 0});
    copy = p.copies.end() - 1;
  }
  if (copy->convertedIn != m_forwardPass) {
    fitShape(copy->tensor, p.output.shape());
    m_device.convert(copy->tensor, p.output);
    copy->convertedIn = m_forwardPass;
  }
  return copy->tensor;
}

TensorFormat Network::formatFor(const GraphNode& node, const ActivationRules& rules) {
  // Note [16-bit activations]: the Input and the loss stay float32.
  if (rules.narrow == Storage::Float32 || node.schema->isInput || node.schema->isLoss() ||
      !node.schema->takes16BitActivations.count(rules.backend))
    return {};
  TensorFormat format{rules.narrow, Layout::ChannelsFirst};
  // Note [Channels last]: (N, C, H, W) in and out.
  bool images = node.outputShape.size() == 3;
  for (const Shape& in : node.inputShapes) images = images && in.size() == 3;
  if (rules.channelsLast && images && node.schema->takesChannelsLast.count(rules.backend))
    format.layout = Layout::ChannelsLast;
  return format;
}

Network::ActivationBytes Network::activationBytesPerSample(const Graph& graph, const ActivationRules& rules) {
  std::vector<TensorFormat> format;
  for (const GraphNode& node : graph.nodes) format.push_back(formatFor(node, rules));
  std::vector<std::pair<int, TensorFormat>> copies;  // one per producer and format read in
  ActivationBytes bytes;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const int64_t n = numel(graph.nodes[i].outputShape) * static_cast<int64_t>(storageBytes(format[i].storage));
    bytes.outputs += n;
    bytes.gradients += n;
    for (int p : graph.nodes[i].inputs) {
      const std::pair<int, TensorFormat> copy{p, format[i]};
      if (format[static_cast<size_t>(p)] == format[i] || std::find(copies.begin(), copies.end(), copy) != copies.end())
        continue;
      copies.push_back(copy);
      bytes.outputs +=
          numel(graph.nodes[static_cast<size_t>(p)].outputShape) * static_cast<int64_t>(storageBytes(format[i].storage));
    }
  }
  return bytes;
}

Storage Network::storageOf(int node) const { return m_nodes[static_cast<size_t>(node)]->format.storage; }
Layout Network::layoutOf(int node) const { return m_nodes[static_cast<size_t>(node)]->format.layout; }

void Network::setBatch(int64_t batch) {
  m_batch = batch;
  if (batch == m_shapesBatch) return;
  for (size_t i = 0; i < m_nodes.size(); ++i) m_nodes[i]->batchShape = withBatch(batch, m_graph.nodes[i].outputShape);
  m_shapesBatch = batch;
}

Network::~Network() = default;

void Network::initializeParameters(uint64_t seed) {
  for (size_t i = 0; i < m_nodes.size(); ++i) {
    const GraphNode& node = m_graph.nodes[i];
    for (size_t b = 0; b < node.blobs.size(); ++b) {
      const ParamBlob& blob = node.blobs[b];
      const std::string key = node.id + "/" + blob.name;
      Rng rng(mix64(seed) ^ std::hash<std::string>{}(key));
      Tensor& t = onDevice() ? m_nodes[i]->hostParams[b] : m_nodes[i]->params[b];
      switch (blob.init.kind) {
        case Initializer::Kind::Constant: t.fill(blob.init.a); break;
        case Initializer::Kind::Uniform:
          for (int64_t k = 0; k < t.size(); ++k) t[k] = rng.uniform(blob.init.a, blob.init.b);
          break;
        case Initializer::Kind::Normal:
          for (int64_t k = 0; k < t.size(); ++k) t[k] = blob.init.a + blob.init.b * rng.normal();
          break;
      }
    }
  }
  if (onDevice()) uploadHostView();
}

void Network::uploadHostView() {
  for (auto& rt : m_nodes)
    for (size_t b = 0; b < rt->params.size(); ++b)
      m_device.upload(rt->params[b].data(), rt->hostParams[b].data(), rt->params[b].size());
  m_hostViewOut = false;
}

// Note [Loss targets]: the dataset gives each sample a label row of `labelWidth` values. A
// ClassIndex loss takes it as is, (N, 1). A SameAsPrediction loss takes it as is when the widths
// match, and one-hot encodes a single class label when the prediction has one value per class.
void Network::makeTarget(const Tensor& labels) {
  const GraphNode& loss = m_graph.loss();
  const int64_t batch = labels.dim(0);
  const int64_t width = labels.size() / std::max<int64_t>(batch, 1);
  const Shape& predShape = m_graph.prediction().outputShape;
  const int64_t predSize = numel(predShape);
  if (loss.schema->lossTarget == LossTarget::ClassIndex) {
    NS_CHECK(width == 1, "{} '{}' needs one class label per sample, but the dataset gives {} values", loss.schema->name,
             loss.id, width);
    fitShape(m_target, labels.shape());
    std::memcpy(m_target.data(), labels.data(), labels.size() * sizeof(float));
    return;
  }
  if (batch == m_batch)
    fitShape(m_target, outputShapeOf(m_graph.loss().inputs.at(0)));  // (batch, prediction shape)
  else
    m_target.resize(withBatch(batch, predShape));
  if (width == predSize) {
    std::memcpy(m_target.data(), labels.data(), labels.size() * sizeof(float));
    return;
  }
  NS_CHECK(width == 1, "{} '{}' compares a prediction of {} values with a label of {} values: make the last layer output {}",
           loss.schema->name, loss.id, predSize, width, width);
  m_target.zero();
  for (int64_t r = 0; r < batch; ++r) {
    const float v = labels[r];
    const int64_t cls = static_cast<int64_t>(v);
    NS_CHECK(v == std::floor(v) && cls >= 0 && cls < predSize,
             "label {} is not a class index in [0, {}) for the {} outputs of '{}'", v, predSize, predSize,
             m_graph.prediction().id);
    m_target[r * predSize + cls] = 1.0f;
  }
}

const Tensor& Network::forward(const Tensor& x, const Tensor& labels, bool training, const RandomKey& random) {
  queueForward(x, labels, training, random);
  return queuedLoss();
}

void Network::prepareReplay(const Tensor& x, const Tensor& labels) {
  setBatch(x.dim(0));
  m_lastForwardTraining = true;
  if (m_hostViewOut) uploadHostView();
  makeTarget(labels);
  if (onDevice()) fitShape(m_lossHost, m_nodes[m_graph.lossNode]->batchShape);
}

void Network::reserveBatch(int64_t rows, int64_t labelWidth) {
  // A flat shape of that size: Tensor::resize keeps the memory for any smaller shape later.
  if (const int64_t n = rows * std::max(labelWidth, numel(m_graph.prediction().outputShape)); n > m_target.capacity())
    m_target.resize({n});
  if (const int64_t n = rows * numel(m_graph.loss().outputShape); onDevice() && n > m_lossHost.capacity())
    m_lossHost.resize({n});
}

const Tensor& Network::queuedLoss() {
  if (!onDevice()) return m_nodes[m_graph.lossNode]->output;
  m_device.finishDownloads();
  return m_lossHost;
}

void Network::queueForward(const Tensor& x, const Tensor& labels, bool training, const RandomKey& random) {
  const int64_t batch = x.dim(0);
  setBatch(batch);
  m_random = random;
  m_lastForwardTraining = training;
  ++m_forwardPass;
  if (m_hostViewOut) uploadHostView();
  // Note [Layer profile]: the target and the Input's copy are the step's "data" time.
  const auto dataStart = m_timing ? m_timing->now() : StepTimer::Mark{};
  makeTarget(labels);
  const Tensor* target = &m_target;
  if (onDevice()) {
    fitShape(m_targetDevice, m_target.shape());
    m_device.upload(m_targetDevice.data(), m_target.data(), m_target.size());
    target = &m_targetDevice;
  }
  if (m_timing) m_timing->add(ProfilePhase::Data, dataStart);
  std::vector<const Tensor*>& inputs = m_callInputs;
  for (size_t i = 0; i < m_nodes.size(); ++i) {
    const GraphNode& node = m_graph.nodes[i];
    NodeRuntime& rt = *m_nodes[i];
    if (node.schema->isInput) {
      NS_CHECK(numel(node.outputShape) * batch == x.size(), "the dataset's samples ({} values) do not fit Input '{}' of shape {}",
               x.size() / std::max<int64_t>(batch, 1), node.id, shapeToString(node.outputShape));
      const auto start = m_timing ? m_timing->now() : StepTimer::Mark{};
      fitShape(rt.output, rt.batchShape);
      m_device.upload(rt.output.data(), x.data(), x.size());
      if (m_timing) m_timing->add(ProfilePhase::Data, start);
      continue;
    }
    if (rt.foldedAway) continue;  // written by the layer before (Note [Fused ReLU])
    const auto start = m_timing ? m_timing->now() : StepTimer::Mark{};
    inputs.clear();
    for (int p : node.inputs) inputs.push_back(&inputFor(rt.format, p));
    NodeRuntime& written = rt.writesInto >= 0 ? *m_nodes[static_cast<size_t>(rt.writesInto)] : rt;
    Tensor& output = written.output;
    fitShape(output, written.batchShape);
    KernelCall call{m_device, inputs, rt.paramPtrs, output};
    call.target = node.schema->isLoss() ? target : nullptr;
    call.training = training && !node.frozen;  // a frozen BatchNormalization: inference mode
    call.random = random;
    call.random.node = i;
    rt.kernel->forward(call);
    if (m_timing) m_timing->addForward(static_cast<int>(i), start);
  }
  const Tensor& loss = m_nodes[m_graph.lossNode]->output;
  if (!onDevice()) return;
  if (!training) {
    const Tensor& prediction = inputFor(TensorFormat{}, m_graph.loss().inputs.at(0));
    fitShape(m_predictionHost, prediction.shape());
    m_device.download(m_predictionHost.data(), prediction.data(), prediction.size());
  }
  fitShape(m_lossHost, loss.shape());
  m_device.queueDownload(m_lossHost.data(), loss.data(), loss.size());
}

void Network::backward(float weight, const std::function<void(int node)>& onNodeDone) {
  NS_CHECK(m_lastForwardTraining, "backward() needs a training forward pass first");
  for (auto& rt : m_nodes) rt->gradWritten = false;
  NodeRuntime& lossRt = *m_nodes[m_graph.lossNode];
  fitShape(m_lossGrad, lossRt.output.shape());
  m_device.fill(m_lossGrad.data(), m_lossGrad.size(), weight);
  const Tensor* target = onDevice() ? &m_targetDevice : &m_target;

  std::vector<const Tensor*>& inputs = m_callInputs;
  std::vector<Tensor*>& inputGrads = m_callInputGrads;
  for (int i = static_cast<int>(m_nodes.size()) - 1; i >= 0; --i) {
    const GraphNode& node = m_graph.nodes[i];
    NodeRuntime& rt = *m_nodes[i];
    if (node.schema->isInput || !m_needsGrad[i]) continue;
    auto start = m_timing ? m_timing->now() : StepTimer::Mark{};
    const Tensor* outGrad = i == m_graph.lossNode ? &m_lossGrad : &rt.outputGrad;
    if (i != m_graph.lossNode && !rt.gradWritten) {  // nothing downstream depends on it
      for (Tensor* g : rt.gradPtrs)
        if (g) m_device.fill(g->data(), g->size(), 0.0f);
      if (m_timing) m_timing->addBackward(i, start);
      handOff(onNodeDone, i);
      continue;
    }

    // A producer's first contribution is written straight into its outputGrad; a later one
    // (fan-out, or the same producer on two ports) goes to scratch and is added after the call.
    inputs.clear();
    inputGrads.clear();
    // Ports whose gradient goes to scratch: each its own tensor, added in port order after the
    // call (Add2(a, b) where a and b also feed later layers defers both ports).
    std::vector<std::pair<int, Tensor*>>& deferred = m_callDeferred;
    deferred.clear();
    for (size_t port = 0; port < node.inputs.size(); ++port) {
      const int p = node.inputs[port];
      inputs.push_back(&inputFor(rt.format, p));
      if (!m_needsGrad[p]) {
        inputGrads.push_back(nullptr);
        continue;
      }
      NodeRuntime& producer = *m_nodes[p];
      const bool claimedHere =
          std::find(node.inputs.begin(), node.inputs.begin() + port, p) != node.inputs.begin() + port;
      // A gradient in another storage than the producer's is converted as it is added.
      if (!producer.gradWritten && !claimedHere && producer.format == rt.format) {
        fitShape(producer.outputGrad, outputShapeOf(p));  // its output may be folded away
        inputGrads.push_back(&producer.outputGrad);
      } else {
        Tensor* scratch = &scratchFor(outputShapeOf(p), rt.format, static_cast<int>(deferred.size()));
        inputGrads.push_back(scratch);
        deferred.emplace_back(static_cast<int>(port), scratch);
      }
    }
    KernelCall call{m_device, inputs, rt.paramPtrs, rt.output};
    call.target = node.schema->isLoss() ? target : nullptr;
    call.training = true;
    call.random = m_random;
    call.random.node = i;
    call.outputGrad = outGrad;
    call.inputGrads = inputGrads;
    call.paramGrads = rt.gradPtrs;
    rt.kernel->backward(call);
    if (m_timing) m_timing->addBackward(i, start);
    handOff(onNodeDone, i);
    if (m_timing && !deferred.empty()) start = m_timing->now();
    for (size_t port = 0; port < node.inputs.size(); ++port) {
      const int p = node.inputs[port];
      if (!m_needsGrad[p]) continue;
      NodeRuntime& producer = *m_nodes[p];
      for (const auto& [deferredPort, scratch] : deferred) {
        if (deferredPort != static_cast<int>(port)) continue;
        Tensor& acc = producer.outputGrad;
        if (!producer.gradWritten) {  // the first contribution, in another storage
          fitShape(acc, outputShapeOf(p));
          m_device.convert(acc, *scratch);
        } else {
          m_device.accumulateTensor(acc, *scratch);
        }
        producer.gradWritten = true;  // a later deferred port of this producer adds to it
      }
      producer.gradWritten = true;
    }
    if (m_timing && !deferred.empty()) m_timing->addBackward(i, start, false);  // the fan-out's addition
  }
}

std::vector<float> Network::valuesOf(int node, bool gradient) {
  NodeRuntime& rt = *m_nodes[static_cast<size_t>(node)];
  const Tensor* t = &rt.output;
  if (gradient) {
    if (node == m_graph.lossNode) t = &m_lossGrad;
    else if (!m_needsGrad[static_cast<size_t>(node)] || !rt.gradWritten) return {};
    else t = &rt.outputGrad;
  } else if (rt.writesInto >= 0) {
    return {};
  }
  if (t->size() == 0) return {};
  std::vector<float> out(static_cast<size_t>(t->size()));
  if (t->format().storage == Storage::Float32) {
    m_device.download(out.data(), t->data(), t->size());
    return out;
  }
  Tensor wide(m_deviceMemory, TensorFormat{Storage::Float32, t->format().layout});
  wide.resize(t->shape());
  m_device.convert(wide, *t);
  m_device.download(out.data(), wide.data(), wide.size());
  return out;
}

Tensor& Network::scratchFor(const Shape& shape, TensorFormat format, int nth) {
  for (auto& t : m_scratch)
    if (t->shape() == shape && t->format() == format && nth-- == 0) return *t;
  m_scratch.push_back(std::make_unique<Tensor>(m_deviceMemory, format));
  m_scratch.back()->resize(shape);
  return *m_scratch.back();
}

void Network::handOff(const std::function<void(int node)>& onNodeDone, int node) {
  if (!onNodeDone) return;
  if (!m_timing) {
    onNodeDone(node);
    return;
  }
  const auto start = m_timing->now();
  onNodeDone(node);
  m_timing->add(ProfilePhase::Buckets, start);
}

int64_t Network::tensorBytes() const {
  int64_t bytes = m_target.capacityBytes() + m_targetDevice.capacityBytes() + m_lossGrad.capacityBytes();
  for (const auto& t : m_scratch) bytes += t->capacityBytes();
  for (const auto& rt : m_nodes) {
    bytes += rt->output.capacityBytes() + rt->outputGrad.capacityBytes();
    for (const auto& copy : rt->copies) bytes += copy.tensor.capacityBytes();
    for (const Tensor& t : rt->params) bytes += t.capacityBytes();
    for (const Tensor& t : rt->grads) bytes += t.capacityBytes();
  }
  return bytes;
}

const Tensor& Network::prediction() const {
  return onDevice() ? m_predictionHost : m_nodes[m_graph.loss().inputs.at(0)]->output;
}

std::vector<ParameterRef> Network::parameters() {
  if (!onDevice()) return kernelParameters();
  // Once handed out, the host mirrors are the newer copy until the next forward() uploads them:
  // a checkpoint restore writes them, and the replicas' check after it (or the fingerprint of a
  // resumed completed run) asks again. Downloading then would put the device's older blobs (the
  // initialisers') back over the restored ones.
  const bool download = !m_hostViewOut;
  std::vector<ParameterRef> out;
  for (size_t i = 0; i < m_nodes.size(); ++i) {
    const GraphNode& node = m_graph.nodes[i];
    NodeRuntime& rt = *m_nodes[i];
    for (size_t b = 0; b < node.blobs.size(); ++b) {
      if (download) m_device.download(rt.hostParams[b].data(), rt.params[b].data(), rt.params[b].size());
      Tensor* grad = nullptr;
      if (rt.gradPtrs[b]) {
        grad = &rt.hostGrads[b];
        if (download) m_device.download(grad->data(), rt.grads[b].data(), rt.grads[b].size());
      }
      out.push_back({node.id + "/" + node.blobs[b].name, &rt.hostParams[b], grad, isHeld(node, b),
                     static_cast<float>(node.lrMult)});
    }
  }
  m_hostViewOut = true;
  return out;
}

std::vector<ParameterRef> Network::kernelParameters() {
  // The caller may write the kernels' blobs (initial parameters): they must start from the newest
  // values, and the host view handed out before must not be uploaded over them at the next forward.
  if (m_hostViewOut) uploadHostView();
  std::vector<ParameterRef> out;
  for (size_t i = 0; i < m_nodes.size(); ++i) {
    const GraphNode& node = m_graph.nodes[i];
    for (size_t b = 0; b < node.blobs.size(); ++b)
      out.push_back({node.id + "/" + node.blobs[b].name, m_nodes[i]->paramPtrs[b], m_nodes[i]->gradPtrs[b],
                     isHeld(node, b), static_cast<float>(node.lrMult)});
  }
  return out;
}

std::string parametersSha256(std::vector<ParameterRef> params) {
  std::sort(params.begin(), params.end(), [](const ParameterRef& a, const ParameterRef& b) { return a.name < b.name; });
  static_assert(std::endian::native == std::endian::little, "parameters_sha256 assumes a little-endian host");
  Sha256 h;
  for (const auto& p : params) h.update(p.value->data(), p.value->size() * sizeof(float));
  return h.hexDigest();
}

}  // namespace netsmith
