// Reshape: gives each sample a new shape with the same number of values.
#include <memory>

#include "engine/core/error.h"
#include "engine/op_interface/op_registry.h"

namespace netsmith::cpu {
std::unique_ptr<Kernel> makeCopyKernel(const KernelSetup& setup);  // engine/ops/flatten/cpu.cpp
}

namespace netsmith::ops {

void register_reshape(OpRegistry& registry) {
  OpSchema s;
  s.name = "Reshape";
  s.category = "Shape";
  s.doc = "Gives each sample a new shape with the same number of values, kept in row-major order.";
  s.inputs = {"x"};
  s.params = {{.name = "shape", .type = ParamType::Ints, .defaultValue = Json::array({-1}), .min = -1.0,
               .help = "the new per-sample shape, without the batch axis; one entry may be -1 to take "
                       "whatever size makes the counts match"}};
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams& params) {
    const Shape& x = inputs.at(0);
    Shape out = params.ints("shape");
    const int64_t count = numel(x);
    int inferred = -1;
    int64_t known = 1;
    for (size_t i = 0; i < out.size(); ++i) {
      if (out[i] == -1) {
        NS_CHECK(inferred < 0, "shape ({}) has more than one -1: give every size but one", shapeToString(out));
        inferred = static_cast<int>(i);
      } else {
        NS_CHECK(out[i] >= 1, "shape ({}) has a size of {}: sizes must be positive, or -1 for one inferred size",
                 shapeToString(out), out[i]);
        known *= out[i];
      }
    }
    if (inferred >= 0) {
      NS_CHECK(count % known == 0,
               "cannot reshape ({}) with {} values into ({}): {} is not a multiple of {}; change the sizes",
               shapeToString(x), count, shapeToString(out), count, known);
      out[inferred] = count / known;
    }
    NS_CHECK(numel(out) == count,
             "cannot reshape ({}) with {} values into ({}) with {} values: the counts must be equal", shapeToString(x),
             count, shapeToString(out), numel(out));
    return out;
  };
  s.kernels["cpu"] = cpu::makeCopyKernel;
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "inferred", .inputs = {{2, 3, 4}}, .params = {{"shape", {4, -1}}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
