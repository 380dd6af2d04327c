// PrimitiveCall: a oneDNN primitive with its argument list, built once and executed many times
// without allocating (Note [Primitives across steps]). MemoryView: a dnnl::memory made once over
// a plain layout and pointed at a tensor's data per call.
#pragma once

#include <array>
#include <oneapi/dnnl/dnnl.hpp>

#include "engine/core/error.h"

namespace netsmith::cpu {

// Note [Primitives across steps]
// A training step of the CPU backend makes no allocation of its own. Each oneDNN kernel builds,
// once per batch size (its plan; a short last batch builds another, and the first full batch of
// the next epoch a third), everything its calls need:
//   - primitive descriptors and primitives (also the reorders of Note [Conv layouts]);
//   - the dnnl::memory objects they run on: the kernel-held buffers of reordered operands, and a
//     MemoryView per operand that lives in one of our tensors (made with no data handle);
//   - each primitive's argument list (PrimitiveCall: a fixed array, no map).
// Per call a kernel only points its views at the call's tensors (dnnl_memory_set_data_handle,
// which allocates nothing for a plain layout) and, where an argument differs from call to call
// (a forward's buffer reused by backward, a later chunk's partial gradient), rebinds it in the
// array; then it executes through oneDNN's C API. The C++ API's primitive::execute(stream,
// unordered_map) would build a hash map and a vector per call, and a dnnl::memory made per call
// costs several allocations to create and destroy.
// What remains is oneDNN's own: dnnl_primitive_execute builds an execution context on every
// call (a hash map of the arguments: k + 2 allocations for a trivial primitive of k arguments
// in oneDNN 2.6) and some primitives allocate more inside (the closures of their parallel loops,
// a scratchpad, GEMM's buffers). tests/unit/tst_step_allocations.cpp counts a steady-state
// step's allocations and checks that every one happens inside dnnl_primitive_execute.
// The rest of the step keeps to the same rule: Network keeps its per-call argument lists and
// each node's batch shape (Tensor::resize is called only when a shape changes; Note [No
// allocation per step]), the optimizer its list of pieces, the gradient buckets their piece
// lists, the hand-written kernels their scratch buffers (grown, never shrunk), and no parallel
// region runs on a one-thread worker (Note [One-thread regions], parallel_for.h).

// A dnnl::memory over our float32 tensors in a plain layout: made once, re-pointed per call.
class MemoryView {
 public:
  MemoryView() = default;
  MemoryView(const dnnl::memory::desc& desc, dnnl::engine& eng) : m_memory(desc, eng, DNNL_MEMORY_NONE) {}
  // oneDNN never writes through a memory used as a source, so a const tensor is safe here.
  const dnnl::memory& at(const float* data) {
    m_memory.set_data_handle(const_cast<float*>(data));
    return m_memory;
  }
  // The memory itself, for binding into a PrimitiveCall; its handle is whatever at() set last.
  const dnnl::memory& memory() const { return m_memory; }
  explicit operator bool() const { return static_cast<bool>(m_memory); }

 private:
  dnnl::memory m_memory;
};

// A primitive and its arguments. The memories bound must outlive the calls that use them (they
// are members of the same kernel plan); bind() replaces an argument in place.
class PrimitiveCall {
 public:
  static constexpr int kMaxArgs = 8;

  PrimitiveCall() = default;
  explicit PrimitiveCall(dnnl::primitive primitive) : m_primitive(std::move(primitive)) {}

  PrimitiveCall& bind(int arg, const dnnl::memory& memory) {
    for (int i = 0; i < m_count; ++i) {
      if (m_args[static_cast<size_t>(i)].arg == arg) {
        m_args[static_cast<size_t>(i)].memory = memory.get();
        return *this;
      }
    }
    NS_CHECK(m_count < kMaxArgs, "a oneDNN primitive call takes at most {} arguments", kMaxArgs);
    m_args[static_cast<size_t>(m_count++)] = {arg, memory.get()};
    return *this;
  }

  void execute(dnnl::stream& stream) const {
    const dnnl_status_t status = dnnl_primitive_execute(m_primitive.get(), stream.get(), m_count, m_args.data());
    NS_CHECK(status == dnnl_success, "a oneDNN primitive failed to execute (status {})", static_cast<int>(status));
  }

  explicit operator bool() const { return static_cast<bool>(m_primitive); }
  int argCount() const { return m_count; }

 private:
  dnnl::primitive m_primitive;
  std::array<dnnl_exec_arg_t, kMaxArgs> m_args{};
  int m_count = 0;
};

}  // namespace netsmith::cpu
