// Gradient clipping by global norm on the host (Note [Gradient clipping]).
#include "engine/optim/gradient_clip.h"

namespace netsmith {

double gradientSquaredNorm(std::span<Tensor* const> gradients) {
  double total = 0;
  for (const Tensor* t : gradients) {
    const float* g = t->data();
    const int64_t n = t->size();
    // Four partial sums (independent chains the compiler can keep in flight), combined in one
    // fixed order: the result depends only on the values.
    double s[4] = {0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 4 <= n; i += 4)
      for (int k = 0; k < 4; ++k) s[k] += static_cast<double>(g[i + k]) * static_cast<double>(g[i + k]);
    for (; i < n; ++i) s[0] += static_cast<double>(g[i]) * static_cast<double>(g[i]);
    total += (s[0] + s[1]) + (s[2] + s[3]);
  }
  return total;
}

void scaleGradients(std::span<Tensor* const> gradients, float scale) {
  for (Tensor* t : gradients) {
    float* g = t->data();
    const int64_t n = t->size();
    for (int64_t i = 0; i < n; ++i) g[i] *= scale;
  }
}

}  // namespace netsmith
