// Gradient clipping by global norm on the host (Note [Gradient clipping]).
#include "engine/optim/gradient_clip.h"

#include <omp.h>

#include <algorithm>

namespace netsmith {

namespace {

// One piece in element order: four interleaved partial sums (independent chains the compiler can
// keep in flight) combined in one fixed order.
double squaresOf(const float* g, int64_t n) {
  double s[4] = {0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int k = 0; k < 4; ++k) s[k] += static_cast<double>(g[i + k]) * static_cast<double>(g[i + k]);
  for (; i < n; ++i) s[0] += static_cast<double>(g[i]) * static_cast<double>(g[i]);
  return (s[0] + s[1]) + (s[2] + s[3]);
}

// Below this many elements the sum runs on the calling thread (as the optimizer's update does).
constexpr int64_t kParallelNormFloats = 65536;

}  // namespace

double GradientSquaredNorm::operator()(std::span<Tensor* const> gradients) {
  m_pieces.clear();
  int64_t total = 0;
  for (const Tensor* t : gradients) {
    total += t->size();
    for (int64_t begin = 0; begin < t->size(); begin += kNormPieceFloats)
      m_pieces.push_back({t->data() + begin, std::min(kNormPieceFloats, t->size() - begin)});
  }
  const auto count = static_cast<int64_t>(m_pieces.size());
  m_sums.resize(m_pieces.size());
  // A region whose team has one thread would allocate its team every step (Note [One-thread
  // regions], engine/backend/cpu/parallel_for.h): such a sum runs on the calling thread. The
  // pieces' sums are the same either way.
  if (total >= kParallelNormFloats && omp_get_max_threads() > 1) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < count; ++i) m_sums[size_t(i)] = squaresOf(m_pieces[size_t(i)].g, m_pieces[size_t(i)].n);
  } else {
    for (int64_t i = 0; i < count; ++i) m_sums[size_t(i)] = squaresOf(m_pieces[size_t(i)].g, m_pieces[size_t(i)].n);
  }
  double sum = 0;
  for (double piece : m_sums) sum += piece;
  return sum;
}

void scaleGradients(std::span<Tensor* const> gradients, float scale) {
  for (Tensor* t : gradients) {
    float* g = t->data();
    const int64_t n = t->size();
    for (int64_t i = 0; i < n; ++i) g[i] *= scale;
  }
}

}  // namespace netsmith
