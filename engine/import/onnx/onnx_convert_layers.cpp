// Converters of the ONNX operators that become Netsmith layers with parameters or activations
// (Note [ONNX import]): Conv, ConvTranspose, Gemm, MatMul, Add, Mul, BatchNormalization, the
// activations and the patterns merged into one layer.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "engine/core/error.h"
#include "engine/import/onnx/onnx_import_context.h"
#include "engine/import/onnx/onnx_constants.h"
#include "engine/import/onnx/onnx_window.h"

namespace netsmith::onnx_import {
namespace {

// A float attribute as the shortest decimal that gives the same float (1e-05, not 9.99999974737875e-06).
double shortest(float f) {
  char buf[32];
  for (int digits = 6; digits <= 9; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(f));
    if (std::strtof(buf, nullptr) == f) break;
  }
  return std::strtod(buf, nullptr);
}

bool near(double a, double b) { return std::fabs(a - b) <= 1e-6 * std::max(1.0, std::fabs(b)); }

// The layer value of input `i`, a Pad merged into it (the window converters read Padded values).
Value layerOrPadded(const ImportContext& c, const OnnxNodeDef& n, size_t i) {
  Value v = c.value(n, i);
  if (v.kind == Value::Kind::Constant) c.layer(n, i);  // the error for a constant
  return v;
}

Value asLayer(Value v) {
  v.kind = Value::Kind::Layer;
  v.padHeight = v.padWidth = 0;
  return v;
}

std::vector<std::pair<std::string, Tensor>> oneBlob(const char* name, Tensor t) {
  std::vector<std::pair<std::string, Tensor>> blobs;
  blobs.emplace_back(name, std::move(t));
  return blobs;
}

std::vector<float> floatsOf(const OnnxTensor& t) {
  if (t.isFloat) return t.floats;
  std::vector<float> v;
  for (int64_t x : t.ints) v.push_back(static_cast<float>(x));
  return v;
}

// A per-channel vector of `count` values from a constant of shape (count), (count, 1, 1),
// (1, count, 1, 1), ... or a single value repeated; nullopt when it is something else.
std::optional<std::vector<float>> channelVector(const OnnxTensor& t, int64_t count, bool trailingOnes) {
  int64_t big = 0, bigAxis = -1;
  for (size_t a = 0; a < t.dims.size(); ++a)
    if (t.dims[a] != 1) {
      if (big) return std::nullopt;
      big = t.dims[a];
      bigAxis = static_cast<int64_t>(a);
    }
  const std::vector<float> v = floatsOf(t);
  if (!big) return std::vector<float>(static_cast<size_t>(count), v.at(0));
  if (big != count) return std::nullopt;
  // Channels of an image: the axis 3 from the end (C, H, W); of a vector: the last axis.
  const int64_t fromEnd = static_cast<int64_t>(t.dims.size()) - bigAxis;
  if (trailingOnes ? fromEnd != 3 : fromEnd != 1) return std::nullopt;
  return v;
}

// --- Conv, ConvTranspose ------------------------------------------------------------------------

void convolution(ImportContext& c, const OnnxNodeDef& n, bool transposed) {
  const Value x = layerOrPadded(c, n, 0);
  const OnnxTensor& w = c.constant(n, 1, "weight");
  if (w.dims.size() != 4) c.unsupported(n, format("with a weight of shape ({}): Netsmith's convolutions are 2-D", dimsText(w.dims)));
  Window2d win = windowOf(c, n, x, c.intsAttr(n, "kernel_shape", {w.dims[2], w.dims[3]}));
  Value in = asLayer(x);
  // Note [Asymmetric padding]: TensorFlow's SAME padding with a stride (tf2onnx writes it as pads
  // or auto_pad) pads one more row or column after than before; Netsmith's Convolution pads both
  // sides alike. The difference becomes a Pad layer of zeros before it (what the convolution's own
  // padding adds too), so the output is the same. A transposed convolution's pads crop its output
  // instead, and pools pad with their own values: those stay an error (symmetricPad).
  if (!transposed && (win.padBegin != win.padEnd)) {
    const std::string asGiven = format("{},{} before and {},{} after", win.padBegin[0], win.padBegin[1], win.padEnd[0],
                                       win.padEnd[1]);
    Json padWidth = Json::array();
    for (int a = 0; a < 2; ++a) {
      const int64_t common = std::min(win.padBegin[a], win.padEnd[a]);
      padWidth.push_back(win.padBegin[a] - common);
      padWidth.push_back(win.padEnd[a] - common);
      win.padBegin[a] = win.padEnd[a] = common;
    }
    OnnxNodeDef padNode = n;
    padNode.name = n.name + "_pad";
    padNode.outputs.clear();  // the Convolution below gives n's output
    const std::string padId =
        c.addLayer(padNode, "Pad", {&in}, {{"pad_width", padWidth}, {"mode", "constant"}, {"constant_value", 0.0}});
    in.node = padId;
    in.shape = c.made(padId).shape;
    c.note(format("Conv '{}' pads (height, width) {}: the Pad layer '{}' adds the difference", n.name, asGiven, padId));
  }
  const std::vector<int64_t> pad = symmetricPad(c, n, win);
  const int64_t group = c.intAttr(n, "group", 1);
  if (transposed) {
    for (int64_t p : c.intsAttr(n, "output_padding", {0, 0}))
      if (p != 0) c.unsupported(n, "with output_padding: Netsmith's Deconvolution has none");
    if (n.attr("output_shape")) c.unsupported(n, "with output_shape: give pads instead");
  }
  const int64_t outmaps = transposed ? w.dims[1] * group : w.dims[0];
  Json params = {{"outmaps", outmaps}, {"kernel", win.kernel}, {"pad", pad}, {"stride", win.stride},
                 {"dilation", win.dilation}, {"group", group}, {"with_bias", c.present(n, 2)}};
  std::vector<std::pair<std::string, Tensor>> blobs;
  blobs.emplace_back("W", tensorOf(Shape(w.dims.begin(), w.dims.end()), floatsOf(w)));
  if (c.present(n, 2)) {
    const OnnxTensor& b = c.constant(n, 2, "bias");
    if (b.count() != outmaps) c.fail(n, format("its bias has {} values for {} output maps", b.count(), outmaps));
    blobs.emplace_back("b", tensorOf(Shape{outmaps}, floatsOf(b)));
  }
  c.addLayer(n, transposed ? "Deconvolution" : "Convolution", {&in}, params, std::move(blobs));
}

// --- Gemm, MatMul -------------------------------------------------------------------------------

void gemm(ImportContext& c, const OnnxNodeDef& n) {
  const Value& a = c.layer(n, 0);
  const OnnxTensor& b = c.constant(n, 1, "B matrix");
  if (c.intAttr(n, "transA", 0) != 0) c.unsupported(n, "with transA: the batch would be a column");
  if (a.shape.size() != 1) c.fail(n, format("multiplies a ({}) input; Gemm takes (batch, features)", shapeToString(a.shape)));
  if (b.dims.size() != 2) c.fail(n, format("its B has shape ({}), not a matrix", dimsText(b.dims)));
  const bool transB = c.intAttr(n, "transB", 0) != 0;
  const int64_t k = a.shape[0], m = transB ? b.dims[0] : b.dims[1];
  if ((transB ? b.dims[1] : b.dims[0]) != k)
    c.fail(n, format("multiplies {} features by a ({}) matrix{}", k, dimsText(b.dims), transB ? " (transposed)" : ""));
  const float alpha = c.floatAttr(n, "alpha", 1.0f), beta = c.floatAttr(n, "beta", 1.0f);
  // Affine's W is (inputs, outputs).
  std::vector<float> w(static_cast<size_t>(k * m));
  const std::vector<float> bv = floatsOf(b);
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < m; ++j)
      w[static_cast<size_t>(i * m + j)] = alpha * bv[static_cast<size_t>(transB ? j * k + i : i * m + j)];
  std::vector<std::pair<std::string, Tensor>> blobs;
  blobs.emplace_back("W", tensorOf(Shape{k, m}, w));
  const bool bias = c.present(n, 2) && beta != 0.0f;
  if (bias) {
    const auto v = channelVector(c.constant(n, 2, "C"), m, false);
    if (!v) c.unsupported(n, format("with a C of shape ({}): Affine's bias has one value per output", dimsText(c.constant(n, 2, "C").dims)));
    std::vector<float> scaled = *v;
    for (float& x : scaled) x *= beta;
    blobs.emplace_back("b", tensorOf(Shape{m}, scaled));
  }
  c.addLayer(n, "Affine", {&a}, {{"n_outmaps", {m}}, {"base_axis", 1}, {"with_bias", bias}}, std::move(blobs));
}

