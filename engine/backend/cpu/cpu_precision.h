// config.precision on CPU workers: which types oneDNN's convolutions and inner products compute
// in, and whether this CPU can (Note [CPU bfloat16]).
//
// Note [CPU bfloat16]: in "bfloat16" the convolution, deconvolution and inner-product primitives
// read their source, weights and incoming gradient as bf16 and write float32: the reorder that
// already brings a plain NCHW tensor into the primitive's blocked layout (Note [Conv layouts])
// converts it on the way, so bf16 costs no extra pass over memory there. Products are bf16 x
// bf16 (AVX512-BF16's VDPBF16PS, or AMX), accumulated in float32. Everything else stays float32:
// the tensors between layers, master weights, gradients, optimizer state, losses, softmax and
// BatchNormalization's statistics. Element-wise layers (ReLU, pooling, ...) keep float32 because
// their operands live in float32 tensors; converting them to compute in bf16 would add two
// passes and save none. Rounding float32 to bf16 is round-to-nearest-even, element by element, so
// reproducible mode stays bit-identical on any number of workers.
//
// A CPU without bf16 dot-product instructions (AVX-512 without BF16, e.g. Skylake) can only
// emulate them, several times slower than float32: the training plan refuses "bfloat16" there
// unless NETSMITH_CPU_BF16=emulate asks for it. oneDNN 2.x has no bf16 below AVX-512 at all.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>
#include <string>

#include "engine/core/precision.h"

namespace netsmith::cpu {

enum class Bf16Support {
  Native,    // AVX512-BF16 or AMX
  Emulated,  // AVX-512 only: oneDNN emulates the bf16 products
  None,      // no bf16 primitives on this CPU
};

// What this CPU offers (honours oneDNN's DNNL_MAX_CPU_ISA, read once per process).
Bf16Support bf16Support();
// One line for the training plan: "native (AVX512-BF16)", "emulated ...", "not available ...".
std::string bf16SupportText();
// NETSMITH_CPU_BF16=emulate: run bf16 on a CPU that can only emulate it.
bool bf16EmulationAsked();
// Throws Error when `precision` cannot run on this CPU's workers: "half" never (no fp16 path),
// "bfloat16" without native support unless emulation is asked for, or without any support.
void checkCpuPrecision(Precision precision);

// The type the compute primitives read their source, weights and incoming gradient in.
inline dnnl::memory::data_type computeType(Precision precision) {
  return precision == Precision::BFloat16 ? dnnl::memory::data_type::bf16 : dnnl::memory::data_type::f32;
}

}  // namespace netsmith::cpu
