// Max over axes (nnabla's Max): reduction.h.
#include "engine/ops/reduction.h"

namespace netsmith::ops {

void register_max(OpRegistry& registry) {
  OpSchema s = reductionSchema(
      "Max", ReductionKind::Max,
      "Largest value over the given axes of each sample; the gradient goes to the first largest element.");
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "spatial_keep", .inputs = {{3, 4, 5}}, .params = {{"axes", {1, 2}}, {"keep_dims", true}}},
      {.name = "all", .inputs = {{3, 4, 5}}, .params = {{"axes", {0, 1, 2}}}},
      {.name = "middle", .inputs = {{3, 4, 5}}, .params = {{"axes", {1}}}},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
