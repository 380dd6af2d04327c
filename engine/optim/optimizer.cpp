#include "engine/optim/optimizer.h"

#include <omp.h>

#include <cmath>
#include <cstring>
#if defined(__SSE__)
#include <xmmintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif
#include <algorithm>

#include "engine/core/error.h"
#include "engine/project/project.h"
#include "engine/solvers/solver_list.h"
#include "engine/solvers/solver_table.h"

namespace netsmith {
namespace {

// Pieces of this many floats (64 KiB, a multiple of 16 so each piece starts 64-byte aligned)
// are the unit of OpenMP work: one parallel region per step covers every parameter, and small
// parameters (biases) do not each pay for a region.
constexpr int64_t kPieceFloats = 16384;
// Below this many elements in total the update runs on the calling thread.
constexpr int64_t kParallelMinFloats = 65536;

// The solvers are declared once, each in its folder (Note [Solver folders],
// engine/solvers/solver.h); the table has their words, solver_list.h their types.
using Range = SolverHyperRange;
using HyperSpec = SolverHyperParameter;
using solvers::HyperValues;

std::string joinNames(const std::vector<HyperSpec>& hyper) {
  std::string s;
  for (const auto& h : hyper) {
    if (!s.empty()) s += ", ";
    s += h.name;
  }
  return s;
}

double checkedValue(const std::string& path, const Json& value, Range range) {
  if (range == Range::Flag) {
    NS_CHECK(value.is_boolean(), "{}: expected true or false, got {}", path, value.dump());
    return value.get<bool>() ? 1.0 : 0.0;
  }
  NS_CHECK(value.is_number(), "{}: expected a number, got {}", path, value.dump());
  const double v = value.get<double>();
  switch (range) {
    case Range::Positive:
      NS_CHECK(std::isfinite(v) && v > 0, "{}: expected a positive number, got {}", path, v);
      break;
    case Range::NonNegative:
      NS_CHECK(std::isfinite(v) && v >= 0, "{}: expected a number >= 0, got {}", path, v);
      break;
    case Range::UnitInterval:
      NS_CHECK(std::isfinite(v) && v >= 0 && v < 1, "{}: expected a number in [0, 1), got {}", path, v);
      break;
    case Range::Flag:
      break;
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// Note [Solver kernels]
// Each solver writes its update once, as an NS_HOST_DEVICE template over one element type, in its
// folder (Note [Solver folders]); forEach() runs it on 4-float vectors (GCC vector extensions) and
// then on the scalar tail. The compiler cannot auto-vectorise std::sqrt without -fno-math-errno,
// hence the explicit vectors. Every lane does the same IEEE operations in the same order as the
// scalar tail (sqrtps = sqrtss per element), and pieces start at multiples of 4, so an element's
// result does not depend on where it falls or on the thread that runs it. Per-step scalars are
// computed in double by the solver's scalars() in prepare() and rounded to float once.
//
// `wd` is the L2 weight decay of nnabla's Solver::weight_decay (g ← g + wd·w before the update)
// for the solvers whose kWeightDecay is L2; the kL2 flag keeps g bit-identical when wd is 0.

using Vec4 = float __attribute__((vector_size(16)));
using Vec4d = double __attribute__((vector_size(32)));

}  // namespace

// The solvers' bodies take square roots through solvers::Math<T>.
template <>
struct solvers::Math<Vec4> {
  static Vec4 sqrt(Vec4 x) {
#if defined(__SSE__)
    return reinterpret_cast<Vec4>(_mm_sqrt_ps(reinterpret_cast<__m128>(x)));
#elif defined(__aarch64__)
    return vsqrtq_f32(x);
#else
    return Vec4{std::sqrt(x[0]), std::sqrt(x[1]), std::sqrt(x[2]), std::sqrt(x[3])};
#endif
  }
};

namespace {

template <typename T>
inline T load(const float* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <typename T>
inline void store(float* p, const T& v) {
  std::memcpy(p, &v, sizeof(T));
}

// body(g, w&, state&...) with `kBuffers` state buffers (0, 1 or 2), for T = Vec4 then float.
template <int kBuffers, typename T, class Body>
inline void applyAt(const Optimizer::Piece& p, int64_t i, Body& body) {
  T w = load<T>(p.w + i);
  const T g = load<T>(p.g + i);
  if constexpr (kBuffers == 0) {
    body(g, w);
  } else if constexpr (kBuffers == 1) {
    T s0 = load<T>(p.s0 + i);
    body(g, w, s0);
    store(p.s0 + i, s0);
  } else {
    T s0 = load<T>(p.s0 + i), s1 = load<T>(p.s1 + i);
    body(g, w, s0, s1);
    store(p.s0 + i, s0);
    store(p.s1 + i, s1);
  }
  store(p.w + i, w);
}

template <int kBuffers, class Body>
inline void forEach(const Optimizer::Piece& p, Body body) {
  int64_t i = 0;
  for (; i + 4 <= p.n; i += 4) applyAt<kBuffers, Vec4>(p, i, body);
  for (; i < p.n; ++i) applyAt<kBuffers, float>(p, i, body);
}

template <bool kL2, typename T>
inline T decayed(T g, T w, float wd) {
  if constexpr (kL2)
    return g + wd * w;
  else
    return g;
}

// Squares in double (a float's square is exact there) for the per-tensor sums of Note [Trust ratio].
// (Vec4d by reference: a 32-byte vector by value would change the ABI without AVX.)
inline void addSquare(Vec4d& sum, Vec4 x) {
  const Vec4d d = __builtin_convertvector(x, Vec4d);
  sum += d * d;
}
inline void addSquare(double& sum, float x) { sum += double(x) * double(x); }

template <class S>
std::vector<std::string> bufferNamesOf() {
  std::vector<std::string> names;
  for (const char* b : S::kBuffers) names.emplace_back(b);
  return names;
}

// The optimizer of the solver declared by S (one folder of engine/solvers).
template <class S>
class SolverOptimizer final : public Optimizer {
 public:
  SolverOptimizer(const HyperValues& hyper, double wd)
      : Optimizer(S::kName, hyper, hyper.at(S::kLrKey), wd, bufferNamesOf<S>()) {}

 protected:
  void prepare(double lr, int64_t t) override {
    m_scalars = S::scalars({hyperValues(), lr, baseLearningRate(), weightDecay(), t});
  }
  void update(const Piece& p) const override {
    if constexpr (!solvers::hasTrustRatio<S>()) {
      if (S::kWeightDecay == SolverWeightDecay::L2 && m_wd != 0)
        run<true>(p);
      else
        run<false>(p);
    }
  }
  bool trustRatio() const override { return solvers::hasTrustRatio<S>(); }
  void accumulate(const Piece& p, double* sums) const override {
    if constexpr (solvers::hasTrustRatio<S>()) {
      const typename S::Scalars s = m_scalars;
      Vec4d w2{0, 0, 0, 0}, d2{0, 0, 0, 0};
      double tailW2 = 0, tailD2 = 0;
      int64_t i = 0;
      const auto at = [&](auto w, auto g, int64_t k, auto& sumW2, auto& sumD2) {
        using T = decltype(w);
        T m = load<T>(p.s0 + k), v = load<T>(p.s1 + k);
        S::moments(s, g, m, v);
        const T d = S::direction(s, w, m, v);
        addSquare(sumW2, w);
        addSquare(sumD2, d);
        store(p.s0 + k, m);
        store(p.s1 + k, v);
      };
      for (; i + 4 <= p.n; i += 4) at(load<Vec4>(p.w + i), load<Vec4>(p.g + i), i, w2, d2);
      for (; i < p.n; ++i) at(p.w[i], p.g[i], i, tailW2, tailD2);
      sums[0] = ((w2[0] + w2[1]) + (w2[2] + w2[3])) + tailW2;
      sums[1] = ((d2[0] + d2[1]) + (d2[2] + d2[3])) + tailD2;
    }
  }
  float tensorScale(double sumW2, double sumD2, float lrMult) const override {
    if constexpr (solvers::hasTrustRatio<S>()) return S::tensorScale(m_scalars, sumW2, sumD2, lrMult);
    else return 0;
  }
  void apply(const Piece& p, float scale) const override {
    if constexpr (solvers::hasTrustRatio<S>()) {
      const typename S::Scalars s = m_scalars;
      const auto at = [&](auto w, int64_t k) {
        using T = decltype(w);
        S::apply(scale, S::direction(s, w, load<T>(p.s0 + k), load<T>(p.s1 + k)), w);
        store(p.w + k, w);
      };
      int64_t i = 0;
      for (; i + 4 <= p.n; i += 4) at(load<Vec4>(p.w + i), i);
      for (; i < p.n; ++i) at(p.w[i], i);
    }
  }

 private:
  template <bool kL2>
  void run(const Piece& p) const {
    const typename S::Scalars s = S::forSlot(m_scalars, p.lrMult);
    const float wd = m_wd;
    forEach<solvers::bufferCount<S>()>(p, [=](auto g, auto& w, auto&... state) {
      S::update(s, decayed<kL2>(g, w, wd), w, state...);
    });
  }

  typename S::Scalars m_scalars{};
  const float m_wd = float(weightDecay());
};

}  // namespace

Optimizer::Optimizer(std::string solver, solvers::HyperValues hyper, double baseLr, double weightDecay,
                     std::vector<std::string> buffers)
    : m_solver(std::move(solver)),
      m_hyper(std::move(hyper)),
      m_baseLr(baseLr),
      m_weightDecay(weightDecay),
      m_buffers(std::move(buffers)) {}

Optimizer::~Optimizer() = default;

const std::vector<std::string>& Optimizer::solverNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& s : solverTable()) n.push_back(s.name);
    return n;
  }();
  return names;
}

Json Optimizer::defaultHyperParameters(const std::string& solver) {
  Json out = Json::object();
  if (const SolverRow* row = findSolver(solver))
    for (const auto& h : row->hyper)
      out[h.name] = h.range == Range::Flag ? Json(h.defaultValue != 0) : Json(h.defaultValue);
  return out;
}

std::vector<std::string> Optimizer::hyperParametersDroppedBySwitch(const std::string& from, const std::string& to) {
  const Json kept = defaultHyperParameters(to);
  const Json own = defaultHyperParameters(from);  // kept alive: items() only views it
  std::vector<std::string> dropped;
  for (const auto& [key, unused] : own.items())
    if (!kept.contains(key)) dropped.push_back(key);
  return dropped;
}

std::unique_ptr<Optimizer> Optimizer::create(const OptimizerConfig& cfg) {
  const SolverRow* spec = findSolver(cfg.solver);
  NS_CHECK(spec, "optimizer.solver: unknown solver '{}' (known: {})", cfg.solver, solverNameList());
  NS_CHECK(cfg.hyper.is_object(), "optimizer: expected the solver parameters as a JSON object, got {}",
           cfg.hyper.dump());
  NS_CHECK(std::isfinite(cfg.weightDecay) && cfg.weightDecay >= 0,
           "optimizer.weight_decay: expected a number >= 0, got {}", cfg.weightDecay);

  for (const auto& [key, value] : cfg.hyper.items()) {
    bool known = false;
    for (const auto& h : spec->hyper) known = known || key == h.name;
    NS_CHECK(known, "optimizer.{}: unknown parameter of {} (known: {})", key, spec->name, joinNames(spec->hyper));
  }
  HyperValues hyper;
  for (const auto& h : spec->hyper) {
    const auto it = cfg.hyper.find(h.name);
    hyper[h.name] = it == cfg.hyper.end() ? h.defaultValue : checkedValue(format("optimizer.{}", h.name), *it, h.range);
  }

  // A solver's own spelling of optimizer.weight_decay (AdamW's wd): the two keys hold one value.
  double wd = cfg.weightDecay;
  if (const char* key = spec->weightDecayKey) {
    if (cfg.hyper.contains(key)) {
      NS_CHECK(cfg.weightDecay == 0 || cfg.weightDecay == hyper.at(key),
               "optimizer.{}: {}'s {} ({}) differs from optimizer.weight_decay ({}); set only one of them", key,
               spec->name, key, hyper.at(key), cfg.weightDecay);
      wd = hyper.at(key);
    }
    hyper[key] = wd;
  }
  std::unique_ptr<Optimizer> out;
  solvers::All::with(spec->name, [&](auto s) { out = std::make_unique<SolverOptimizer<decltype(s)>>(hyper, wd); });
  return out;
}

void Optimizer::setBaseLearningRate(double lr) {
  NS_CHECK(std::isfinite(lr) && lr > 0, "optimizer: the base learning rate must be a positive number, got {}", lr);
  m_baseLr = lr;
}

Json Optimizer::hyperParameters() const {
  Json j = Json::object();
  const SolverRow* row = findSolver(m_solver);
  for (const auto& h : row->hyper) {
    const double v = m_hyper.at(h.name);
    j[h.name] = h.range == Range::Flag ? Json(v != 0) : Json(v);
  }
  j[row->lrKey] = m_baseLr;
  return j;
}

void Optimizer::step(std::span<const ParamSlot> slots, double lr) {
  NS_CHECK(std::isfinite(lr) && lr >= 0, "optimizer: the learning rate must be a finite number >= 0, got {}", lr);
  const size_t nBuffers = m_buffers.size();

  // Check everything before changing anything, so a failed step leaves the optimizer as it was.
  for (const auto& slot : slots) {
    NS_CHECK(slot.value && slot.grad, "optimizer: parameter '{}' has no value or no gradient", slot.name);
    NS_CHECK(slot.grad->shape() == slot.value->shape(), "optimizer: the gradient of '{}' has shape {}, expected {}",
             slot.name, shapeToString(slot.grad->shape()), shapeToString(slot.value->shape()));
    if (nBuffers == 0) continue;
    const auto it = m_state.find(slot.name);
    if (it == m_state.end()) {
      NS_CHECK(m_steps == 0,
               "optimizer: parameter '{}' has no {} state after {} steps (the restored state does not match the "
               "network)",
               slot.name, m_solver, m_steps);
    } else {
      for (size_t b = 0; b < nBuffers; ++b)
        NS_CHECK(it->second.buffers[b].shape() == slot.value->shape(),
                 "optimizer: state '{}/{}' has shape {}, but the parameter has shape {}", slot.name, m_buffers[b],
                 shapeToString(it->second.buffers[b].shape()), shapeToString(slot.value->shape()));
    }
  }

  // Reused from step to step: a step allocates nothing once the state exists (Note [No
  // allocation per step], engine/model/network.cpp).
  std::vector<Piece>& pieces = m_pieces;
  pieces.clear();
  int64_t total = 0;
  for (size_t k = 0; k < slots.size(); ++k) {
    const ParamSlot& slot = slots[k];
    float* s[2] = {nullptr, nullptr};
    if (nBuffers) {
      auto [it, inserted] = m_state.try_emplace(slot.name);
      if (inserted) {
        for (size_t b = 0; b < nBuffers; ++b) {
          it->second.buffers.emplace_back(slot.value->shape());
          it->second.buffers.back().zero();
        }
      }
      for (size_t b = 0; b < nBuffers; ++b) s[b] = it->second.buffers[b].data();
    }
    const int64_t n = slot.value->size();
    total += n;
    for (int64_t begin = 0; begin < n; begin += kPieceFloats) {
      const int64_t len = std::min(kPieceFloats, n - begin);
      pieces.push_back({slot.value->data() + begin, slot.grad->data() + begin, s[0] ? s[0] + begin : nullptr,
                        s[1] ? s[1] + begin : nullptr, len, slot.lrMult, int64_t(k)});
    }
  }

  prepare(lr, m_steps + 1);
  const int64_t count = int64_t(pieces.size());
  // A region whose team has one thread (small models, one-thread workers) would allocate its
  // team every step (Note [One-thread regions], engine/backend/cpu/parallel_for.h): such a step
  // runs on the calling thread. Pieces are independent, so the result is the same either way.
  const bool parallel = total >= kParallelMinFloats && omp_get_max_threads() > 1;
  const auto forPieces = [&](auto&& work) {
    if (parallel) {
#pragma omp parallel for schedule(static)
      for (int64_t i = 0; i < count; ++i) work(i);
    } else {
      for (int64_t i = 0; i < count; ++i) work(i);
    }
  };
  if (!trustRatio()) {
    forPieces([&](int64_t i) { update(pieces[size_t(i)]); });
  } else {
    // Note [Trust ratio] (engine/solvers/lamb/solver.h): each piece's sums, then each slot's
    // scale from its pieces' sums added in piece order, then the update.
    m_partials.resize(size_t(count) * 2);
    m_pieceScales.resize(size_t(count));
    forPieces([&](int64_t i) { accumulate(pieces[size_t(i)], &m_partials[size_t(i) * 2]); });
    for (int64_t first = 0; first < count;) {
      double sumW2 = 0, sumD2 = 0;
      int64_t end = first;
      for (; end < count && pieces[size_t(end)].slot == pieces[size_t(first)].slot; ++end) {
        sumW2 += m_partials[size_t(end) * 2];
        sumD2 += m_partials[size_t(end) * 2 + 1];
      }
      const float scale = tensorScale(sumW2, sumD2, pieces[size_t(first)].lrMult);
      for (int64_t i = first; i < end; ++i) m_pieceScales[size_t(i)] = scale;
      first = end;
    }
    forPieces([&](int64_t i) { apply(pieces[size_t(i)], m_pieceScales[size_t(i)]); });
  }
  ++m_steps;
}

Optimizer::StateList Optimizer::stateTensors() const {
  StateList list;
  for (const auto& [name, state] : m_state)
    for (size_t b = 0; b < m_buffers.size(); ++b) list.emplace_back(name + "/" + m_buffers[b], &state.buffers[b]);
  return list;
}

void Optimizer::restoreState(const StateList& tensors, int64_t steps) {
  NS_CHECK(steps >= 0, "optimizer state: the step count must be >= 0, got {}", steps);
  std::map<std::string, std::vector<const Tensor*>> found;
  for (const auto& [name, tensor] : tensors) {
    const auto slash = name.rfind('/');
    const std::string buffer = slash == std::string::npos ? std::string() : name.substr(slash + 1);
    size_t b = 0;
    while (b < m_buffers.size() && m_buffers[b] != buffer) ++b;
    if (slash == std::string::npos || slash == 0 || b == m_buffers.size()) {
      NS_CHECK(!m_buffers.empty(), "optimizer state '{}': {} keeps no state", name, m_solver);
      std::string expected;
      for (const auto& n : m_buffers) expected += (expected.empty() ? "" : "|") + n;
      NS_THROW("optimizer state '{}': not a state tensor of {} (expected <parameter>/{})", name, m_solver, expected);
    }
    NS_CHECK(tensor, "optimizer state '{}': no tensor", name);
    auto& slot = found[name.substr(0, slash)];
    slot.resize(m_buffers.size(), nullptr);
    NS_CHECK(!slot[b], "optimizer state '{}' appears twice", name);
    slot[b] = tensor;
  }
  std::map<std::string, SlotState> state;
  for (const auto& [param, buffers] : found) {
    for (size_t b = 0; b < buffers.size(); ++b) {
      NS_CHECK(buffers[b], "optimizer state of '{}': '{}/{}' is missing", param, param, m_buffers[b]);
      NS_CHECK(buffers[b]->shape() == buffers[0]->shape(), "optimizer state '{}/{}' has shape {}, but '{}/{}' has {}",
               param, m_buffers[b], shapeToString(buffers[b]->shape()), param, m_buffers[0],
               shapeToString(buffers[0]->shape()));
    }
    auto& s = state[param];
    for (const Tensor* t : buffers) s.buffers.push_back(t->clone());
  }
  m_state = std::move(state);
  m_steps = steps;
}

}  // namespace netsmith
