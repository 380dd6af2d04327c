// Shape inference rules shared by several ops.
#pragma once

#include <vector>

#include "engine/core/error.h"
#include "engine/op_interface/op_schema.h"

namespace netsmith::ops {

// Output shape equals the (single) input shape: activations, Dropout, BatchNormalization.
inline Shape sameShape(const std::vector<Shape>& inputs, const OpParams&) { return inputs.at(0); }

// Output size of a convolution or pooling window along one axis; throws when it would be < 1.
inline int64_t windowOutput(int64_t in, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation,
                            const char* axisName) {
  const int64_t effective = dilation * (kernel - 1) + 1;
  const int64_t out = (in + 2 * pad - effective) / stride + 1;
  NS_CHECK(in + 2 * pad >= effective && out >= 1,
           "the window ({} {} with dilation {}) is larger than the padded input ({} + 2×{} pad) along {}: "
           "use a smaller kernel or more padding",
           kernel, "wide", dilation, in, pad, axisName);
  return out;
}

}  // namespace netsmith::ops
