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
#include "engine/project/solver_table.h"

namespace netsmith {
namespace {

// Pieces of this many floats (64 KiB, a multiple of 16 so each piece starts 64-byte aligned)
// are the unit of OpenMP work: one parallel region per step covers every parameter, and small
// parameters (biases) do not each pay for a region.
constexpr int64_t kPieceFloats = 16384;
// Below this many elements in total the update runs on the calling thread.
constexpr int64_t kParallelMinFloats = 65536;

// The solvers and their hyper-parameters are declared once, in engine/project/solver_table.h.
using Range = SolverHyperRange;
using HyperSpec = SolverHyperParameter;
using SolverSpec = SolverRow;
const std::vector<SolverSpec>& solverSpecs() { return solverTable(); }

std::string joinNames(const std::vector<HyperSpec>& hyper) {
  std::string s;
  for (const auto& h : hyper) {
    if (!s.empty()) s += ", ";
    s += h.name;
  }
  return s;
}

double checkedValue(const std::string& path, const Json& value, Range range) {
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
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// Note [Solver kernels]
// Each solver writes its update once, as a generic lambda over one element, and forEach() runs
// it on 4-float vectors (GCC vector extensions) and then on the scalar tail. The compiler cannot
// auto-vectorise std::sqrt without -fno-math-errno, hence the explicit vectors. Every lane does
// the same IEEE operations in the same order as the scalar tail (sqrtps = sqrtss per element),
// and pieces start at multiples of 4, so an element's result does not depend on where it falls
// or on the thread that runs it. Per-step scalars are computed in double in prepare() and
// rounded to float once.
//
// `wd` is the L2 weight decay of nnabla's Solver::weight_decay (g ← g + wd·w before the update);
// the kL2 flag keeps g bit-identical when wd is 0.

using Vec4 = float __attribute__((vector_size(16)));

inline float vsqrt(float x) { return std::sqrt(x); }
inline Vec4 vsqrt(Vec4 x) {
#if defined(__SSE__)
  return reinterpret_cast<Vec4>(_mm_sqrt_ps(reinterpret_cast<__m128>(x)));
#elif defined(__aarch64__)
  return vsqrtq_f32(x);
#else
  return Vec4{std::sqrt(x[0]), std::sqrt(x[1]), std::sqrt(x[2]), std::sqrt(x[3])};
#endif
}

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

// Sgd (nnabla):  w ← w − lr·g
class Sgd final : public Optimizer {
 public:
  Sgd(std::map<std::string, double> hyper, double wd) : Optimizer("Sgd", hyper, hyper.at("lr"), wd, {}) {}

 protected:
  void prepare(double lr, int64_t) override { m_lr = float(lr); }
  void update(const Piece& p) const override { m_wd != 0 ? run<true>(p) : run<false>(p); }

 private:
  template <bool kL2>
  void run(const Piece& p) const {
    const float lr = m_lr * p.lrMult, wd = m_wd;
    forEach<0>(p, [=](auto g, auto& w) { w -= lr * decayed<kL2>(g, w, wd); });
  }
  float m_lr = 0;
  const float m_wd = float(weightDecay());
};

// Momentum (nnabla, which keeps the velocity with this sign):
//   v ← μ·v + lr·g;   w ← w − v
// (PyTorch's "v ← μ·v − lr·g; w ← w + v" is the same with v negated, bit for bit).
class Momentum final : public Optimizer {
 public:
  Momentum(std::map<std::string, double> hyper, double wd)
      : Optimizer("Momentum", hyper, hyper.at("lr"), wd, {"m"}), m_mu(float(hyper.at("momentum"))) {}

 protected:
  void prepare(double lr, int64_t) override { m_lr = float(lr); }
  void update(const Piece& p) const override { m_wd != 0 ? run<true>(p) : run<false>(p); }

 private:
  template <bool kL2>
  void run(const Piece& p) const {
    const float lr = m_lr * p.lrMult, wd = m_wd, mu = m_mu;
    forEach<1>(p, [=](auto g, auto& w, auto& v) {
      v = mu * v + lr * decayed<kL2>(g, w, wd);
      w -= v;
    });
  }
  float m_lr = 0;
  const float m_mu;
  const float m_wd = float(weightDecay());
};

// Nesterov (nnabla; Sutskever et al. 2013 in the form of Bengio et al. 2012):
//   v' ← μ·v − lr·g;   w ← w + (−μ·v + (1 + μ)·v');   v ← v'
class Nesterov final : public Optimizer {
 public:
  Nesterov(std::map<std::string, double> hyper, double wd)
      : Optimizer("Nesterov", hyper, hyper.at("lr"), wd, {"m"}), m_mu(float(hyper.at("momentum"))) {}

 protected:
  void prepare(double lr, int64_t) override { m_lr = float(lr); }
  void update(const Piece& p) const override { m_wd != 0 ? run<true>(p) : run<false>(p); }

 private:
  template <bool kL2>
  void run(const Piece& p) const {
    const float lr = m_lr * p.lrMult, wd = m_wd, mu = m_mu, onePlusMu = 1.0f + m_mu;
    forEach<1>(p, [=](auto g, auto& w, auto& v) {
      const auto prev = v;
      v = mu * prev - lr * decayed<kL2>(g, w, wd);
      w += -mu * prev + onePlusMu * v;
    });
  }
  float m_lr = 0;
  const float m_mu;
  const float m_wd = float(weightDecay());
};

// Adagrad (nnabla):  G ← G + g²;   w ← w − lr·g / (√G + ε)
class Adagrad final : public Optimizer {
 public:
  Adagrad(std::map<std::string, double> hyper, double wd)
      : Optimizer("Adagrad", hyper, hyper.at("lr"), wd, {"v"}), m_eps(float(hyper.at("eps"))) {}

 protected:
  void prepare(double lr, int64_t) override { m_lr = float(lr); }
  void update(const Piece& p) const override { m_wd != 0 ? run<true>(p) : run<false>(p); }

 private:
  template <bool kL2>
  void run(const Piece& p) const {
    const float lr = m_lr * p.lrMult, wd = m_wd, eps = m_eps;
    forEach<1>(p, [=](auto g, auto& w, auto& acc) {
      const auto gi = decayed<kL2>(g, w, wd);
      acc += gi * gi;
      w -= lr * gi / (vsqrt(acc) + eps);
    });
  }
  float m_lr = 0;
  const float m_eps;
  const float m_wd = float(weightDecay());
};

// RMSprop (nnabla, Tieleman & Hinton):  v ← ρ·v + (1 − ρ)·g²;   w ← w − lr / (√v + ε) · g
class RmsProp final : public Optimizer {
 public:
  RmsProp(std::map<std::string, double> hyper, double wd)
      : Optimizer("RMSprop", hyper, hyper.at("lr"), wd, {"v"}),
        m_rho(float(hyper.at("decay"))),
        m_oneMinusRho(float(1.0 - hyper.at("decay"))),
        m_eps(float(hyper.at("eps"))) {}

 protected:
  void prepare(double lr, int64_t) override { m_lr = float(lr); }
  void update(const Piece& p) const override { m_wd != 0 ? run<true>(p) : run<false>(p); }

 private:
  template <bool kL2>
  void run(const Piece& p) const {
    const float lr = m_lr * p.lrMult, wd = m_wd, rho = m_rho, oneMinusRho = m_oneMinusRho, eps = m_eps;
    forEach<1>(p, [=](auto g, auto& w, auto& v) {
      const auto gi = decayed<kL2>(g, w, wd);
      v = v * rho + gi * gi * oneMinusRho;
      w -= lr / (vsqrt(v) + eps) * gi;
    });
  }
  float m_lr = 0;
  const float m_rho, m_oneMinusRho, m_eps;
  const float m_wd = float(weightDecay());
};

// Adam (nnabla, Kingma & Ba with the bias correction folded into the step size):
//   m ← β1·m + (1 − β1)·g;   v ← β2·v + (1 − β2)·g²
//   α_t = lr·√(1 − β2^t) / (1 − β1^t);   w ← w − α_t·m / (√v + ε)
// (lr is alpha as scheduled.) For Adam, optimizer.weight_decay is L2 on g as for the others.
// AdamW (nnabla, Loshchilov & Hutter): the same, plus a decoupled decay that follows the schedule:
//   η_t = lr / α_base;   w ← w − α_t·m / (√v + ε) − η_t·wd·w      (w on the right is the old w)
class AdamFamily final : public Optimizer {
 public:
  AdamFamily(const char* name, bool decoupled, std::map<std::string, double> hyper, double wd)
      : Optimizer(name, hyper, hyper.at("alpha"), wd, {"m", "v"}),
        m_decoupled(decoupled),
        m_beta1(hyper.at("beta1")),
        m_beta2(hyper.at("beta2")),
        m_eps(float(hyper.at("eps"))) {}

 protected:
  void prepare(double lr, int64_t t) override {
    const double td = double(t);
    m_alphaT = float(lr * std::sqrt(1.0 - std::pow(m_beta2, td)) / (1.0 - std::pow(m_beta1, td)));
    m_etaWd = m_decoupled ? float(lr / baseLearningRate() * weightDecay()) : 0.0f;
  }
  void update(const Piece& p) const override {
    if (m_decoupled)
      run<false, true>(p);
    else if (weightDecay() != 0)
      run<true, false>(p);
    else
      run<false, false>(p);
  }

 private:
  template <bool kL2, bool kDecoupled>
  void run(const Piece& p) const {
    const float b1 = float(m_beta1), b2 = float(m_beta2);
    const float oneMinusB1 = float(1.0 - m_beta1), oneMinusB2 = float(1.0 - m_beta2);
    const float alphaT = m_alphaT * p.lrMult, eps = m_eps, wd = float(weightDecay()), etaWd = m_etaWd * p.lrMult;
    forEach<2>(p, [=](auto g, auto& w, auto& m, auto& v) {
      const auto gi = decayed<kL2>(g, w, wd);
      m = b1 * m + oneMinusB1 * gi;
      v = b2 * v + oneMinusB2 * gi * gi;
      auto next = w - alphaT * m / (vsqrt(v) + eps);
      if constexpr (kDecoupled) next -= etaWd * w;
      w = next;
    });
  }
  const bool m_decoupled;
  const double m_beta1, m_beta2;
  const float m_eps;
  float m_alphaT = 0;
  float m_etaWd = 0;
};

}  // namespace

Optimizer::Optimizer(std::string solver, std::map<std::string, double> hyper, double baseLr, double weightDecay,
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
    for (const auto& s : solverSpecs()) n.push_back(s.name);
    return n;
  }();
  return names;
}

Json Optimizer::defaultHyperParameters(const std::string& solver) {
  Json out = Json::object();
  for (const auto& s : solverSpecs())
    if (solver == s.name)
      for (const auto& h : s.hyper) out[h.name] = h.defaultValue;
  return out;
}

std::unique_ptr<Optimizer> Optimizer::create(const OptimizerConfig& cfg) {
  const SolverSpec* spec = nullptr;
  for (const auto& s : solverSpecs())
    if (cfg.solver == s.name) spec = &s;
  if (!spec) {
    std::string known;
    for (const auto& n : solverNames()) known += (known.empty() ? "" : ", ") + n;
    NS_THROW("optimizer.solver: unknown solver '{}' (known: {})", cfg.solver, known);
  }
  NS_CHECK(cfg.hyper.is_object(), "optimizer: expected the solver parameters as a JSON object, got {}",
           cfg.hyper.dump());
  NS_CHECK(std::isfinite(cfg.weightDecay) && cfg.weightDecay >= 0,
           "optimizer.weight_decay: expected a number >= 0, got {}", cfg.weightDecay);

  for (const auto& [key, value] : cfg.hyper.items()) {
    bool known = false;
    for (const auto& h : spec->hyper) known = known || key == h.name;
    NS_CHECK(known, "optimizer.{}: unknown parameter of {} (known: {})", key, spec->name, joinNames(spec->hyper));
  }
  std::map<std::string, double> hyper;
  for (const auto& h : spec->hyper) {
    const auto it = cfg.hyper.find(h.name);
    hyper[h.name] = it == cfg.hyper.end() ? h.defaultValue : checkedValue(format("optimizer.{}", h.name), *it, h.range);
  }

  const std::string solver = spec->name;
  if (solver == "Sgd") return std::make_unique<Sgd>(hyper, cfg.weightDecay);
  if (solver == "Momentum") return std::make_unique<Momentum>(hyper, cfg.weightDecay);
  if (solver == "Nesterov") return std::make_unique<Nesterov>(hyper, cfg.weightDecay);
  if (solver == "Adagrad") return std::make_unique<Adagrad>(hyper, cfg.weightDecay);
  if (solver == "RMSprop") return std::make_unique<RmsProp>(hyper, cfg.weightDecay);
  if (solver == "Adam") return std::make_unique<AdamFamily>("Adam", false, hyper, cfg.weightDecay);
  // AdamW: its wd is decoupled, not an L2 term; optimizer.weight_decay and optimizer.wd are two
  // spellings of the one value.
  double wd = cfg.weightDecay;
  if (cfg.hyper.contains("wd")) {
    NS_CHECK(cfg.weightDecay == 0 || cfg.weightDecay == hyper.at("wd"),
             "optimizer.wd: AdamW's wd ({}) differs from optimizer.weight_decay ({}); set only one of them",
             hyper.at("wd"), cfg.weightDecay);
    wd = hyper.at("wd");
  }
  hyper["wd"] = wd;
  return std::make_unique<AdamFamily>("AdamW", true, hyper, wd);
}

void Optimizer::setBaseLearningRate(double lr) {
  NS_CHECK(std::isfinite(lr) && lr > 0, "optimizer: the base learning rate must be a positive number, got {}", lr);
  m_baseLr = lr;
}

Json Optimizer::hyperParameters() const {
  Json j = Json::object();
  for (const auto& [k, v] : m_hyper) j[k] = v;
  for (const auto& s : solverSpecs())
    if (m_solver == s.name) j[s.lrKey] = m_baseLr;
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
  for (const auto& slot : slots) {
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
                        s[1] ? s[1] + begin : nullptr, len, slot.lrMult});
    }
  }

  prepare(lr, m_steps + 1);
  const int64_t count = int64_t(pieces.size());
  // A region whose team has one thread (small models, one-thread workers) would allocate its
  // team every step (Note [One-thread regions], engine/backend/cpu/parallel_for.h): such a step
  // runs on the calling thread. Pieces are independent, so the result is the same either way.
  if (total >= kParallelMinFloats && omp_get_max_threads() > 1) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < count; ++i) update(pieces[size_t(i)]);
  } else {
    for (int64_t i = 0; i < count; ++i) update(pieces[size_t(i)]);
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
