// Max over axes (nnabla's Max): reduction.h.
#include "engine/ops/reduction.h"

namespace netsmith::ops {

void register_max(OpRegistry& registry) {
  OpSchema s = reductionSchema(
      "Max", ReductionKind::Max,
      "Largest value over the given axes of each sample; the gradient goes to the first largest element.");
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
