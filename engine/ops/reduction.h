// The schema shared by the reductions Sum, Mean and Max (nnabla's names and parameters: axes,
// keep_dims), one folder each. Axes are per-sample, not counting the batch axis, as Neural Network
// Console shows them. Kernels: cpu::ReduceKernel and cuda::CudaReduceKernel (Note [Index views]).
#pragma once

#include <memory>
#include <vector>

#include "engine/backend/cpu/index_view_kernels.h"
#include "engine/op_interface/op_registry.h"

namespace netsmith::ops {

enum class ReductionKind { Sum, Mean, Max };

// One flag per per-sample axis: reduced or not. Throws for an axis that does not exist or repeats.
inline std::vector<bool> reducedAxes(const Shape& x, const OpParams& p) {
  std::vector<bool> reduced(x.size(), false);
  for (int64_t a : p.ints("axes")) {
    NS_CHECK(a < static_cast<int64_t>(x.size()),
             "axis {} does not exist in the input ({}), which has {} axes: choose axes from 0 to {}", a,
             shapeToString(x), x.size(), static_cast<int64_t>(x.size()) - 1);
    NS_CHECK(!reduced[a], "axis {} is listed twice in axes ({})", a, shapeToString(p.ints("axes")));
    reduced[a] = true;
  }
  return reduced;
}

inline Shape reducedShape(const Shape& x, const OpParams& p) {
  const std::vector<bool> reduced = reducedAxes(x, p);
  const bool keep = p.flag("keep_dims");
  Shape out;
  for (size_t d = 0; d < x.size(); ++d)
    if (!reduced[d]) out.push_back(x[d]);
    else if (keep) out.push_back(1);
  if (out.empty()) out.push_back(1);  // every axis reduced: one value per sample
  return out;
}

inline float reductionScale(ReductionKind kind, const cuda::ReduceView& v) {
  return kind == ReductionKind::Mean ? 1.0f / static_cast<float>(v.count) : 1.0f;
}

inline OpSchema reductionSchema(const char* name, ReductionKind kind, const char* doc) {
  OpSchema s;
  s.name = name;
  s.category = "Math";
  s.doc = doc;
  s.inputs = {"x"};
  s.params = {{.name = "axes", .type = ParamType::Ints, .defaultValue = Json::array({0}), .min = 0.0,
               .help = "per-sample axes to reduce, not counting the batch axis: 0 = channels; 1,2 = height and width"},
              {.name = "keep_dims", .type = ParamType::Bool, .defaultValue = false,
               .help = "keep each reduced axis with size 1 instead of removing it"}};
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams& params) {
    return reducedShape(inputs.at(0), params);
  };
  s.multiplyAdds = [](const std::vector<Shape>& inputs, const Shape&, const OpParams&) { return numel(inputs.at(0)); };
  s.kernels["cpu"] = [kind](const KernelSetup& setup) -> std::unique_ptr<Kernel> {
    const Shape& x = setup.inputShapes.at(0);
    const cuda::ReduceView v = cuda::reduceView(x, reducedAxes(x, setup.params));
    return std::make_unique<cpu::ReduceKernel>(v, kind == ReductionKind::Max, reductionScale(kind, v));
  };
  // Note [Op examples]: the cases every reduction adds to the main one.
  s.examples = {
      {.name = "spatial_keep", .inputs = {{3, 4, 5}}, .params = {{"axes", {1, 2}}, {"keep_dims", true}}},
      {.name = "all", .inputs = {{3, 4, 5}}, .params = {{"axes", {0, 1, 2}}}},
      {.name = "middle", .inputs = {{3, 4, 5}}, .params = {{"axes", {1}}}},
  };
  return s;
}

}  // namespace netsmith::ops
