// PReLU's slope layout (nnabla's PReLU with PF.prelu's `shared`): one slope for every element, or
// one per index of the axis `base_axis` names. base_axis counts the batch axis as 0, as in nnabla,
// so base_axis 1 is the first per-sample axis (the channels of an image).
#pragma once

#include <cstdint>

#include "engine/core/error.h"
#include "engine/op_interface/op_schema.h"

namespace netsmith::ops {

struct PreluGeometry {
  int64_t channels = 1;  // slopes
  int64_t inner = 1;     // elements per (sample, channel) run: the per-sample axes after base_axis
};

// Throws when base_axis names no per-sample axis of `x` (per-sample shape).
inline PreluGeometry preluGeometry(const Shape& x, const OpParams& params) {
  const int64_t baseAxis = params.integer("base_axis");
  NS_CHECK(baseAxis >= 1 && baseAxis <= static_cast<int64_t>(x.size()),
           "base_axis {} names no axis of the input ({}): choose 1 to {} (1 is the first axis after the batch)",
           baseAxis, shapeToString(x), x.size());
  PreluGeometry g;
  if (params.flag("shared")) return g;
  const size_t axis = static_cast<size_t>(baseAxis - 1);
  g.channels = x[axis];
  for (size_t a = axis + 1; a < x.size(); ++a) g.inner *= x[a];
  return g;
}

}  // namespace netsmith::ops