void matmul(ImportContext& c, const OnnxNodeDef& n) {
  const Value& a = c.layer(n, 0);
  if (!c.isConstant(n, 1))
    c.unsupported(n, "of two computed tensors: Netsmith's Affine multiplies by its own weight matrix (a constant)");
  const OnnxTensor& b = c.constant(n, 1, "second matrix");
  if (b.dims.size() != 2) c.unsupported(n, format("by a constant of shape ({}): Affine multiplies by a matrix", dimsText(b.dims)));
  if (a.shape.empty() || a.shape.back() != b.dims[0])
    c.fail(n, format("multiplies ({}) by a ({}) matrix", shapeToString(a.shape), dimsText(b.dims)));
  const int64_t k = b.dims[0], m = b.dims[1];
  std::vector<std::pair<std::string, Tensor>> blobs;
  blobs.emplace_back("W", tensorOf(Shape{k, m}, floatsOf(b)));
  // base_axis counts the batch axis: every per-sample axis but the last is kept.
  c.addLayer(n, "Affine", {&a},
             {{"n_outmaps", {m}}, {"base_axis", static_cast<int64_t>(a.shape.size())}, {"with_bias", false}},
             std::move(blobs));
}

// --- Add ----------------------------------------------------------------------------------------

// A constant added to the output of an Affine or Convolution that nothing else reads becomes its
// bias, or is added to the bias it has.
bool foldBias(ImportContext& c, const OnnxNodeDef& n, const Value& x, const OnnxTensor& k) {
  MadeNode& producer = c.made(x.node);
  const std::string& type = producer.spec.type;
  if (type != "Affine" && type != "Convolution" && type != "Deconvolution") return false;
  // Every ONNX reader of the layer's value is this node (the value was made for it alone).
  for (const MadeNode& m : c.nodes())
    if (std::count(m.inputs.begin(), m.inputs.end(), x.node)) return false;
  const std::string& produced = n.inputs[c.isConstant(n, 0) ? 1 : 0];
  if (c.readers(produced).size() != 1) return false;
  const int64_t channels = type == "Affine" ? x.shape.back() : x.shape.at(0);
  if (type == "Affine" && producer.spec.params["n_outmaps"].size() != 1) return false;
  const auto v = channelVector(k, channels, type != "Affine");
  if (!v) return false;
  if (producer.spec.params.value("with_bias", true)) {
    auto b = std::find_if(producer.blobs.begin(), producer.blobs.end(), [](const auto& blob) { return blob.first == "b"; });
    if (b == producer.blobs.end()) return false;
    for (int64_t i = 0; i < channels; ++i) b->second[i] += (*v)[static_cast<size_t>(i)];
  } else {
    producer.spec.params["with_bias"] = true;
    producer.blobs.emplace_back("b", tensorOf(Shape{channels}, *v));
  }
  c.alias(n, c.isConstant(n, 0) ? 1 : 0);
  return true;
}

