// The oneDNN attributes of a forward primitive that applies ReLU to its output as it writes it
// (Note [Fused ReLU], engine/model/network.cpp).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

namespace netsmith::cpu {

inline dnnl::primitive_attr reluPostOp(bool fused) {
  dnnl::primitive_attr attr;
  if (!fused) return attr;
  dnnl::post_ops ops;
  ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  attr.set_post_ops(ops);
  return attr;
}

}  // namespace netsmith::cpu
