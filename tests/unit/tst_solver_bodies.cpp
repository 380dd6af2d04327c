// The solvers' per-element maths (Note [Solver folders], engine/solvers/<name>/solver.h) against
// answers worked by hand: two steps of five elements for every solver, run through the CPU
// Optimizer (one 4-float vector and a scalar tail) and through the CUDA fused step's body called
// on the host (engine/backend/cuda/solver_update.h, as the simulated GPUs' host loop calls it; no
// GPU and no CUDA headers needed). LAMB's trust ratio on a two-tensor example. The generated list
// of solvers and the table agree, and the NNabla importer maps Lamb's parameters (its flag too).
// netsmith-test-labels: asan

#include <QtTest>

#include <cmath>
#include <string>
#include <vector>

#include "engine/backend/cuda/solver_update.h"
#include "engine/import/nnabla/nnabla_file.h"
#include "engine/import/nnabla/nnabla_settings.h"
#include "engine/optim/optimizer.h"
#include "engine/project/project.h"
#include "engine/solvers/solver_list.h"
#include "engine/solvers/solver_table.h"

using namespace netsmith;

namespace {

// ---- The worked example -----------------------------------------------------------------------
// Five elements, two steps; the gradients are given (not computed from w), and the second step's
// learning rate is half the first's (the schedule moving). Hyper-parameters are powers of two
// where they can be, so most answers are exact in float.
//   w0 = [1, −2, 0.5, 4, −0.25]
//   g1 = [0.5, 1, −2, 0.25, 0]            step 1, learning rate lr
//   g2 = [0.25, −1, 1, 0.5, 2]            step 2, learning rate lr/2
// Each solver's answers are worked from its formula (the folder's comment) in this order; element
// 0 is spelled out below, the others go the same way (rounded to 9 digits where not exact).
const std::vector<float> kW0 = {1.0f, -2.0f, 0.5f, 4.0f, -0.25f};
const std::vector<float> kG1 = {0.5f, 1.0f, -2.0f, 0.25f, 0.0f};
const std::vector<float> kG2 = {0.25f, -1.0f, 1.0f, 0.5f, 2.0f};

struct Worked {
  std::string solver;
  Json hyper;
  double weightDecay;
  std::vector<double> afterStep1, afterStep2;
};

std::vector<Worked> workedAnswers() {
  return {
      // Sgd, lr 0.5, L2 wd 0.25: w ← w − lr·(g + wd·w).
      //   step 1: 1 − 0.5·(0.5 + 0.25·1) = 1 − 0.375 = 0.625
      //   step 2: 0.625 − 0.25·(0.25 + 0.25·0.625) = 0.625 − 0.25·0.40625 = 0.5234375
      {"Sgd",
       {{"lr", 0.5}},
       0.25,
       {0.625, -2.25, 1.4375, 3.375, -0.21875},
       {0.5234375, -1.859375, 1.09765625, 3.0390625, -0.705078125}},
      // Momentum, lr 0.5, μ 0.5: v ← μ·v + lr·g; w ← w − v.
      //   step 1: v = 0 + 0.5·0.5 = 0.25;            w = 1 − 0.25 = 0.75
      //   step 2: v = 0.5·0.25 + 0.25·0.25 = 0.1875; w = 0.75 − 0.1875 = 0.5625
      {"Momentum",
       {{"lr", 0.5}, {"momentum", 0.5}},
       0.0,
       {0.75, -2.5, 1.5, 3.875, -0.25},
       {0.5625, -2.5, 1.75, 3.6875, -0.75}},
      // Nesterov, lr 0.5, μ 0.5: v' ← μ·v − lr·g; w ← w − μ·v + (1 + μ)·v'.
      //   step 1: v' = −0.25;                       w = 1 − 0 + 1.5·(−0.25) = 0.625
      //   step 2: v' = 0.5·(−0.25) − 0.25·0.25 = −0.1875; w = 0.625 + 0.125 − 0.28125 = 0.46875
      {"Nesterov",
       {{"lr", 0.5}, {"momentum", 0.5}},
       0.0,
       {0.625, -2.75, 2.0, 3.8125, -0.25},
       {0.46875, -2.5, 1.875, 3.59375, -1.0}},
      // Adagrad, lr 0.5, ε 0.5: G ← G + g²; w ← w − lr·g / (√G + ε).
      //   step 1: G = 0.25; w = 1 − 0.5·0.5 / (0.5 + 0.5) = 0.75
      //   step 2: G = 0.3125; w = 0.75 − 0.25·0.25 / (0.559016994 + 0.5) = 0.690983006
      //   (element 1, step 1: 2 − ... : −2 − 0.5·1 / (1 + 0.5) = −2.333333333)
      {"Adagrad",
       {{"lr", 0.5}, {"eps", 0.5}},
       0.0,
       {0.75, -2.333333333, 0.9, 3.833333333, -0.25},
       {0.690983006, -2.2027314, 0.808628001, 3.71529934, -0.45}},
      // RMSprop, lr 0.25, ρ 0.5, ε 0.5, L2 wd 0.25: g ← g + wd·w; v ← ρ·v + (1 − ρ)·g²;
      // w ← w − lr / (√v + ε)·g.
      //   step 1: g = 0.75; v = 0.28125; w = 1 − 0.25 / (0.530330086 + 0.5)·0.75 = 0.818019485
      //   step 2: g = 0.25 + 0.25·0.818019485 = 0.454504871; v = 0.140625 + 0.5·0.206574678
      //           = 0.243912339; w = 0.818019485 − 0.125 / (0.493875834 + 0.5)·0.454504871
      //           = 0.760856241
      {"RMSprop",
       {{"lr", 0.25}, {"decay", 0.5}, {"eps", 0.5}},
       0.25,
       {0.818019485, -2.14644661, 0.756733227, 3.77418619, -0.221287822},
       {0.760856241, -2.02750928, 0.672243407, 3.66784833, -0.350901912}},
      // Adam, α 0.25, β1 0.5, β2 0.75, ε 0.5: m ← β1·m + (1 − β1)·g; v ← β2·v + (1 − β2)·g²;
      // α_t = lr·√(1 − β2^t) / (1 − β1^t); w ← w − α_t·m / (√v + ε).
      //   step 1: m = 0.25, v = 0.0625, α_1 = 0.25·0.5 / 0.5 = 0.25;
      //           w = 1 − 0.25·0.25 / (0.25 + 0.5) = 0.916666667
      //   step 2: m = 0.125 + 0.125 = 0.25, v = 0.046875 + 0.015625 = 0.0625,
      //           α_2 = 0.125·√0.4375 / 0.75 = 0.110239638; w = 0.916666667 − 0.110239638·0.25 / 0.75
      //           = 0.879920121
      {"Adam",
       {{"alpha", 0.25}, {"beta1", 0.5}, {"beta2", 0.75}, {"eps", 0.5}},
       0.0,
       {0.916666667, -2.125, 0.666666667, 3.95, -0.25},
       {0.879920121, -2.10127087, 0.666666667, 3.9054007, -0.323493092}},
      // AdamW, as Adam plus the decoupled decay wd 0.5 scaled by η_t = lr / α:
      //   step 1: w = 1 − 0.083333333 − 1·0.5·1 = 0.416666667
      //   step 2: w = 0.416666667 − 0.036746546 − 0.5·0.5·0.416666667 = 0.275753454
      {"AdamW",
       {{"alpha", 0.25}, {"beta1", 0.5}, {"beta2", 0.75}, {"eps", 0.5}},
       0.5,
       {0.416666667, -1.125, 0.416666667, 1.95, -0.125},
       {0.275753454, -0.82002087, 0.3125, 1.4179007, -0.167243092}},
      // Lamb, η 0.25, β1 0.5, β2 0.75, ε 0.5, bias correction, λ (weight_decay) 0.5, γ_l 0, γ_u 10:
      // one tensor of five elements. d = (m / c1) / (√(v / c2) + ε) + λ·w; w ← w − lr·φ(‖w‖)/‖d‖·d.
      //   step 1: m = 0.25, v = 0.0625, c1 = 0.5, c2 = 0.25: d = 0.5 / (0.5 + 0.5) + 0.5·1 = 1;
      //           d = [1, −0.333333, −0.55, 2.333333, −0.125], ‖d‖ = 2.6217705,
      //           ‖w‖ = 4.61654633, ratio 1.76085066; w = 1 − 0.25·1.76085066·1 = 0.559787334
      //   step 2: m = 0.25, v = 0.0625, c1 = 0.75, c2 = 0.4375:
      //           d = 0.333333 / (0.377964473 + 0.5) + 0.5·0.559787334 = 0.659559751,
      //           ‖d‖ = 2.44718015, ‖w‖ = 3.62966338, ratio 1.48320237;
      //           w = 0.559787334 − 0.125·1.48320237·0.659559751 = 0.437504761
      {"Lamb",
       {{"eta", 0.25}, {"beta1", 0.5}, {"beta2", 0.75}, {"eps", 0.5}, {"bias_correction", true}},
       0.5,
       {0.559787334, -1.85326244, 0.742116966, 2.97283711, -0.194973417},
       {0.437504761, -1.64026468, 0.673322614, 2.61253919, -0.29977105}},
  };
}

// The worked answers carry 9 digits; float carries about 7.
bool close(double got, double want) { return std::abs(got - want) <= 2e-6 * std::max(1.0, std::abs(want)); }

OptimizerConfig configOf(const Worked& w) {
  OptimizerConfig cfg;
  cfg.solver = w.solver;
  cfg.hyper = w.hyper;
  cfg.weightDecay = w.weightDecay;
  return cfg;
}

Tensor tensorOf(const std::vector<float>& values) {
  Tensor t(Shape{int64_t(values.size())});
  for (size_t i = 0; i < values.size(); ++i) t[int64_t(i)] = values[i];
  return t;
}

// The CUDA fused step's bodies on the host, over one chunk per tensor, as the simulated GPUs run
// them (cuda_solver.cu): the element-wise update, or LAMB's two passes with the block tree.
template <class S>
void cudaBodyStep(const Optimizer& config, std::vector<std::vector<float>*> ws, const std::vector<const std::vector<float>*>& gs,
                  std::vector<std::vector<float>>& state, double lr, int64_t t) {
  const solvers::StepInput in{config.hyperValues(), lr, config.baseLearningRate(), config.weightDecay(), t};
  const typename S::Scalars s = S::scalars(in);
  std::vector<cuda::solver::Chunk> chunks;
  for (size_t k = 0; k < ws.size(); ++k) {
    const int64_t n = int64_t(ws[k]->size());
    state.resize(std::max(state.size(), 2 * ws.size()));
    for (size_t b = 0; b < 2; ++b) state[2 * k + b].resize(size_t(n), 0.0f);
    chunks.push_back({ws[k]->data(), gs[k]->data(), state[2 * k].data(), state[2 * k + 1].data(), n, 1.0f,
                      int32_t(k), 1});
  }
  if constexpr (solvers::hasTrustRatio<S>()) {
    std::vector<double> partials(2 * chunks.size()), sums(2 * 256);
    for (size_t b = 0; b < chunks.size(); ++b)
      cuda::solver::trustBlockSums<S>(chunks[b], s, 256, sums.data(), &partials[2 * b]);
    for (const auto& c : chunks) {
      const float scale = cuda::solver::trustScale<S>(c, partials.data(), s);
      for (int64_t i = 0; i < c.n; ++i) cuda::solver::trustApply<S>(c, i, s, scale);
    }
  } else {
    const bool l2 = S::kWeightDecay == SolverWeightDecay::L2 && config.weightDecay() != 0;
    for (const auto& c : chunks) {
      const typename S::Scalars chunkScalars = S::forSlot(s, c.lrMult);
      for (int64_t i = 0; i < c.n; ++i) {
        if (l2) cuda::solver::update<S, true>(c, i, chunkScalars, float(config.weightDecay()));
        else cuda::solver::update<S, false>(c, i, chunkScalars, float(config.weightDecay()));
      }
    }
  }
}

QString compareAll(const std::string& what, const std::vector<float>& got, const std::vector<double>& want) {
  for (size_t i = 0; i < want.size(); ++i)
    if (!close(got[i], want[i]))
      return QString("%1 element %2: got %3, worked answer %4")
          .arg(QString::fromStdString(what))
          .arg(i)
          .arg(double(got[i]), 0, 'g', 10)
          .arg(want[i], 0, 'g', 10);
  return {};
}

}  // namespace