void add(ImportContext& c, const OnnxNodeDef& n) {
  if (c.isConstant(n, 0) != c.isConstant(n, 1)) {
    const size_t layerInput = c.isConstant(n, 0) ? 1 : 0;
    const Value& x = c.layer(n, layerInput);
    if (foldBias(c, n, x, c.constant(n, 1 - layerInput, "addend"))) return;
    if (foldIntoGroupNorm(c, n, false)) return;
    c.unsupported(n, "of a constant to a layer's output, except as the bias of the Gemm, MatMul or Conv before it: "
                     "Netsmith has no layer that adds a constant");
  }
  elementwiseOfLayers(c, n, "Add2");
}

// --- BatchNormalization -------------------------------------------------------------------------

void batchNormalization(ImportContext& c, const OnnxNodeDef& n) {
  const Value& x = c.layer(n, 0);
  if (c.intAttr(n, "training_mode", 0) != 0) c.unsupported(n, "in training mode: export the model in eval mode");
  c.onlyFirstOutputUsed(n);
  if (x.shape.empty()) c.fail(n, "normalizes a scalar");
  const int64_t channels = x.shape[0];
  const char* names[] = {"gamma", "beta", "mean", "var"};
  const char* what[] = {"scale", "bias", "running mean", "running variance"};
  std::vector<std::pair<std::string, Tensor>> blobs;
  for (size_t i = 0; i < 4; ++i) {
    const OnnxTensor& t = c.constant(n, i + 1, what[i]);
    if (t.count() != channels) c.fail(n, format("its {} has {} values for {} channels", what[i], t.count(), channels));
    blobs.emplace_back(names[i], tensorOf(Shape{channels}, floatsOf(t)));
  }
  const double eps = shortest(c.floatAttr(n, "epsilon", 1e-5f)), momentum = shortest(c.floatAttr(n, "momentum", 0.9f));
  c.addLayer(n, "BatchNormalization", {&x},
             {{"eps", eps}, {"decay_rate", std::clamp(momentum, 0.0, 1.0)}}, std::move(blobs));
}

