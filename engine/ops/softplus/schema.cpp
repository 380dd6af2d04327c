// SoftPlus: log(1 + exp(beta · x)) / beta, element-wise (nnabla's SoftPlus).
#include "engine/backend/cpu/body_eltwise_kernel.h"
#include "engine/core/error.h"
#include "engine/op_interface/op_registry.h"
#include "engine/ops/softplus/cuda_math.h"

namespace netsmith::ops {

void register_softplus(OpRegistry& registry) {
  OpSchema s;
  s.name = "SoftPlus";
  s.category = "Activation";
  s.doc = "Smooth ReLU: y = log(1 + exp(beta * x)) / beta, element-wise; larger beta is closer to ReLU.";
  s.inputs = {"x"};
  s.params = {{.name = "beta", .type = ParamType::Float, .defaultValue = 1.0, .min = 0.0,
               .help = "sharpness, > 0 (1: the usual softplus)"}};
  s.inferShape = [](const std::vector<Shape>& inputs, const OpParams& params) {
    NS_CHECK(params.number("beta") > 0.0, "beta must be > 0, got {}: it divides the output", params.number("beta"));
    return inputs.at(0);
  };
  // The GPU's bodies on the CPU too: oneDNN 2.6's soft_relu has no beta.
  s.kernels["cpu"] = [](const KernelSetup& setup) {
    const float beta = static_cast<float>(setup.params.number("beta"));
    return cpu::makeBodyEltwiseKernel(cuda::body::SoftPlusForward{beta}, cuda::body::SoftPlusBackward{beta});
  };
  // Note [Op examples]: cases the tests that walk the registry add to the main one.
  s.examples = {
      {.name = "beta3_wide", .inputs = {{6}}, .params = {{"beta", 3.0}}, .inputScale = 4.0f},
  };
  registry.add(std::move(s));
}

}  // namespace netsmith::ops
