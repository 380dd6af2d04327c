#include "engine/backend/cpu/cpu_precision.h"

#include <cstdlib>
#include <cstring>

#include "engine/core/error.h"

namespace netsmith::cpu {
namespace {

// Whether oneDNN can make a bf16 inner product here at all: the honest test of "None", since
// which ISA levels carry bf16 kernels differs between oneDNN versions.
bool canMakeBf16Primitive() {
  try {
    using dt = dnnl::memory::data_type;
    using tag = dnnl::memory::format_tag;
    dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    const dnnl::memory::desc src({16, 32}, dt::bf16, tag::ab), wei({16, 32}, dt::bf16, tag::ab),
        dst({16, 16}, dt::f32, tag::ab);
    const dnnl::inner_product_forward::desc d(dnnl::prop_kind::forward_training, src, wei, dst);
    dnnl::inner_product_forward::primitive_desc pd(d, eng);
    return true;
  } catch (const dnnl::error&) {
    return false;
  }
}

Bf16Support detect() {
  const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
  if (!canMakeBf16Primitive()) return Bf16Support::None;
  if (isa == dnnl::cpu_isa::avx512_core_bf16 || isa == dnnl::cpu_isa::avx512_core_amx) return Bf16Support::Native;
  return Bf16Support::Emulated;
}

}  // namespace

Bf16Support bf16Support() {
  static const Bf16Support support = detect();
  return support;
}

std::string bf16SupportText() {
  switch (bf16Support()) {
    case Bf16Support::Native:
      return dnnl::get_effective_cpu_isa() == dnnl::cpu_isa::avx512_core_amx ? "native (AMX)" : "native (AVX512-BF16)";
    case Bf16Support::Emulated:
      return "emulated (this CPU has AVX-512 without BF16 instructions)";
    case Bf16Support::None:
      break;
  }
  return "not available (oneDNN computes bf16 only on CPUs with AVX-512)";
}

bool bf16EmulationAsked() {
  const char* v = std::getenv("NETSMITH_CPU_BF16");
  return v && std::strcmp(v, "emulate") == 0;
}

void checkCpuPrecision(Precision precision) {
  switch (precision) {
    case Precision::Float:
      return;
    case Precision::Half:
      NS_THROW("config.precision: \"half\" computes in fp16 on CUDA devices only; on CPU workers use \"float\" or "
               "\"bfloat16\"");
    case Precision::BFloat16:
      switch (bf16Support()) {
        case Bf16Support::Native:
          return;
        case Bf16Support::Emulated:
          NS_CHECK(bf16EmulationAsked(),
                   "config.precision: \"bfloat16\" on this CPU would be emulated (AVX-512 without BF16 "
                   "instructions), several times slower than \"float\"; use \"float\", or set "
                   "NETSMITH_CPU_BF16=emulate to run it anyway");
          return;
        case Bf16Support::None:
          NS_THROW("config.precision: \"bfloat16\" is not available on this CPU (oneDNN computes bf16 only with "
                   "AVX-512); use \"float\"");
      }
  }
}

}  // namespace netsmith::cpu
