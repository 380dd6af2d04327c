// Mean over axes (nnabla's Mean): reduction.h.
#include "engine/ops/reduction.h"

namespace netsmith::ops {

void register_mean(OpRegistry& registry) {
  OpSchema s = reductionSchema(
      "Mean", ReductionKind::Mean,
      "Averages over the given axes of each sample; keep_dims keeps them with size 1 (Mean over 1,2 is global average pooling).");
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
