// StagedMemory: one operand of a oneDNN primitive as the executor holds it (plain layout,
// float32) and as the primitive wants it (a blocked layout, and in bfloat16 mode a bf16 type), with
// the reorder between the two. Used by the convolution and inner-product kernels (Note [Conv
// layouts], Note [CPU bfloat16]); a reorder converts the type and the layout in one pass.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

namespace netsmith::cpu {

struct StagedMemory {
  using Desc = dnnl::memory::desc;
  Desc plain;
  Desc wanted;
  bool reordered = false;
  dnnl::memory buffer;
  dnnl::reorder reorder;
  const float* filledFrom = nullptr;  // the data last reordered into `buffer` (inputs only)

  void init(dnnl::engine& eng, const Desc& plainDesc, const Desc& wantedDesc, bool isInput) {
    plain = plainDesc;
    wanted = wantedDesc;
    reordered = plain != wanted;
    filledFrom = nullptr;
    if (!reordered) return;
    buffer = dnnl::memory(wanted, eng);
    reorder = isInput ? dnnl::reorder(dnnl::reorder::primitive_desc(eng, plain, eng, wanted))
                      : dnnl::reorder(dnnl::reorder::primitive_desc(eng, wanted, eng, plain));
  }
  // An input: our data in the wanted layout.
  dnnl::memory in(dnnl::stream& stream, dnnl::engine& eng, const float* data) {
    dnnl::memory user(plain, eng, const_cast<float*>(data));
    if (!reordered) return user;
    reorder.execute(stream, user, buffer);
    filledFrom = data;
    return buffer;
  }
  // An input that this operand's buffer may already hold: `data` was the last thing reordered
  // into it in this step (the forward's source or weights, reused by the backward pass).
  dnnl::memory reuseOrIn(dnnl::stream& stream, dnnl::engine& eng, const float* data) {
    if (reordered && filledFrom == data) return buffer;
    return in(stream, eng, data);
  }
  // An output: where the primitive writes; finishOut then brings it to our layout.
  dnnl::memory outTarget(dnnl::engine& eng, float* data) const {
    return reordered ? buffer : dnnl::memory(plain, eng, data);
  }
  void finishOut(dnnl::stream& stream, dnnl::engine& eng, float* data) {
    if (!reordered) return;
    dnnl::memory user(plain, eng, data);
    reorder.execute(stream, buffer, user);
  }
};

}  // namespace netsmith::cpu