// --- activations --------------------------------------------------------------------------------

// `n`'s output read by exactly one Mul whose other input is `n`'s own input: the index of that Mul.
int gatingMul(const ImportContext& c, const OnnxNodeDef& n) {
  const auto& readers = c.readers(n.outputs[0]);
  if (readers.size() != 1 || readers[0] < 0) return -1;
  const OnnxNodeDef& mul = c.model().nodes[static_cast<size_t>(readers[0])];
  if (mul.opType != "Mul" || mul.inputs.size() != 2 || mul.outputs.empty()) return -1;
  const std::string& other = mul.inputs[0] == n.outputs[0] ? mul.inputs[1] : mul.inputs[0];
  return other == n.inputs.at(0) ? readers[0] : -1;
}

// The activation `type` on input 0, or `gated` (x · activation(x)) when a Mul makes that pattern.
void activation(ImportContext& c, const OnnxNodeDef& n, const std::string& type, Json params = Json::object(),
                const std::string& gated = {}) {
  const Value& x = c.layer(n, 0);
  if (!gated.empty()) {
    if (const int mul = gatingMul(c, n); mul >= 0) {
      const OnnxNodeDef& m = c.model().nodes[static_cast<size_t>(mul)];
      const std::string id = c.addLayer(n, gated, {&x});
      c.setLayer(m.outputs[0], id);
      c.absorb(mul);
      c.note(format("{} '{}' and Mul '{}' became one {} layer '{}'", n.opType, n.name, m.name, gated, id));
      return;
    }
  }
  c.addLayer(n, type, {&x}, std::move(params));
}

// Clip's bounds: attributes before opset 11, optional constant inputs since.
void clip(ImportContext& c, const OnnxNodeDef& n) {
  double lo = -INFINITY, hi = INFINITY;
  if (c.opset() < 11) {
    lo = c.floatAttr(n, "min", -INFINITY);
    hi = c.floatAttr(n, "max", INFINITY);
  } else {
    if (c.present(n, 1)) lo = c.constant(n, 1, "min").real(0);
    if (c.present(n, 2)) hi = c.constant(n, 2, "max").real(0);
  }
  if (lo == 0 && hi == 6 && c.registry().find("ReLU6")) return activation(c, n, "ReLU6");
  if (lo == 0 && std::isinf(hi)) return activation(c, n, "ReLU");
  c.unsupported(n, format("to [{}, {}]: Netsmith clips only as ReLU (0, ∞) and ReLU6 (0, 6)", lo, hi));
}

