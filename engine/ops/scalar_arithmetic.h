// The schema shared by the scalar arithmetic layers (scalar_bodies.h): one input, one Float `val`.
#pragma once

#include "engine/backend/cpu/body_eltwise_kernel.h"
#include "engine/op_interface/op_registry.h"
#include "engine/ops/scalar_bodies.h"
#include "engine/op_interface/shape_rules.h"

namespace netsmith::ops {

template <class Forward, class Backward>
OpSchema scalarArithmeticSchema(const char* name, const char* doc, const char* valHelp) {
  OpSchema s;
  s.name = name;
  s.category = "Arithmetic";
  s.doc = doc;
  s.inputs = {"x"};
  s.params = {{.name = "val", .type = ParamType::Float, .defaultValue = 1.0, .help = valHelp}};
  s.inferShape = sameShape;
  s.kernels["cpu"] = [](const KernelSetup& setup) {
    const float val = static_cast<float>(setup.params.number("val"));
    return cpu::makeBodyEltwiseKernel(Forward{val}, Backward{val});
  };
  return s;
}

}  // namespace netsmith::ops