class TestSolverBodies : public QObject {
  Q_OBJECT

 private slots:
  // The generated list (solver_list.h) is the table, one row per folder.
  void listAndTableAgree() {
    QStringList names;
    solvers::All::forEach([&](auto s) { names << QString::fromLatin1(decltype(s)::kName); });
    QCOMPARE(names, (QStringList{"Adagrad", "Adam", "AdamW", "Lamb", "Momentum", "Nesterov", "RMSprop", "Sgd"}));
    QCOMPARE(int(solverTable().size()), solvers::All::size);
    for (const SolverRow& row : solverTable()) {
      QVERIFY2(row.buffers.size() <= 2, row.name);  // the fused step's chunks carry two state pointers
      bool hasLr = false;
      for (const auto& h : row.hyper) hasLr = hasLr || std::string(h.name) == row.lrKey;
      QVERIFY2(hasLr, row.name);
    }
    QVERIFY(findSolver("Lamb")->trustRatio);
    QVERIFY(!findSolver("Adam")->trustRatio);
  }

  void cpuOptimizerMatchesWorkedAnswers_data() {
    QTest::addColumn<int>("index");
    const auto all = workedAnswers();
    for (size_t i = 0; i < all.size(); ++i) QTest::newRow(all[i].solver.c_str()) << int(i);
    QCOMPARE(int(all.size()), solvers::All::size);  // every solver has its worked answer
  }
  void cpuOptimizerMatchesWorkedAnswers() {
    QFETCH(int, index);
    const Worked worked = workedAnswers()[size_t(index)];
    const auto opt = Optimizer::create(configOf(worked));
    Tensor w = tensorOf(kW0), g1 = tensorOf(kG1), g2 = tensorOf(kG2);
    const double lr = opt->baseLearningRate();
    const ParamSlot s1{"layer/W", &w, &g1};
    opt->step(std::span(&s1, 1), lr);
    std::vector<float> got(w.data(), w.data() + w.size());
    QString e = compareAll(worked.solver + " (CPU) step 1", got, worked.afterStep1);
    QVERIFY2(e.isEmpty(), qPrintable(e));
    const ParamSlot s2{"layer/W", &w, &g2};
    opt->step(std::span(&s2, 1), lr / 2);
    got.assign(w.data(), w.data() + w.size());
    e = compareAll(worked.solver + " (CPU) step 2", got, worked.afterStep2);
    QVERIFY2(e.isEmpty(), qPrintable(e));
  }

