// Note [GPU tolerances]: how far a GPU result may be from the CPU's, relative and scaled with the
// length of the reduction behind each value.
//
// An error is measured relative to the tensor's scale, max |gpu − cpu| / max |cpu|, so a value
// near zero in a large tensor is not held to its own tiny magnitude. Summing L rounded terms gives
// an error that grows with L: linearly in the worst case, like √L for rounding errors of random
// sign, which is what independent implementations (different summation orders, cuDNN's and
// oneDNN's algorithms) show (Higham and Mary's probabilistic bound). So the tolerance of a tensor
// is 8·u·√L, u the unit roundoff of the precision the products are computed in (float 2⁻²⁴,
// half 2⁻¹¹, bfloat16 2⁻⁸), with a floor for float of 1e-5 (transcendental functions differ by a
// few ulp between CUDA's and the CPU's math libraries; the checks' history is at 1e-5).
//
// L, the reduction length of a tensor T: the terms behind one of its values — the op's
// multiply-adds over the values of T (a convolution's output: C·kh·kw; its weight gradient:
// batch·output pixels), or the inputs over the values of T when that is larger (a loss, a mean,
// BatchNormalization's statistics), at least 1.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

namespace netsmith::gpucheck {

inline double unitRoundoff(const std::string& precision) {
  if (precision == "half") return std::ldexp(1.0, -11);
  if (precision == "bfloat16") return std::ldexp(1.0, -8);
  return std::ldexp(1.0, -24);
}

// multiplyAdds: of the whole batch; inputs: values the tensor is computed from; values: its size.
inline double reductionLength(double multiplyAdds, double inputs, double values) {
  if (values <= 0) return 1.0;
  return std::max({1.0, multiplyAdds / values, inputs / values});
}

inline double gpuTolerance(const std::string& precision, double reductionLength) {
  const double scaled = 8.0 * unitRoundoff(precision) * std::sqrt(std::max(1.0, reductionLength));
  return precision == "float" ? std::max(1e-5, scaled) : scaled;
}

}  // namespace netsmith::gpucheck