void hardSigmoid(ImportContext& c, const OnnxNodeDef& n) {
  const double alpha = c.floatAttr(n, "alpha", 0.2f), beta = c.floatAttr(n, "beta", 0.5f);
  if (near(alpha, 1.0 / 6.0) && near(beta, 0.5) && gatingMul(c, n) >= 0) return activation(c, n, "", {}, "HardSwish");
  if (near(alpha, 0.2) && near(beta, 0.5)) return activation(c, n, "HardSigmoid");
  c.unsupported(n, format("with alpha {} and beta {}: Netsmith's HardSigmoid is nnabla's (alpha 0.2, beta 0.5)", alpha, beta));
}

// Mish as exporters write it before opset 18: x · Tanh(Softplus(x)).
void softplus(ImportContext& c, const OnnxNodeDef& n) {
  const auto& readers = c.readers(n.outputs[0]);
  if (readers.size() == 1 && readers[0] >= 0) {
    const OnnxNodeDef& tanh = c.model().nodes[static_cast<size_t>(readers[0])];
    if (tanh.opType == "Tanh" && !tanh.outputs.empty()) {
      OnnxNodeDef probe = tanh;
      probe.inputs = {n.inputs.at(0)};
      if (const int mul = gatingMul(c, probe); mul >= 0) {
        const OnnxNodeDef& m = c.model().nodes[static_cast<size_t>(mul)];
        const Value& x = c.layer(n, 0);
        const std::string id = c.addLayer(n, "Mish", {&x});
        c.setLayer(m.outputs[0], id);
        c.absorb(readers[0]);
        c.absorb(mul);
        c.note(format("Softplus '{}', Tanh '{}' and Mul '{}' became one Mish layer '{}'", n.name, tanh.name, m.name, id));
        return;
      }
    }
  }
  activation(c, n, "SoftPlus", {{"beta", 1.0}});
}

void prelu(ImportContext& c, const OnnxNodeDef& n) {
  const Value& x = c.layer(n, 0);
  const OnnxTensor& slope = c.constant(n, 1, "slope");
  if (slope.count() == 1)
    return (void)c.addLayer(n, "PReLU", {&x}, {{"base_axis", 1}, {"shared", true}},
                            oneBlob("slope", tensorOf(Shape{1}, floatsOf(slope))));
  const auto v = channelVector(slope, x.shape.at(0), x.shape.size() == 3);
  if (!v || x.shape.empty()) c.unsupported(n, format("with slopes of shape ({}): Netsmith's PReLU has one per channel or one in all", dimsText(slope.dims)));
  c.addLayer(n, "PReLU", {&x}, {{"base_axis", 1}, {"shared", false}}, oneBlob("slope", tensorOf(Shape{x.shape[0]}, *v)));
}

void softmax(ImportContext& c, const OnnxNodeDef& n) {
  const Value& x = c.layer(n, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size()) + 1;
  int64_t axis = c.intAttr(n, "axis", c.opset() >= 13 ? -1 : 1);
  if (axis < 0) axis += rank;
  if (axis <= 0 || axis >= rank) c.unsupported(n, format("over axis {}: the batch axis mixes samples", axis));
  // Before opset 13 Softmax flattens the axes from `axis` on: the same as Netsmith's only when it
  // is the last axis (or the ones after it have size 1).
  if (c.opset() < 13)
    for (int64_t a = axis; a < rank - 1; ++a)
      if (x.shape[static_cast<size_t>(a)] != 1)
        c.unsupported(n, format("over the flattened axes {} to {} (opset {} semantics)", axis, rank - 1, c.opset()));
  c.addLayer(n, "Softmax", {&x}, {{"axis", axis - 1}});
}

