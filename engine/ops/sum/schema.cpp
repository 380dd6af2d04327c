// Sum over axes (nnabla's Sum): reduction.h.
#include "engine/ops/reduction.h"

namespace netsmith::ops {

void register_sum(OpRegistry& registry) {
  OpSchema s = reductionSchema(
      "Sum", ReductionKind::Sum,
      "Sums over the given axes of each sample (summed in double); keep_dims keeps them with size 1.");
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
