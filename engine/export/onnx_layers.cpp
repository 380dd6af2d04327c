#include "engine/export/onnx_layers.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/ops/op_schema.h"

namespace netsmith {

void OnnxLayerContext::addNode(std::string opType, std::vector<std::string> ins, std::vector<std::string> outs,
                               std::vector<OnnxAttribute> attrs, const std::string& suffix) {
  graph.nodes.push_back({suffix.empty() ? node.id : node.id + "/" + suffix, std::move(opType), std::move(ins),
                         std::move(outs), std::move(attrs)});
}

std::string OnnxLayerContext::addFloats(const std::string& what, Shape dims, const float* data) {
  OnnxInitializer init;
  init.name = local(what);
  init.floats.assign(data, data + numel(dims));
  init.dims = std::move(dims);
  graph.initializers.push_back(std::move(init));
  return graph.initializers.back().name;
}

std::string OnnxLayerContext::addInt64s(const std::string& what, std::vector<int64_t> values) {
  OnnxInitializer init;
  init.name = local(what);
  init.isInt64 = true;
  init.dims = Shape{static_cast<int64_t>(values.size())};
  init.int64s = std::move(values);
  graph.initializers.push_back(std::move(init));
  return graph.initializers.back().name;
}

namespace {

using Attr = OnnxAttribute;

// Reshape's target: 0 keeps the batch axis (ONNX copies input dimension 0), then the per-sample
// shape Netsmith inferred.
std::vector<int64_t> batchShape(const Shape& perSample) {
  std::vector<int64_t> s{0};
  s.insert(s.end(), perSample.begin(), perSample.end());
  return s;
}

void unary(OnnxLayerContext& c, const char* opType, std::vector<Attr> attrs = {}) {
  c.addNode(opType, {c.inputs.at(0)}, {c.output}, std::move(attrs));
}

// nnabla's Affine: y = x (flattened from base_axis) · W + b, W (inner, outmaps...).
void affine(OnnxLayerContext& c) {
  const OpParams p(c.node.params);
  const Shape& x = c.node.inputShapes.at(0);
  const size_t kept = static_cast<size_t>(p.integer("base_axis") - 1);
  const Shape outmaps = p.ints("n_outmaps");
  const int64_t inner = numel(Shape(x.begin() + static_cast<ptrdiff_t>(kept), x.end()));
  const int64_t m = numel(outmaps);
  const std::string w = c.addFloats("W", Shape{inner, m}, c.blobs.at(0)->data());
  const bool bias = p.flag("with_bias");
  const bool reshapeOut = outmaps.size() > 1;
  const std::string product = reshapeOut ? c.local("matrix") : c.output;
  if (kept == 0) {
    const std::string flat = c.local("flat");
    c.addNode("Flatten", {c.inputs.at(0)}, {flat}, {Attr::integer("axis", 1)}, "flatten");
    std::vector<std::string> ins{flat, w};
    if (bias) ins.push_back(c.addFloats("b", Shape{m}, c.blobs.at(1)->data()));
    c.addNode("Gemm", ins, {product}, {}, "gemm");
  } else {
    Shape lhs(x.begin(), x.begin() + static_cast<ptrdiff_t>(kept));
    lhs.push_back(inner);
    const std::string rows = c.local("rows");
    c.addNode("Reshape", {c.inputs.at(0), c.addInt64s("rows_shape", batchShape(lhs))}, {rows}, {}, "rows");
    const std::string mm = bias ? c.local("matmul") : product;
    c.addNode("MatMul", {rows, w}, {mm}, {}, "matmul");
    if (bias) c.addNode("Add", {mm, c.addFloats("b", Shape{m}, c.blobs.at(1)->data())}, {product}, {}, "bias");
  }
  if (reshapeOut)
    c.addNode("Reshape", {product, c.addInt64s("out_shape", batchShape(c.node.outputShape))}, {c.output}, {}, "reshape");
}

std::vector<Attr> convAttributes(const OpParams& p) {
  const auto k = p.ints("kernel"), pad = p.ints("pad"), stride = p.ints("stride"), dil = p.ints("dilation");
  return {Attr::integers("kernel_shape", k), Attr::integers("pads", {pad[0], pad[1], pad[0], pad[1]}),
          Attr::integers("strides", stride), Attr::integers("dilations", dil), Attr::integer("group", p.integer("group"))};
}

// Convolution W (outmaps, inmaps/group, kh, kw) and Deconvolution W (inmaps, outmaps/group, kh, kw)
// are laid out as ONNX's Conv and ConvTranspose expect.
void convolution(OnnxLayerContext& c, const char* opType) {
  const OpParams p(c.node.params);
  std::vector<std::string> ins{c.inputs.at(0), c.addFloats("W", c.blobs.at(0)->shape(), c.blobs.at(0)->data())};
  if (p.flag("with_bias")) ins.push_back(c.addFloats("b", c.blobs.at(1)->shape(), c.blobs.at(1)->data()));
  c.addNode(opType, ins, {c.output}, convAttributes(p));
}

// Note [Pooling windows] in ONNX terms. ignore_border true is ONNX's floor mode with symmetric
// pads. ignore_border false (ceil mode) gets an end pad just large enough for the last window
// instead of ceil_mode, whose rule differs from nnabla's. Max pooling never picks padding in
// either. Average pooling with including_pad divides by the window's part inside the input
// padded by `pad`; when a window runs past that, the `pad` zeros are made explicit with a Pad
// node and the extra end pad is excluded from the count (count_include_pad 0).
void pooling(OnnxLayerContext& c, bool average) {
  const OpParams p(c.node.params);
  const Shape& x = c.node.inputShapes.at(0);
  const auto k = p.ints("kernel"), stride = p.ints("stride"), pad = p.ints("pad");
  int64_t endPad[2];
  bool overhang = false;
  for (int a = 0; a < 2; ++a) {
    const int64_t in = x[1 + a], out = c.node.outputShape[1 + a];
    endPad[a] = std::max(pad[a], (out - 1) * stride[a] + k[a] - in - pad[a]);
    NS_CHECK((in + pad[a] + endPad[a] - k[a]) / stride[a] + 1 == out,
             "layer '{}' ({}): its window geometry along {} has no exact ONNX equivalent", c.node.id, c.node.schema->name,
             a == 0 ? "height" : "width");
    overhang = overhang || endPad[a] > pad[a];
  }
  std::vector<Attr> attrs{Attr::integers("kernel_shape", k), Attr::integers("strides", stride)};
  if (!average) {
    attrs.push_back(Attr::integers("pads", {pad[0], pad[1], endPad[0], endPad[1]}));
    c.addNode("MaxPool", {c.inputs.at(0)}, {c.output}, attrs);
    return;
  }
  const bool includingPad = p.flag("including_pad");
  if (includingPad && overhang) {
    const std::string padded = c.local("padded");
    c.addNode("Pad", {c.inputs.at(0), c.addInt64s("pads", {0, 0, pad[0], pad[1], 0, 0, pad[0], pad[1]})}, {padded},
              {}, "pad");
    attrs.push_back(Attr::integers("pads", {0, 0, endPad[0] - pad[0], endPad[1] - pad[1]}));
    attrs.push_back(Attr::integer("count_include_pad", 0));
    c.addNode("AveragePool", {padded}, {c.output}, attrs);
    return;
  }
  attrs.push_back(Attr::integers("pads", {pad[0], pad[1], endPad[0], endPad[1]}));
  attrs.push_back(Attr::integer("count_include_pad", includingPad ? 1 : 0));
  c.addNode("AveragePool", {c.inputs.at(0)}, {c.output}, attrs);
}

// Per-sample axis (Netsmith's params) → ONNX axis (counting the batch axis).
int64_t batchAxis(const OnnxLayerContext& c) { return OpParams(c.node.params).integer("axis") + 1; }

std::map<std::string, OnnxLayerMapping> makeTable() {
  std::map<std::string, OnnxLayerMapping> t;
  // The graph input; the exporter names it, nothing to add.
  t["Input"] = [](OnnxLayerContext&) {};
  t["Affine"] = affine;
  t["Convolution"] = [](OnnxLayerContext& c) { convolution(c, "Conv"); };
  t["Deconvolution"] = [](OnnxLayerContext& c) { convolution(c, "ConvTranspose"); };
  t["MaxPooling"] = [](OnnxLayerContext& c) { pooling(c, false); };
  t["AveragePooling"] = [](OnnxLayerContext& c) { pooling(c, true); };
  t["GlobalAveragePooling"] = [](OnnxLayerContext& c) { unary(c, "GlobalAveragePool"); };
  t["ReLU"] = [](OnnxLayerContext& c) { unary(c, "Relu"); };
  t["LeakyReLU"] = [](OnnxLayerContext& c) {
    unary(c, "LeakyRelu", {Attr::real("alpha", static_cast<float>(OpParams(c.node.params).number("alpha")))});
  };
  t["ELU"] = [](OnnxLayerContext& c) {
    unary(c, "Elu", {Attr::real("alpha", static_cast<float>(OpParams(c.node.params).number("alpha")))});
  };
  t["Sigmoid"] = [](OnnxLayerContext& c) { unary(c, "Sigmoid"); };
  t["Tanh"] = [](OnnxLayerContext& c) { unary(c, "Tanh"); };
  // Opset 13 has no Swish: x * Sigmoid(x).
  t["Swish"] = [](OnnxLayerContext& c) {
    const std::string s = c.local("sigmoid");
    c.addNode("Sigmoid", {c.inputs.at(0)}, {s}, {}, "sigmoid");
    c.addNode("Mul", {c.inputs.at(0), s}, {c.output}, {}, "mul");
  };
  t["Softmax"] = [](OnnxLayerContext& c) { unary(c, "Softmax", {Attr::integer("axis", batchAxis(c))}); };
  // Inference passes the input through unchanged.
  t["Dropout"] = [](OnnxLayerContext& c) { unary(c, "Identity"); };
  // Blobs: beta, gamma, mean, var; inference uses the running statistics.
  t["BatchNormalization"] = [](OnnxLayerContext& c) {
    const OpParams p(c.node.params);
    std::vector<std::string> ins{c.inputs.at(0)};
    for (size_t b : {1, 0, 2, 3}) {
      const char* names[] = {"beta", "gamma", "mean", "var"};
      ins.push_back(c.addFloats(names[b], c.blobs.at(b)->shape(), c.blobs.at(b)->data()));
    }
    c.addNode("BatchNormalization", ins, {c.output},
              {Attr::real("epsilon", static_cast<float>(p.number("eps"))),
               Attr::real("momentum", static_cast<float>(p.number("decay_rate")))});
  };
  t["Flatten"] = [](OnnxLayerContext& c) { unary(c, "Flatten", {Attr::integer("axis", 1)}); };
  t["Reshape"] = [](OnnxLayerContext& c) {
    c.addNode("Reshape", {c.inputs.at(0), c.addInt64s("shape", batchShape(c.node.outputShape))}, {c.output});
  };
  t["Add2"] = [](OnnxLayerContext& c) { c.addNode("Add", {c.inputs.at(0), c.inputs.at(1)}, {c.output}); };
  t["Concatenate"] = [](OnnxLayerContext& c) { c.addNode("Concat", c.inputs, {c.output}, {Attr::integer("axis", batchAxis(c))}); };
  // Losses: the output head (Note [Output head]).
  t["SoftmaxCrossEntropy"] = [](OnnxLayerContext& c) { unary(c, "Softmax", {Attr::integer("axis", 1)}); };
  t["SigmoidCrossEntropy"] = [](OnnxLayerContext& c) { unary(c, "Sigmoid"); };
  for (const char* name : {"BinaryCrossEntropy", "SquaredError", "HuberLoss"})
    t[name] = [](OnnxLayerContext& c) { unary(c, "Identity"); };
  return t;
}

}  // namespace

const std::map<std::string, OnnxLayerMapping>& onnxLayerTable() {
  static const std::map<std::string, OnnxLayerMapping> table = makeTable();
  return table;
}

OnnxGraph buildOnnxGraph(const Graph& graph, const std::string& modelName,
                         const std::function<const Tensor*(size_t node, size_t blob)>& blobs,
                         const std::map<std::string, OnnxLayerMapping>& table) {
  OnnxGraph g;
  g.name = modelName;
  g.inputShape = graph.input().outputShape;
  g.outputShape = graph.prediction().outputShape;
  std::vector<std::string> names(graph.nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& node = graph.nodes[i];
    const auto it = table.find(node.schema->name);
    NS_CHECK(it != table.end(),
             "layer '{}' ({}) has no ONNX equivalent: remove it or replace it by layers that have one, then retrain",
             node.id, node.schema->name);
    std::string output = node.id;
    if (node.schema->isInput) output = g.inputName;
    else if (static_cast<int>(i) == graph.lossNode) output = g.outputName;
    else if (output == g.inputName || output == g.outputName) output += "_";  // keep "x" and "y" for the model's ends
    OnnxLayerContext c{node, {}, output, {}, g};
    for (int p : node.inputs) c.inputs.push_back(names[static_cast<size_t>(p)]);
    for (size_t b = 0; b < node.blobs.size(); ++b) {
      const Tensor* t = blobs(i, b);
      NS_CHECK(t != nullptr, "layer '{}' ({}): its trained '{}' is missing", node.id, node.schema->name, node.blobs[b].name);
      NS_CHECK(t->shape() == node.blobs[b].shape, "layer '{}' ({}): trained '{}' has shape {}, the layer expects {}", node.id,
               node.schema->name, node.blobs[b].name, shapeToString(t->shape()), shapeToString(node.blobs[b].shape));
      c.blobs.push_back(t);
    }
    it->second(c);
    names[i] = c.output;
  }
  return g;
}

}  // namespace netsmith
