// Affine: the fully connected layer, y = x W + b (nnabla's Affine). Axes from base_axis on are
// flattened into one vector of `inner` values; W is (inner, n_outmaps...), b is (n_outmaps...).
#include "engine/core/error.h"
#include "engine/op_interface/op_registry.h"

namespace netsmith::cpu {
std::unique_ptr<Kernel> makeAffineKernel(const KernelSetup& setup);  // affine/cpu.cpp
}

namespace netsmith::ops {

namespace {
// Per-sample input axes [0, base_axis - 1) are kept (the batch is axis 0 of the full tensor),
// the rest are flattened: returns that split point after checking it leaves an axis to flatten.
size_t keptAxes(const Shape& x, const OpParams& p) {
  const int64_t baseAxis = p.integer("base_axis");
  NS_CHECK(baseAxis <= static_cast<int64_t>(x.size()),
           "Affine base_axis {} leaves nothing to multiply in a {} input (axes after the batch axis: {}): use "
           "base_axis {} or less",
           baseAxis, x.empty() ? std::string("scalar") : shapeToString(x), x.size(), x.size());
  return static_cast<size_t>(baseAxis - 1);
}

int64_t innerSize(const Shape& x, size_t kept) { return numel(Shape(x.begin() + static_cast<ptrdiff_t>(kept), x.end())); }
}  // namespace

void register_affine(OpRegistry& registry) {
  OpSchema s;
  s.name = "Affine";
  s.category = "Basic";
  s.doc = "Fully connected layer: each output is a weighted sum of all inputs (the axes from base_axis on, "
          "flattened) plus a bias.";
  s.inputs = {"x"};
  const auto param = [](const char* name, ParamType type, Json defaultValue, std::optional<double> min,
                         const char* help) {
    ParamSpec p;
    p.name = name;
    p.type = type;
    p.defaultValue = std::move(defaultValue);
    p.min = min;
    p.help = help;
    return p;
  };
  s.params = {
      param("n_outmaps", ParamType::Ints, {10}, 1, "output shape per sample, e.g. [10] for 10 outputs"),
      param("base_axis", ParamType::Int, 1, 1,
            "axes before it (counting the batch axis as 0) are kept, the rest flattened and multiplied"),
      param("with_bias", ParamType::Bool, true, std::nullopt, "add a learned bias"),
  };
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams& p) {
    const Shape& x = inputs.at(0);
    const size_t kept = keptAxes(x, p);
    Shape out(x.begin(), x.begin() + static_cast<ptrdiff_t>(kept));
    for (int64_t n : p.ints("n_outmaps")) out.push_back(n);
    return out;
  };
  s.parameterBlobs = [](const std::vector<Shape>& inputs, const OpParams& p) {
    const Shape& x = inputs.at(0);
    const int64_t inner = innerSize(x, keptAxes(x, p));
    const Shape outmaps = p.ints("n_outmaps");
    Shape w{inner};
    w.insert(w.end(), outmaps.begin(), outmaps.end());
    std::vector<ParamBlob> blobs{{"W", w, Initializer::glorotUniform(inner, numel(outmaps))}};
    if (p.flag("with_bias")) blobs.push_back({"b", outmaps, Initializer::constant(0.0f)});
    return blobs;
  };
  s.multiplyAdds = [](const std::vector<Shape>& inputs, const Shape& out, const OpParams& p) {
    const Shape& x = inputs.at(0);
    return innerSize(x, keptAxes(x, p)) * numel(out);
  };
  s.kernels["cpu"] = [](const KernelSetup& setup) { return cpu::makeAffineKernel(setup); };
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "base_axis2", .inputs = {{3, 4, 5}}, .params = {{"n_outmaps", {7}}, {"base_axis", 2}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
