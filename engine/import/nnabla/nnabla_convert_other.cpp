// Converters of nnabla's activations, arithmetic, reductions and losses (Note [NNabla import]),
// and the converter table.
#include "engine/core/error.h"
#include "engine/import/nnabla/nnabla_import_context.h"

namespace netsmith::nnabla_import {

namespace {

// The Netsmith layer `type`'s number arguments: f's parameters, the layer's defaults where the file gives none
// (Netsmith's layers take nnabla's names and defaults: the op registry declares both, so no list
// here repeats them). `known` gets their names, for onlyFields.
Json numberArguments(NnContext& ctx, const NnFunction& f, const std::string& type, const ParamReader& p,
                     std::vector<std::string>& known) {
  const OpSchema* schema = ctx.registry().find(type);
  if (!schema) ctx.unsupported(f, format("(this build has no {} layer)", type));
  Json params = Json::object();
  for (const ParamSpec& spec : schema->params) {
    if (spec.type != ParamType::Float) continue;
    known.push_back(spec.name);
    params[spec.name] = p.number(spec.name, spec.defaultValue.get<double>());
  }
  return params;
}

// A function of one input whose Netsmith layer has the same name and number arguments.
NnConverter unary(std::string type) {
  return [type](NnContext& ctx, const NnFunction& f) {
    ctx.expectInputs(f, 1, 1);
    const ParamReader p = ctx.param(f);
    std::vector<std::string> known{"inplace"};
    const Json params = numberArguments(ctx, f, type, p, known);
    p.onlyFields(known);
    ctx.addLayer(f, type, {0}, params);
  };
}

NnConverter binary(std::string type) {
  return [type](NnContext& ctx, const NnFunction& f) {
    ctx.expectInputs(f, 2, 2);
    ctx.param(f).onlyFields({"inplace"});
    ctx.addLayer(f, type, {0, 1});
  };
}

NnConverter reduction(std::string type) {
  return [type](NnContext& ctx, const NnFunction& f) {
    ctx.expectInputs(f, 1, 1);
    const ParamReader p = ctx.param(f);
    p.onlyFields({"axes", "keep_dims", "with_index", "only_index"});
    if (p.flag("with_index", false) || p.flag("only_index", false)) ctx.fail(f, "with_index or only_index is not mapped");
    if (!p.has("axes")) ctx.fail(f, "axes is not given, so it reduces over the batch axis too; Netsmith layers keep every sample");
    const size_t rank = ctx.inputShape(f, 0).size();
    std::vector<int64_t> axes;
    for (int64_t a : p.ints("axes", {})) axes.push_back(sampleAxis(ctx, f, a, rank, "axis"));
    ctx.addLayer(f, type, {0}, {{"axes", axes}, {"keep_dims", p.flag("keep_dims", false)}});
  };
}

NnConverter loss(std::string type) {
  return [type](NnContext& ctx, const NnFunction& f) {
    const ParamReader p = ctx.param(f);
    std::vector<std::string> known{"axis", "base_axis"};
    const Json params = numberArguments(ctx, f, type, p, known);
    p.onlyFields(known);
    // Netsmith's class losses work along the last axis of a class vector, nnabla's default.
    const size_t rank = ctx.inputShape(f, 0).size();
    if (p.has("axis") && sampleAxis(ctx, f, p.integer("axis", 0), rank, "axis") != static_cast<int64_t>(rank) - 1)
      ctx.fail(f, "axis is not the last axis; Netsmith's loss works along the last axis");
    if (p.integer("base_axis", 1) != 1) ctx.fail(f, "base_axis is not 1");
    ctx.addLoss(f, type, params);
  };
}

}  // namespace

void addNnablaOtherConverters(NnConverterTable& t) {
  // GELU: nnabla's is the tanh approximation, Netsmith's default.
  for (const char* name : {"ReLU", "Sigmoid", "Tanh", "Swish", "ReLU6", "HardSigmoid", "Mish", "HardSwish", "GELU",
                           "LeakyReLU", "ELU", "SELU", "SoftPlus"})
    t[name] = unary(name);
  t["Softmax"] = [](NnContext& ctx, const NnFunction& f) {
    ctx.expectInputs(f, 1, 1);
    const ParamReader p = ctx.param(f);
    p.onlyFields({"axis"});
    const size_t rank = ctx.inputShape(f, 0).size();
    ctx.addLayer(f, "Softmax", {0}, {{"axis", sampleAxis(ctx, f, p.integer("axis", static_cast<int64_t>(rank)), rank, "axis")}});
  };
  t["PReLU"] = [](NnContext& ctx, const NnFunction& f) {
    ctx.expectInputs(f, 2, 2);
    const ParamReader p = ctx.param(f);
    p.onlyFields({"base_axis"});
    const std::vector<int64_t> slope = ctx.parameterShape(f, 1);
    int64_t n = 1;
    for (int64_t d : slope) n *= d;
    ctx.addLayer(f, "PReLU", {0}, {{"base_axis", p.integer("base_axis", 1)}, {"shared", n == 1}}, {{"slope", 1}});
  };
  t["Identity"] = [](NnContext& ctx, const NnFunction& f) {
    ctx.expectInputs(f, 1, 1);
    ctx.alias(f);
  };
  t["Add2"] = binary("Add2");
  t["Mul2"] = binary("Mul2");
  t["Sub2"] = binary("Sub2");
  t["Div2"] = binary("Div2");
  for (const char* name : {"AddScalar", "MulScalar", "PowScalar", "RSubScalar", "RDivScalar"}) t[name] = unary(name);
  t["Sum"] = reduction("Sum");
  t["Mean"] = reduction("Mean");
  t["Max"] = reduction("Max");
  t["SoftmaxCrossEntropy"] = loss("SoftmaxCrossEntropy");
  t["CategoricalCrossEntropy"] = loss("CategoricalCrossEntropy");
  t["SigmoidCrossEntropy"] = loss("SigmoidCrossEntropy");
  t["BinaryCrossEntropy"] = loss("BinaryCrossEntropy");
  t["SquaredError"] = loss("SquaredError");
  t["AbsoluteError"] = loss("AbsoluteError");
  t["HuberLoss"] = loss("HuberLoss");
  t["KLMultinomial"] = loss("KLDivergence");
}

const NnConverterTable& nnablaConverters() {
  static const NnConverterTable table = [] {
    NnConverterTable t;
    addNnablaOtherConverters(t);
    addNnablaLayerConverters(t);
    return t;
  }();
  return table;
}

}  // namespace netsmith::nnabla_import
