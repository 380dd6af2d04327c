// OpSchema: the one declaration of a layer type (Note [Op folders]). The project loader, the
// validator, `netsmith-cli ops`, the GUI palette and property editor, the docs and the gradient
// test all read it; nothing else lists layers.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/core/device_context.h"
#include "engine/core/rng.h"
#include "engine/core/shape.h"
#include "engine/core/tensor.h"

namespace netsmith {

using Json = nlohmann::json;

enum class ParamType {
  Int,     // integer, optional [min, max]
  Float,   // number, optional [min, max]
  Bool,    // true / false
  Ints,    // list of integers; `length` > 0 fixes the count; each element within [min, max]
  String,  // one of `choices` when choices is not empty
};

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::Int;
  Json defaultValue;  // null: the parameter is required
  std::optional<double> min;
  std::optional<double> max;
  int length = 0;
  std::vector<std::string> choices;
  std::string help;
};

// Read access to a node's parameters after validation (every parameter present, typed, in range).
class OpParams {
 public:
  explicit OpParams(const Json& values) : m_values(&values) {}
  int64_t integer(const std::string& name) const { return m_values->at(name).get<int64_t>(); }
  double number(const std::string& name) const { return m_values->at(name).get<double>(); }
  bool flag(const std::string& name) const { return m_values->at(name).get<bool>(); }
  std::vector<int64_t> ints(const std::string& name) const { return m_values->at(name).get<std::vector<int64_t>>(); }
  std::string text(const std::string& name) const { return m_values->at(name).get<std::string>(); }
  const Json& json() const { return *m_values; }

 private:
  const Json* m_values;
};

// How a parameter blob starts. Neural Network Console's defaults: weights uniform Glorot, biases 0.
struct Initializer {
  enum class Kind { Constant, Uniform, Normal };
  Kind kind = Kind::Constant;
  float a = 0.0f;  // Constant: value; Uniform: low; Normal: mean
  float b = 0.0f;  // Uniform: high; Normal: standard deviation

  static Initializer constant(float v) { return {Kind::Constant, v, 0.0f}; }
  static Initializer uniform(float lo, float hi) { return {Kind::Uniform, lo, hi}; }
  static Initializer normal(float mean, float stddev) { return {Kind::Normal, mean, stddev}; }
  // nnabla's calc_uniform_lim_glorot: U(-l, l), l = sqrt(6 / (prod(kernel) * inmaps + outmaps)).
  static Initializer glorotUniform(int64_t inmapsTimesKernel, int64_t outmaps);
};

// One parameter blob of a node: "W", "b", "gamma", "mean", ...
struct ParamBlob {
  std::string name;
  Shape shape;
  Initializer init;
  bool trainable = true;  // false: state updated by the forward pass (BatchNormalization's mean/var)
};

// Randomness for a forward pass, keyed so that a value depends on (seed, node, pass, sample,
// element) only: the same sample gets the same mask on any device and any batch position.
struct RandomKey {
  uint64_t seed = 0;
  uint64_t node = 0;            // index of the node in the graph
  uint64_t pass = 0;            // the epoch (training) so masks change between epochs
  const int64_t* sampleIds = nullptr;  // global dataset index of each batch row; null: row index

  float uniform(int64_t row, int64_t element) const {
    const uint64_t sample = sampleIds ? static_cast<uint64_t>(sampleIds[row]) : static_cast<uint64_t>(row);
    return counterUniform(seed ^ mix64(node * 0x1000193u + pass), sample, static_cast<uint64_t>(element));
  }
};

// Everything a kernel gets for one forward or backward call. Tensors carry full shapes with the
// batch axis first: inputs (N, ...), output (N, outputShape). Arrays are in port / blob order.
struct KernelCall {
  DeviceContext& device;
  std::span<const Tensor* const> inputs;
  std::span<Tensor* const> params;
  Tensor& output;                 // forward writes it; backward reads it (the forward result)
  const Tensor* target = nullptr; // loss ops: (N, ...) see LossTarget
  bool training = false;
  RandomKey random;
  // Backward only. Each is written (overwritten, not accumulated); a null entry needs no gradient.
  const Tensor* outputGrad = nullptr;
  std::span<Tensor* const> inputGrads;
  std::span<Tensor* const> paramGrads;  // null for blobs that are not trainable
};

// A kernel instance belongs to one node on one device; it may cache primitives between calls
// and must cope with the batch size changing from call to call (a short last batch).
class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual void forward(KernelCall& call) = 0;
  virtual void backward(KernelCall& call) = 0;
  // Note [Fused ReLU]: asks the kernel to write max(y, 0) instead of y from now on (a oneDNN
  // post-op); false when it cannot, and nothing changes. Called before the first forward.
  virtual bool fuseRelu() { return false; }
};

// What a kernel factory is told when a network is instantiated on a device.
struct KernelSetup {
  DeviceContext& device;
  std::vector<Shape> inputShapes;  // per sample, without the batch axis
  Shape outputShape;               // per sample
  const OpParams& params;
};

using KernelFactory = std::function<std::unique_ptr<Kernel>(const KernelSetup&)>;

// What a loss compares its prediction with.
enum class LossTarget {
  None,              // not a loss
  ClassIndex,        // (N, 1): the class index as a float (SoftmaxCrossEntropy)
  SameAsPrediction,  // (N, prediction shape); a class label is one-hot encoded by the trainer
};

// Note [Output head]: what inference applies to a loss's prediction once the loss is taken away
// (engine/eval/output_head.h): the loss layers consume raw scores, so evaluate, infer and the
// ONNX export apply the function the loss implies. Declared by each loss in its own folder.
enum class OutputHead { Softmax, Sigmoid, Identity };