// A per-output-channel constant multiplied into the output of a Convolution or Affine that nothing
// else reads scales its weights (and bias) instead: tf2onnx writes a BatchNormalization it could
// not fold into the layer before as such a Mul, then an Add (which foldBias takes).
bool foldScale(ImportContext& c, const OnnxNodeDef& n) {
  if (c.isConstant(n, 0) == c.isConstant(n, 1)) return false;
  const size_t layerInput = c.isConstant(n, 0) ? 1 : 0;
  const Value& x = c.layer(n, layerInput);
  MadeNode& producer = c.made(x.node);
  const std::string& type = producer.spec.type;
  if (type != "Affine" && type != "Convolution") return false;
  for (const MadeNode& m : c.nodes())
    if (std::count(m.inputs.begin(), m.inputs.end(), x.node)) return false;
  if (c.readers(n.inputs[layerInput]).size() != 1) return false;
  if (type == "Affine" && producer.spec.params["n_outmaps"].size() != 1) return false;
  const int64_t channels = type == "Affine" ? x.shape.back() : x.shape.at(0);
  const auto scale = channelVector(c.constant(n, 1 - layerInput, "factor"), channels, type != "Affine");
  if (!scale) return false;
  for (auto& [name, t] : producer.blobs) {
    // Convolution W (outmaps, ...) and b (outmaps); Affine W (inputs, outmaps) and b (outmaps).
    const int64_t inner = name == "W" && type == "Convolution" ? t.size() / channels : 1;
    for (int64_t i = 0; i < t.size(); ++i) {
      const int64_t channel = name == "W" && type == "Affine" ? i % channels : i / inner;
      t[i] *= (*scale)[static_cast<size_t>(channel)];
    }
  }
  c.note(format("Mul '{}' by a per-channel constant was folded into the weights of {} '{}'", n.name, type, x.node));
  c.alias(n, layerInput);
  return true;
}

void mul(ImportContext& c, const OnnxNodeDef& n) {
  if (foldIntoGroupNorm(c, n, true)) return;
  if (foldScale(c, n)) return;
  elementwiseOfLayers(c, n, "Mul2");
}

}  // namespace

void addLayerConverters(ConverterTable& t) {
  t["Conv"] = [](ImportContext& c, const OnnxNodeDef& n) { convolution(c, n, false); };
  t["ConvTranspose"] = [](ImportContext& c, const OnnxNodeDef& n) { convolution(c, n, true); };
  t["Gemm"] = gemm;
  t["MatMul"] = matmul;
  t["Add"] = add;
  t["Mul"] = mul;
  t["BatchNormalization"] = batchNormalization;
  t["Relu"] = [](ImportContext& c, const OnnxNodeDef& n) { activation(c, n, "ReLU"); };
  t["Clip"] = clip;
  t["Sigmoid"] = [](ImportContext& c, const OnnxNodeDef& n) { activation(c, n, "Sigmoid", {}, "Swish"); };
  t["HardSigmoid"] = hardSigmoid;
  t["HardSwish"] = [](ImportContext& c, const OnnxNodeDef& n) { activation(c, n, "HardSwish"); };
  t["Tanh"] = [](ImportContext& c, const OnnxNodeDef& n) { activation(c, n, "Tanh"); };
  t["Softplus"] = softplus;
  t["Mish"] = [](ImportContext& c, const OnnxNodeDef& n) { activation(c, n, "Mish"); };
  t["LeakyRelu"] = [](ImportContext& c, const OnnxNodeDef& n) {
    activation(c, n, "LeakyReLU", {{"alpha", shortest(c.floatAttr(n, "alpha", 0.01f))}});
  };
  t["Elu"] = [](ImportContext& c, const OnnxNodeDef& n) { activation(c, n, "ELU", {{"alpha", shortest(c.floatAttr(n, "alpha", 1.0f))}}); };
  t["Selu"] = [](ImportContext& c, const OnnxNodeDef& n) {
    activation(c, n, "SELU", {{"alpha", shortest(c.floatAttr(n, "alpha", 1.67326319217681884765625f))},
                              {"scale", shortest(c.floatAttr(n, "gamma", 1.05070102214813232421875f))}});
  };
  t["PRelu"] = prelu;
  t["Softmax"] = softmax;
}

}  // namespace netsmith::onnx_import