  void cudaBodyMatchesWorkedAnswers_data() { cpuOptimizerMatchesWorkedAnswers_data(); }
  void cudaBodyMatchesWorkedAnswers() {
    QFETCH(int, index);
    const Worked worked = workedAnswers()[size_t(index)];
    const auto config = Optimizer::create(configOf(worked));
    std::vector<float> w = kW0;
    std::vector<std::vector<float>> state;
    const double lr = config->baseLearningRate();
    const bool known = solvers::All::with(worked.solver, [&](auto s) {
      using S = decltype(s);
      cudaBodyStep<S>(*config, {&w}, {&kG1}, state, lr, 1);
      QString e = compareAll(worked.solver + " (CUDA body) step 1", w, worked.afterStep1);
      QVERIFY2(e.isEmpty(), qPrintable(e));
      cudaBodyStep<S>(*config, {&w}, {&kG2}, state, lr / 2, 2);
      e = compareAll(worked.solver + " (CUDA body) step 2", w, worked.afterStep2);
      QVERIFY2(e.isEmpty(), qPrintable(e));
    });
    QVERIFY(known);
  }

  // LAMB's ratio is per tensor. η 0.1, β1 0.9, β2 0.999, ε 0.5, bias correction, λ 0, γ_u 10;
  // at t = 1 the corrected means are m̂ = g and v̂ = g², so d = g / (|g| + ε): g = ±1.5 gives
  // d = ±0.75.
  //   A: w = [3, 4], ‖w‖ = 5, g = [1.5, −1.5]: ‖d‖ = 0.75·√2 = 1.060660172, ratio 5 / 1.060660172
  //      = 4.714045208; w ← w − 0.1·4.714045208·d = [3 − 0.353553391, 4 + 0.353553391]
  //   B: w = [12, 16, 0], ‖w‖ = 20 clamped to γ_u = 10, g = [−1.5, 1.5, 1.5]: ‖d‖ = 0.75·√3
  //      = 1.299038106, ratio 10 / 1.299038106 = 7.698003589; each moves by 0.1·7.698003589·0.75
  //      = 0.577350269: w ← [12.577350269, 15.422649731, −0.577350269]
  void lambTrustRatioIsPerTensor() {
    OptimizerConfig cfg;
    cfg.solver = "Lamb";
    cfg.hyper = {{"eta", 0.1}, {"eps", 0.5}, {"bias_correction", true}};
    const auto opt = Optimizer::create(cfg);
    const std::vector<double> wantA = {3 - 0.353553391, 4 + 0.353553391};
    const std::vector<double> wantB = {12.577350269, 15.422649731, -0.577350269};
    Tensor a = tensorOf({3, 4}), ga = tensorOf({1.5f, -1.5f}), b = tensorOf({12, 16, 0}), gb = tensorOf({-1.5f, 1.5f, 1.5f});
    const ParamSlot params[2] = {{"A", &a, &ga}, {"B", &b, &gb}};
    opt->step(params, 0.1);
    QString e = compareAll("Lamb (CPU) A", std::vector<float>(a.data(), a.data() + 2), wantA);
    QVERIFY2(e.isEmpty(), qPrintable(e));
    e = compareAll("Lamb (CPU) B", std::vector<float>(b.data(), b.data() + 3), wantB);
    QVERIFY2(e.isEmpty(), qPrintable(e));

    // The CUDA bodies, one chunk per tensor.
    std::vector<float> ha = {3, 4}, hb = {12, 16, 0};
    const std::vector<float> hga = {1.5f, -1.5f}, hgb = {-1.5f, 1.5f, 1.5f};
    std::vector<std::vector<float>> state;
    cudaBodyStep<solvers::lamb::Solver>(*opt, {&ha, &hb}, {&hga, &hgb}, state, 0.1, 1);
    e = compareAll("Lamb (CUDA body) A", ha, wantA);
    QVERIFY2(e.isEmpty(), qPrintable(e));
    e = compareAll("Lamb (CUDA body) B", hb, wantB);
    QVERIFY2(e.isEmpty(), qPrintable(e));

    // A tensor of zeros (a bias at its start) has φ = γ_l: 0 by default, so it stays (nnabla).
    Tensor z = tensorOf({0, 0}), gz = tensorOf({1, -1});
    const ParamSlot zs{"Z", &z, &gz};
    Optimizer::create(cfg)->step(std::span(&zs, 1), 0.1);
    QCOMPARE(z[0], 0.0f);
    QCOMPARE(z[1], 0.0f);
  }