// What a loss's prediction means, for counting errors and reading classes (output_head.h's
// classReadingOf, engine/train/metrics.cpp). Every loss declares one; other ops keep None.
enum class LossPrediction {
  None,                // not a loss
  Values,              // regression: values compared as they are (SquaredError, HuberLoss, ...)
  ClassScores,         // one raw score per class, read by arg-max (SoftmaxCrossEntropy)
  ClassProbabilities,  // one probability per class, read by arg-max (KLDivergence, CategoricalCrossEntropy)
  LabelLogits,         // one independent yes/no per output, as a logit: yes when > 0 (SigmoidCrossEntropy)
  LabelProbabilities,  // one independent yes/no per output, as a probability: yes when > 0.5 (BinaryCrossEntropy)
};

// Note [Op examples]: inputs and parameters that exercise an op, declared in its own folder
// (schema.cpp) and read by every test that walks the registry: the gradient check, the shape
// check, the ONNX export rows, the GPU comparison and the GUI. A new op brings its examples and
// needs no test edit. An example with an empty name replaces the one those tests derive from the
// default parameters (for ops where that cannot work); a named one adds a case that covers a
// setting the defaults do not reach.
struct OpExample {
  std::string name;           // "" or a short identifier: "axis2", "per_channel", "saturated"
  std::vector<Shape> inputs;  // per-sample input shapes, one per port (a variadic port repeats)
  Json params = Json::object();  // as a project writes them; the tests validate them
  // Input magnitudes span [0.05, 1] x inputScale: > 1 reaches an activation's far kinks and
  // saturated parts (ReLU6's 6, HardSigmoid's +-2.5), which [-1, 1] never does.
  float inputScale = 1.0f;
};

struct OpSchema {
  std::string name;      // the one id in JSON, palette, kernel lookup and docs: "Convolution"
  // Note [Op aliases]: other names a project may give this layer type, for functions known under
  // two names (SiLU is Swish). OpRegistry::find resolves them to this schema, so a node typed
  // "SiLU" is a Swish in every respect (kernels, ONNX, gradients); the palette and the docs list
  // the type once, under `name`, with its aliases.
  std::vector<std::string> aliases;
  std::string category;  // "Basic", "Activation", "Pooling", "Normalization", "Loss", "Arithmetic", "Math"...
  std::string doc;       // one or two sentences for tooltips and `netsmith-cli ops`
  std::vector<std::string> inputs;  // port names; with `variadic` the last port repeats
  bool variadic = false;            // Concatenate: two or more inputs
  std::vector<ParamSpec> params;
  LossTarget lossTarget = LossTarget::None;
  bool isInput = false;  // the Input layer: filled from the dataset, no kernel
  // max(x, 0) whose kernels' backward reads only the output: the layer before may write that
  // output itself when its kernel can (Kernel::fuseRelu, Note [Fused ReLU]).
  bool foldsIntoProducer = false;
  // Normalizes by statistics over the batch while training (BatchNormalization): the trainer warns
  // when a device's share of the batch makes them noisy. Per-sample normalizations do not.
  bool usesBatchStatistics = false;
  // Draws from KernelCall::random, which changes every step (Dropout): a step with such a layer
  // cannot be replayed from a CUDA graph, whose arguments are frozen (Note [CUDA graphs of a step]).
  bool drawsRandomNumbers = false;
  // Losses only (Note [Output head]): the head inference applies, and what the prediction means.
  OutputHead outputHead = OutputHead::Identity;
  LossPrediction prediction = LossPrediction::None;

  // Per-sample output shape from per-sample input shapes; throws Error with a sentence that
  // says what is wrong and what to change (the validator prefixes the node id).
  std::function<Shape(const std::vector<Shape>& inputs, const OpParams& params)> inferShape;
  // Parameter blobs; empty function: the op has none.
  std::function<std::vector<ParamBlob>(const std::vector<Shape>& inputs, const OpParams& params)> parameterBlobs;
  // Multiply-adds per sample (for the GUI status line); empty function: counted as 0.
  std::function<int64_t(const std::vector<Shape>& inputs, const Shape& output, const OpParams& params)> multiplyAdds;
  // Kernels by backend key ("cpu", "cuda").
  std::map<std::string, KernelFactory> kernels;
  // Note [16-bit activations] (engine/model/network.cpp): backends whose kernel reads and writes
  // activations, and their gradients, in the device's activationStorage() — set where the kernel
  // is registered (the CUDA op folders' addCudaKernel); other layers get float32 copies.
  std::set<std::string> takes16BitActivations;
  // Note [Channels last] (engine/core/channels_last.h): backends whose kernel also takes (N, C, H,
  // W) activations in NHWC memory order, declared the same way.
  std::set<std::string> takesChannelsLast;
  // Note [Op examples].
  std::vector<OpExample> examples;

  bool isLoss() const { return lossTarget != LossTarget::None; }
  const ParamSpec* findParam(const std::string& name) const;
};

// Checks `given` (a JSON object, or null for none) against the schema: unknown keys, types,
// ranges, lengths, choices; fills defaults. Errors name `jsonPath` + "." + the key, e.g.
// "network.nodes[3].params.kernel: expected 2 positive integers, got [5]".
Json validateParams(const OpSchema& schema, const Json& given, const std::string& jsonPath);

// JSON description of a schema for `netsmith-cli ops --json`, the GUI and the docs.
Json schemaToJson(const OpSchema& schema);
const char* paramTypeName(ParamType type);

}  // namespace netsmith
