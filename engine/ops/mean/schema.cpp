// Mean over axes (nnabla's Mean): reduction.h.
#include "engine/ops/reduction.h"

namespace netsmith::ops {

void register_mean(OpRegistry& registry) {
  OpSchema s = reductionSchema(
      "Mean", ReductionKind::Mean,
      "Averages over the given axes of each sample; keep_dims keeps them with size 1 (Mean over 1,2 is global average pooling).");
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "spatial_keep", .inputs = {{3, 4, 5}}, .params = {{"axes", {1, 2}}, {"keep_dims", true}}},
      {.name = "all", .inputs = {{3, 4, 5}}, .params = {{"axes", {0, 1, 2}}}},
      {.name = "middle", .inputs = {{3, 4, 5}}, .params = {{"axes", {1}}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