  // Neural Network Console writes Lamb's parameters in lamb_param; bias_correction is a flag.
  void nnablaLambMaps() {
    nnabla_import::NnablaFile file;
    file.path = "lamb.nntxt";  // mapSettings resolves dataset paths from its folder
    nnabla_import::readNnablaText(file, R"(optimizer {
  name: "Optimizer"
  network_name: "Main"
  solver {
    type: "Lamb"
    lamb_param { eta: 0.002 beta1: 0.8 gamma_u: 5 bias_correction: true }
    weight_decay: 0.01
  }
})", "lamb.nntxt");
    const nnabla_import::NnablaSettings s = nnabla_import::mapSettings(file, "Main");
    QCOMPARE(QString::fromStdString(s.solver), QString("Lamb"));
    QCOMPARE(s.hyper["eta"].get<double>(), 0.002);
    QCOMPARE(s.hyper["gamma_u"].get<double>(), 5.0);
    QVERIFY(s.hyper["bias_correction"].is_boolean() && s.hyper["bias_correction"].get<bool>());
    QCOMPARE(*s.weightDecay, 0.01);
    Project p;
    s.apply(p);
    const auto opt = Optimizer::create(p.optimizer);
    QCOMPARE(opt->hyperParameters()["bias_correction"], Json(true));
    QCOMPARE(opt->baseLearningRate(), 0.002);
  }
};

QTEST_GUILESS_MAIN(TestSolverBodies)
#include "tst_solver_bodies.moc"
