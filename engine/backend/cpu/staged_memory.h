// StagedMemory: one operand of a oneDNN primitive as the executor holds it (plain layout,
// float32) and as the primitive wants it (a blocked layout, and in bfloat16 mode a bf16 type), with
// the reorder between the two. Used by the convolution and inner-product kernels (Note [Conv
// layouts], Note [CPU bfloat16]); a reorder converts the type and the layout in one pass.
// Everything is made once by init(); a call only points the plain view at the call's tensor
// (Note [Primitives across steps]).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include "engine/backend/cpu/primitive_call.h"

namespace netsmith::cpu {

struct StagedMemory {
  using Desc = dnnl::memory::desc;
  Desc plain;
  Desc wanted;
  bool reordered = false;
  MemoryView view;       // the plain layout over our tensor
  dnnl::memory buffer;   // the wanted layout, held by the kernel (reordered only)
  PrimitiveCall reorder;  // view → buffer (an input) or buffer → view (an output)
  const float* filledFrom = nullptr;  // the data last reordered into `buffer` (inputs only)

  void init(dnnl::engine& eng, const Desc& plainDesc, const Desc& wantedDesc, bool isInput) {
    plain = plainDesc;
    wanted = wantedDesc;
    reordered = plain != wanted;
    filledFrom = nullptr;
    view = MemoryView(plain, eng);
    buffer = dnnl::memory();
    reorder = PrimitiveCall();
    if (!reordered) return;
    buffer = dnnl::memory(wanted, eng);
    const dnnl::memory& user = view.memory();
    if (isInput) {
      reorder = PrimitiveCall(dnnl::reorder(dnnl::reorder::primitive_desc(eng, plain, eng, wanted)));
      reorder.bind(DNNL_ARG_FROM, user).bind(DNNL_ARG_TO, buffer);
    } else {
      reorder = PrimitiveCall(dnnl::reorder(dnnl::reorder::primitive_desc(eng, wanted, eng, plain)));
      reorder.bind(DNNL_ARG_FROM, buffer).bind(DNNL_ARG_TO, user);
    }
  }
  // An input: our data in the wanted layout.
  const dnnl::memory& in(dnnl::stream& stream, const float* data) {
    const dnnl::memory& user = view.at(data);
    if (!reordered) return user;
    reorder.execute(stream);
    filledFrom = data;
    return buffer;
  }
  // An input that this operand's buffer may already hold: `data` was the last thing reordered
  // into it in this step (the forward's source or weights, reused by the backward pass).
  const dnnl::memory& reuseOrIn(dnnl::stream& stream, const float* data) {
    if (reordered && filledFrom == data) return buffer;
    return in(stream, data);
  }
  // An output: where the primitive writes; finishOut then brings it to our layout.
  const dnnl::memory& outTarget(float* data) { return reordered ? buffer : view.at(data); }
  void finishOut(dnnl::stream& stream, float* data) {
    if (!reordered) return;
    view.at(data);
    reorder.execute(stream);
  }
};

}  // namespace netsmith::cpu
