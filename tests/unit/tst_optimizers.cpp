// Solvers (update rules against double references, convergence, weight decay, state round trip)
// and learning-rate schedules.
#include <omp.h>

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numbers>

#include "engine/core/error.h"
#include "engine/core/rng.h"
#include "engine/optim/lr_schedule.h"
#include "engine/optim/optimizer.h"
#include "support/tensor_helpers.h"

using namespace netsmith;
using namespace netsmith::test;

namespace {

OptimizerConfig config(const std::string& solver, Json hyper = Json::object(), double weightDecay = 0.0) {
  OptimizerConfig cfg;
  cfg.solver = solver;
  cfg.hyper = std::move(hyper);
  cfg.weightDecay = weightDecay;
  return cfg;
}

Tensor tensorOf(const std::vector<double>& values) {
  Tensor t(Shape{int64_t(values.size())});
  for (size_t i = 0; i < values.size(); ++i) t[int64_t(i)] = float(values[i]);
  return t;
}


// ---------------------------------------------------------------------------------------------
// Double-precision references, written from the formulas of nnabla's solvers (one step each).

struct RefState {
  std::vector<double> a, b;  // the solver's state buffers
  int64_t t = 0;
};

void referenceStep(const std::string& solver, const std::map<std::string, double>& h, double wd, double base,
                   std::vector<double>& w, const std::vector<double>& grad, double lr, RefState& s) {
  const size_t n = w.size();
  if (s.a.empty()) s.a.assign(n, 0.0), s.b.assign(n, 0.0);
  ++s.t;
  if (solver == "Lamb") {  // one tensor: d = m̂ / (√v̂ + ε) + λ·w; w ← w − lr·φ(‖w‖)/‖d‖·d
    const double b1 = h.at("beta1"), b2 = h.at("beta2"), eps = h.at("eps");
    const double c1 = h.at("bias_correction") != 0 ? 1 - std::pow(b1, double(s.t)) : 1.0;
    const double c2 = h.at("bias_correction") != 0 ? 1 - std::pow(b2, double(s.t)) : 1.0;
    std::vector<double> d(n);
    double w2 = 0, d2 = 0;
    for (size_t i = 0; i < n; ++i) {
      s.a[i] = b1 * s.a[i] + (1 - b1) * grad[i];
      s.b[i] = b2 * s.b[i] + (1 - b2) * grad[i] * grad[i];
      d[i] = (s.a[i] / c1) / (std::sqrt(s.b[i] / c2) + eps) + wd * w[i];
      w2 += w[i] * w[i];
      d2 += d[i] * d[i];
    }
    const double phi = std::min(std::max(std::sqrt(w2), h.at("gamma_l")), h.at("gamma_u"));
    const double ratio = std::sqrt(d2) > eps ? phi / std::sqrt(d2) : 1.0;
    for (size_t i = 0; i < n; ++i) w[i] -= lr * ratio * d[i];
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    double g = grad[i];
    if (solver != "AdamW") g += wd * w[i];
    if (solver == "Sgd") {
      w[i] -= lr * g;
    } else if (solver == "Momentum") {  // v = μv − lr·g; w += v (PyTorch's sign)
      s.a[i] = h.at("momentum") * s.a[i] - lr * g;
      w[i] += s.a[i];
    } else if (solver == "Nesterov") {
      const double prev = s.a[i];
      s.a[i] = h.at("momentum") * prev - lr * g;
      w[i] += -h.at("momentum") * prev + (1 + h.at("momentum")) * s.a[i];
    } else if (solver == "Adagrad") {
      s.a[i] += g * g;
      w[i] -= lr * g / (std::sqrt(s.a[i]) + h.at("eps"));
    } else if (solver == "RMSprop") {
      s.a[i] = h.at("decay") * s.a[i] + (1 - h.at("decay")) * g * g;
      w[i] -= lr * g / (std::sqrt(s.a[i]) + h.at("eps"));
    } else {  // Adam, AdamW
      const double b1 = h.at("beta1"), b2 = h.at("beta2");
      s.a[i] = b1 * s.a[i] + (1 - b1) * g;
      s.b[i] = b2 * s.b[i] + (1 - b2) * g * g;
      const double alphaT = lr * std::sqrt(1 - std::pow(b2, double(s.t))) / (1 - std::pow(b1, double(s.t)));
      const double old = w[i];
      w[i] = old - alphaT * s.a[i] / (std::sqrt(s.b[i]) + h.at("eps"));
      if (solver == "AdamW") w[i] -= lr / base * wd * old;
    }
  }
}

// Every solver folder, in folder order (Note [Solver folders]).
const std::vector<std::string> kSolvers = {"Adagrad", "Adam", "AdamW", "Lamb", "Momentum", "Nesterov", "RMSprop", "Sgd"};

// Non-default hyper-parameters, so that a solver ignoring one would be caught.
Json testHyper(const std::string& solver) {
  if (solver == "Sgd") return {{"lr", 0.1}};
  if (solver == "Momentum" || solver == "Nesterov") return {{"lr", 0.05}, {"momentum", 0.8}};
  if (solver == "Adagrad") return {{"lr", 0.2}, {"eps", 1e-3}};
  if (solver == "RMSprop") return {{"lr", 0.01}, {"decay", 0.7}, {"eps", 1e-4}};
  if (solver == "Lamb")
    return {{"eta", 0.01}, {"beta1", 0.8}, {"beta2", 0.95}, {"eps", 1e-4}, {"gamma_l", 0.1}, {"gamma_u", 5.0},
            {"bias_correction", true}};
  return {{"alpha", 0.02}, {"beta1", 0.8}, {"beta2", 0.95}, {"eps", 1e-4}};
}

// Gradient of the quadratic 0.5·Σ a_i·(w_i − c_i)², a_i in [0.5, 2].
void quadraticGrad(const Tensor& w, Tensor& g, const Tensor& a, const Tensor& c) {
  for (int64_t i = 0; i < w.size(); ++i) g[i] = a[i] * (w[i] - c[i]);
}

double quadraticLoss(const Tensor& w, const Tensor& a, const Tensor& c) {
  double loss = 0;
  for (int64_t i = 0; i < w.size(); ++i) loss += 0.5 * a[i] * (double(w[i]) - c[i]) * (double(w[i]) - c[i]);
  return loss;
}

void runQuadratic(Optimizer& opt, Tensor& w, Tensor& g, const Tensor& a, const Tensor& c, int steps,
                  const std::string& name = "p") {
  for (int k = 0; k < steps; ++k) {
    quadraticGrad(w, g, a, c);
    const ParamSlot slot{name, &w, &g};
    opt.step(std::span(&slot, 1), opt.baseLearningRate());
  }
}

}  // namespace

class TestOptimizers : public QObject {
  Q_OBJECT

 private slots:
  void defaultsFollowNnabla() {
    const std::map<std::string, Json> expected = {
        {"Sgd", {{"lr", 0.001}}},
        {"Momentum", {{"lr", 0.01}, {"momentum", 0.9}}},
        {"Nesterov", {{"lr", 0.01}, {"momentum", 0.9}}},
        {"Adagrad", {{"lr", 0.01}, {"eps", 1e-8}}},
        {"RMSprop", {{"lr", 0.001}, {"decay", 0.9}, {"eps", 1e-8}}},
        {"Adam", {{"alpha", 0.001}, {"beta1", 0.9}, {"beta2", 0.999}, {"eps", 1e-8}}},
        {"AdamW", {{"alpha", 0.001}, {"beta1", 0.9}, {"beta2", 0.999}, {"eps", 1e-8}, {"wd", 0.0}}},
        {"Lamb",
         {{"eta", 0.001},
          {"beta1", 0.9},
          {"beta2", 0.999},
          {"gamma_l", 0.0},
          {"gamma_u", 10.0},
          {"eps", 1e-6},
          {"bias_correction", false}}}};
    QCOMPARE(Optimizer::solverNames(), kSolvers);
    for (const auto& [solver, hyper] : expected) {
      const auto opt = Optimizer::create(config(solver));
      QCOMPARE(opt->solverName(), solver);
      QVERIFY2(opt->hyperParameters() == hyper, (solver + ": " + opt->hyperParameters().dump()).c_str());
      const char* lrKey = hyper.contains("lr") ? "lr" : hyper.contains("alpha") ? "alpha" : "eta";
      QCOMPARE(opt->baseLearningRate(), hyper[lrKey].get<double>());
    }
  }

  void firstStepsMatchReference_data() {
    QTest::addColumn<QString>("solver");
    QTest::addColumn<double>("wd");
    for (const auto& s : kSolvers) {
      QTest::newRow(s.c_str()) << QString::fromStdString(s) << 0.0;
      QTest::newRow((s + " weight decay").c_str()) << QString::fromStdString(s) << 0.05;
    }
  }
  // Three steps with gradients of the quadratic and a changing learning rate, against the
  // double reference. 11 elements: two 4-float vectors and a scalar tail.
  void firstStepsMatchReference() {
    QFETCH(QString, solver);
    QFETCH(double, wd);
    const std::string name = solver.toStdString();
    const Json hyper = testHyper(name);
    const auto opt = Optimizer::create(config(name, hyper, wd));
    std::map<std::string, double> h;
    const Json effective = opt->hyperParameters();
    for (const auto& [k, v] : effective.items()) h[k] = v.is_boolean() ? double(v.get<bool>()) : v.get<double>();
    const double base = opt->baseLearningRate();

    const std::vector<double> init = {0.5, -1.25, 2.0, 0.0, 3.5, -0.75, 1e-3, -2.5, 0.125, 4.0, -3.0};
    const std::vector<double> centre = {1.0, 0.5, -1.0, 2.0, 0.0, 0.25, -0.5, 1.5, -2.0, 0.75, 1.0};
    Tensor w = tensorOf(init), g(w.shape()), a = tensorOf(std::vector<double>(init.size(), 1.5)),
           c = tensorOf(centre);
    std::vector<double> ref = init;
    RefState state;
    const double lrs[3] = {base, 0.5 * base, 0.8 * base};
    for (int k = 0; k < 3; ++k) {
      std::vector<double> grad(init.size());
      for (size_t i = 0; i < init.size(); ++i) grad[i] = 1.5 * (ref[i] - centre[i]);
      referenceStep(name, h, wd, base, ref, grad, lrs[k], state);
      quadraticGrad(w, g, a, c);
      const ParamSlot slot{"layer/W", &w, &g};
      opt->step(std::span(&slot, 1), lrs[k]);
      for (size_t i = 0; i < init.size(); ++i)
        QVERIFY2(std::abs(double(w[int64_t(i)]) - ref[i]) < 1e-6,
                 qPrintable(QString("%1 step %2 element %3: got %4, reference %5")
                                .arg(solver)
                                .arg(k + 1)
                                .arg(i)
                                .arg(double(w[int64_t(i)]), 0, 'g', 12)
                                .arg(ref[i], 0, 'g', 12)));
    }
    QCOMPARE(opt->steps(), int64_t(3));
  }

  void convergesOnQuadratic_data() {
    QTest::addColumn<QString>("solver");
    for (const auto& s : kSolvers) QTest::newRow(s.c_str()) << QString::fromStdString(s);
  }
  void convergesOnQuadratic() {
    QFETCH(QString, solver);
    const std::string name = solver.toStdString();
    const auto opt = Optimizer::create(config(name, testHyper(name)));
    Tensor w = randomTensor({37}, 1, -3, 3), g(Shape{37}), a = randomTensor({37}, 2, 0.5, 2),
           c = randomTensor({37}, 3, -1, 1);
    const double initial = quadraticLoss(w, a, c);
    runQuadratic(*opt, w, g, a, c, 1500);
    const double final = quadraticLoss(w, a, c);
    QVERIFY2(final < 1e-4 * initial, qPrintable(QString("%1: loss %2 -> %3").arg(solver).arg(initial).arg(final)));
  }

  void l2WeightDecayAddsToGradient() {
    // Sgd with wd: w ← w − lr·(g + wd·w).
    const auto opt = Optimizer::create(config("Sgd", {{"lr", 0.5}}, 0.1));
    Tensor w = tensorOf({2.0, -4.0}), g = tensorOf({0.0, 1.0});
    const ParamSlot slot{"w", &w, &g};
    opt->step(std::span(&slot, 1), 0.5);
    QCOMPARE(w[0], float(2.0 - 0.5 * 0.1 * 2.0));
    QCOMPARE(w[1], float(-4.0 - 0.5 * (1.0 - 0.4)));
  }

  void adamWDecaysDecoupledWithTheSchedule() {
    // With g = 0, m and v stay 0, so only the decoupled decay acts: w ← w·(1 − (lr/α)·wd).
    const auto opt = Optimizer::create(config("AdamW", {{"alpha", 0.01}}, 0.2));
    QCOMPARE(opt->weightDecay(), 0.2);
    Tensor w = tensorOf({1.0, -2.0}), g = tensorOf({0.0, 0.0});
    const ParamSlot slot{"w", &w, &g};
    opt->step(std::span(&slot, 1), 0.01);  // η = 1
    QCOMPARE(w[0], 1.0f - 0.2f * 1.0f);
    opt->step(std::span(&slot, 1), 0.005);  // η = 0.5
    QVERIFY(std::abs(w[0] - 0.8 * (1 - 0.1)) < 1e-7);
    QVERIFY(std::abs(w[1] - (-2.0 * 0.8 * 0.9)) < 1e-6);

    // The base follows setBaseLearningRate (lr_policy scale_lr): lr = 2·α is again η = 1.
    const auto scaled = Optimizer::create(config("AdamW", {{"alpha", 0.01}}, 0.2));
    scaled->setBaseLearningRate(0.02);
    Tensor w2 = tensorOf({1.0}), g2 = tensorOf({0.0});
    const ParamSlot slot2{"w", &w2, &g2};
    scaled->step(std::span(&slot2, 1), 0.02);
    QCOMPARE(w2[0], 0.8f);

    // wd written as AdamW's own parameter is the same value; two different values are an error.
    QCOMPARE(Optimizer::create(config("AdamW", {{"wd", 0.3}}))->weightDecay(), 0.3);
    QCOMPARE(Optimizer::create(config("AdamW", {{"wd", 0.3}}, 0.3))->weightDecay(), 0.3);
    const QString e = errorOf([] { Optimizer::create(config("AdamW", {{"wd", 0.3}}, 0.1)); });
    QVERIFY2(e.contains("optimizer.wd") && e.contains("optimizer.weight_decay"), qPrintable(e));

    // Adam with the same weight decay is L2 instead: with g = 0 the first step moves w by ~α.
    const auto adam = Optimizer::create(config("Adam", {{"alpha", 0.01}}, 0.2));
    Tensor w3 = tensorOf({1.0}), g3 = tensorOf({0.0});
    const ParamSlot slot3{"w", &w3, &g3};
    adam->step(std::span(&slot3, 1), 0.01);
    QVERIFY(std::abs(w3[0] - (1.0 - 0.01)) < 1e-6);
  }

  void hyperParameterErrors() {
    QString e = errorOf([] { Optimizer::create(config("Adam", {{"beta3", 0.9}})); });
    QVERIFY2(e.contains("optimizer.beta3: unknown parameter of Adam (known: alpha, beta1, beta2, eps)"),
             qPrintable(e));
    e = errorOf([] { Optimizer::create(config("Sgd", {{"alpha", 0.1}})); });
    QVERIFY2(e.contains("optimizer.alpha: unknown parameter of Sgd (known: lr)"), qPrintable(e));
    e = errorOf([] { Optimizer::create(config("Sgd", {{"lr", -0.1}})); });
    QVERIFY2(e.contains("optimizer.lr: expected a positive number, got -0.1"), qPrintable(e));
    e = errorOf([] { Optimizer::create(config("Momentum", {{"lr", "fast"}})); });
    QVERIFY2(e.contains("optimizer.lr: expected a number, got \"fast\""), qPrintable(e));
    e = errorOf([] { Optimizer::create(config("Momentum", {{"momentum", 1.0}})); });
    QVERIFY2(e.contains("optimizer.momentum") && e.contains("[0, 1)"), qPrintable(e));
    e = errorOf([] { Optimizer::create(config("Adam", {{"eps", 0}})); });
    QVERIFY2(e.contains("optimizer.eps"), qPrintable(e));
    e = errorOf([] { Optimizer::create(config("Sgd", Json::object(), -1e-4)); });
    QVERIFY2(e.contains("optimizer.weight_decay"), qPrintable(e));
    // LAMB's keys and ranges come from its folder, with the same messages.
    e = errorOf([] { Optimizer::create(config("Lamb", {{"beta1", 1.5}})); });
    QVERIFY2(e.contains("optimizer.beta1: expected a number in [0, 1), got 1.5"), qPrintable(e));
    e = errorOf([] { Optimizer::create(config("Lamb", {{"gamma_u", 0}})); });
    QVERIFY2(e.contains("optimizer.gamma_u: expected a positive number, got 0"), qPrintable(e));
    e = errorOf([] { Optimizer::create(config("Lamb", {{"bias_correction", 1}})); });
    QVERIFY2(e.contains("optimizer.bias_correction: expected true or false, got 1"), qPrintable(e));
    e = errorOf([] { Optimizer::create(config("Lamb", {{"alpha", 0.1}})); });
    QVERIFY2(e.contains("optimizer.alpha: unknown parameter of Lamb (known: eta, beta1, beta2, gamma_l, gamma_u, eps, "
                        "bias_correction)"),
             qPrintable(e));
    e = errorOf([] { Optimizer::create(config("Adamax")); });
    QVERIFY2(e.contains("optimizer.solver: unknown solver 'Adamax'") && e.contains("RMSprop"), qPrintable(e));
  }

  void stepErrors() {
    const auto opt = Optimizer::create(config("Adam"));
    Tensor w(Shape{2, 3}), g(Shape{3, 2}), ok(Shape{2, 3});
    w.zero(), g.zero(), ok.zero();
    const ParamSlot bad{"conv1/W", &w, &g};
    QString e = errorOf([&] { opt->step(std::span(&bad, 1), 0.001); });
    QVERIFY2(e.contains("conv1/W") && e.contains("3,2") && e.contains("2,3"), qPrintable(e));
    QCOMPARE(opt->steps(), int64_t(0));
    const ParamSlot good{"conv1/W", &w, &ok};
    opt->step(std::span(&good, 1), 0.001);
    const ParamSlot late{"conv2/W", &w, &ok};  // a parameter the state does not know
    e = errorOf([&] { opt->step(std::span(&late, 1), 0.001); });
    QVERIFY2(e.contains("conv2/W") && e.contains("no Adam state"), qPrintable(e));
    e = errorOf([&] { opt->step(std::span(&good, 1), -1.0); });
    QVERIFY2(e.contains("learning rate"), qPrintable(e));
  }

  void stateNamesAndRestoreErrors() {
    const auto adam = Optimizer::create(config("Adam"));
    Tensor w = tensorOf({1, 2}), g = tensorOf({0.1, 0.2});
    const ParamSlot params[2] = {{"conv1/W", &w, &g}, {"affine/b", &w, &g}};
    adam->step(params, 0.001);
    QStringList names;
    for (const auto& [n, t] : adam->stateTensors()) names << QString::fromStdString(n);
    QCOMPARE(names, (QStringList{"affine/b/m", "affine/b/v", "conv1/W/m", "conv1/W/v"}));
    QVERIFY(Optimizer::create(config("Sgd"))->stateTensors().empty());

    const Tensor t = tensorOf({0, 0}), other = tensorOf({0, 0, 0});
    QString e = errorOf([&] { adam->restoreState({{"conv1/W/q", &t}}, 1); });
    QVERIFY2(e.contains("conv1/W/q") && e.contains("m|v"), qPrintable(e));
    e = errorOf([&] { adam->restoreState({{"conv1/W/m", &t}}, 1); });
    QVERIFY2(e.contains("conv1/W/v") && e.contains("missing"), qPrintable(e));
    e = errorOf([&] { adam->restoreState({{"conv1/W/m", &t}, {"conv1/W/v", &other}}, 1); });
    QVERIFY2(e.contains("shape"), qPrintable(e));
    e = errorOf([&] { Optimizer::create(config("Sgd"))->restoreState({{"w/m", &t}}, 1); });
    QVERIFY2(e.contains("keeps no state"), qPrintable(e));
    // A failed restore leaves the optimizer as it was.
    QCOMPARE(adam->steps(), int64_t(1));
    QCOMPARE(adam->stateTensors().size(), size_t(4));
  }

  void restoredStateContinuesBitwise_data() {
    QTest::addColumn<QString>("solver");
    for (const auto& s : kSolvers) QTest::newRow(s.c_str()) << QString::fromStdString(s);
  }
  // Steps 1-5 on one optimizer, then its state (copied, as a checkpoint would) goes into a new
  // optimizer; both take steps 6-10 and must agree bit for bit. The big parameter spans several
  // pieces and runs the parallel path.
  void restoredStateContinuesBitwise() {
    QFETCH(QString, solver);
    const std::string name = solver.toStdString();
    const OptimizerConfig cfg = config(name, testHyper(name), 1e-3);
    const auto first = Optimizer::create(cfg);
    Tensor w1 = randomTensor({70001}, 4), b1 = randomTensor({7}, 5);
    std::vector<Tensor> grads;
    for (int k = 0; k < 20; ++k) grads.push_back(randomTensor({70001}, 100 + k)), grads.push_back(randomTensor({7}, 200 + k));
    auto stepWith = [&](Optimizer& opt, Tensor& w, Tensor& b, int k) {
      const ParamSlot params[2] = {{"conv/W", &w, &grads[size_t(2 * k)]}, {"conv/b", &b, &grads[size_t(2 * k + 1)]}};
      opt.step(params, opt.baseLearningRate() * (1.0 - 0.03 * k));
    };
    for (int k = 0; k < 5; ++k) stepWith(*first, w1, b1, k);

    std::vector<std::pair<std::string, Tensor>> saved;
    for (const auto& [n, t] : first->stateTensors()) saved.emplace_back(n, t->clone());
    Optimizer::StateList restoredList;
    for (const auto& [n, t] : saved) restoredList.emplace_back(n, &t);
    const auto second = Optimizer::create(cfg);
    second->restoreState(restoredList, first->steps());
    Tensor w2 = w1.clone(), b2 = b1.clone();

    for (int k = 5; k < 10; ++k) {
      stepWith(*first, w1, b1, k);
      stepWith(*second, w2, b2, k);
    }
    QVERIFY(bitwiseEqual(w1, w2));
    QVERIFY(bitwiseEqual(b1, b2));
    QCOMPARE(second->steps(), int64_t(10));
    const auto s1 = first->stateTensors(), s2 = second->stateTensors();
    QCOMPARE(s1.size(), s2.size());
    for (size_t i = 0; i < s1.size(); ++i) {
      QCOMPARE(s1[i].first, s2[i].first);
      QVERIFY(bitwiseEqual(*s1[i].second, *s2[i].second));
    }
  }

  void resultDoesNotDependOnThreads() {
    Tensor w1 = randomTensor({200003}, 7), g = randomTensor({200003}, 8);
    Tensor w4 = w1.clone();
    for (const std::string& solver : kSolvers) {
      const auto one = Optimizer::create(config(solver)), four = Optimizer::create(config(solver));
      const ParamSlot s1{"w", &w1, &g}, s4{"w", &w4, &g};
      omp_set_num_threads(1);
      for (int k = 0; k < 3; ++k) one->step(std::span(&s1, 1), one->baseLearningRate());
      omp_set_num_threads(4);
      for (int k = 0; k < 3; ++k) four->step(std::span(&s4, 1), four->baseLearningRate());
      QVERIFY2(bitwiseEqual(w1, w4), solver.c_str());
    }
  }

  // ---- learning-rate schedules ----

  void multiplierAndInterval() {
    OptimizerConfig cfg;
    cfg.lrMultiplier = 0.5;
    cfg.lrUpdateInterval = 10;
    const LearningRateSchedule s(cfg, 0.1, 100, 5);
    QCOMPARE(s.at(0), 0.1);
    QCOMPARE(s.at(9), 0.1);
    QCOMPARE(s.at(10), 0.05);
    QCOMPARE(s.at(25), 0.025);
    QCOMPARE(s.at(499), 0.1 * std::pow(0.5, 49));
    cfg.lrMultiplier = 1.0;
    const LearningRateSchedule flat(cfg, 0.1, 100, 5);
    QCOMPARE(flat.at(321), 0.1);
  }

  void warmupRampsLinearly() {
    OptimizerConfig cfg;
    cfg.warmupEpochs = 2;
    const LearningRateSchedule s(cfg, 0.2, 10, 5);
    QCOMPARE(s.warmupIterations(), int64_t(20));
    QCOMPARE(s.at(0), 0.2 / 20);
    QCOMPARE(s.at(9), 0.2 * 10 / 20);
    QCOMPARE(s.at(19), 0.2);
    QCOMPARE(s.at(20), 0.2);
    QCOMPARE(s.at(49), 0.2);
    cfg.warmupEpochs = 0.25;  // fractional epochs round to whole iterations
    QCOMPARE(LearningRateSchedule(cfg, 0.2, 10, 5).warmupIterations(), int64_t(3));
  }

  void cosineSchedule() {
    OptimizerConfig cfg;
    cfg.lrSchedule = "cosine";
    const LearningRateSchedule s(cfg, 1.0, 10, 10);  // 100 iterations
    QCOMPARE(s.at(0), 1.0);
    QVERIFY(std::abs(s.at(25) - 0.5 * (1 + std::cos(std::numbers::pi / 4))) < 1e-15);
    QVERIFY(std::abs(s.at(50) - 0.5) < 1e-15);
    QVERIFY(s.at(99) > 0 && s.at(99) < 1e-3);
    QVERIFY(s.at(100) < 1e-15);
    // After a warm-up of one epoch, the cosine spans the remaining 90 iterations.
    cfg.warmupEpochs = 1;
    const LearningRateSchedule w(cfg, 1.0, 10, 10);
    QCOMPARE(w.at(4), 0.5);
    QCOMPARE(w.at(10), 1.0);
    QVERIFY(std::abs(w.at(55) - 0.5) < 1e-15);
  }

  void stepSchedule() {
    OptimizerConfig cfg;
    cfg.lrSchedule = "step";  // defaults: step_epochs 2, gamma 0.5
    const LearningRateSchedule s(cfg, 1.0, 10, 10);
    QCOMPARE(s.at(19), 1.0);
    QCOMPARE(s.at(20), 0.5);
    QCOMPARE(s.at(39), 0.5);
    QCOMPARE(s.at(40), 0.25);
    cfg.scheduleParams = {{"step_epochs", 3}, {"gamma", 0.1}};
    const LearningRateSchedule t(cfg, 1.0, 10, 10);
    QCOMPARE(t.at(29), 1.0);
    QVERIFY(std::abs(t.at(30) - 0.1) < 1e-15);
    QVERIFY(std::abs(t.at(65) - 0.01) < 1e-15);
  }

  void exponentialScheduleAndMultiplierCombine() {
    OptimizerConfig cfg;
    cfg.lrSchedule = "exponential";  // default gamma 0.9
    const LearningRateSchedule s(cfg, 1.0, 10, 10);
    QCOMPARE(s.at(9), 1.0);
    QVERIFY(std::abs(s.at(10) - 0.9) < 1e-15);
    QVERIFY(std::abs(s.at(25) - 0.81) < 1e-15);
    cfg.lrMultiplier = 0.5;
    cfg.lrUpdateInterval = 50;
    cfg.scheduleParams = {{"gamma", 0.8}};
    const LearningRateSchedule m(cfg, 2.0, 10, 10);
    QVERIFY(std::abs(m.at(55) - 2.0 * 0.5 * std::pow(0.8, 5)) < 1e-15);
    // Step and exponential count epochs from the end of the warm-up.
    cfg.lrMultiplier = 1;
    cfg.warmupEpochs = 1;
    const LearningRateSchedule w(cfg, 1.0, 10, 10);
    QCOMPARE(w.at(19), 1.0);
    QVERIFY(std::abs(w.at(20) - 0.8) < 1e-15);
  }

  void scheduleErrors() {
    auto errorFor = [](const std::function<void(OptimizerConfig&)>& edit) {
      OptimizerConfig cfg;
      edit(cfg);
      return errorOf([&] { LearningRateSchedule(cfg, 0.1, 10, 10); });
    };
    QString e = errorFor([](OptimizerConfig& c) { c.lrSchedule = "step", c.scheduleParams = {{"step_epochs", 0}}; });
    QVERIFY2(e.contains("optimizer.step_epochs: expected an integer >= 1"), qPrintable(e));
    e = errorFor([](OptimizerConfig& c) { c.lrSchedule = "step", c.scheduleParams = {{"step_epochs", 1.5}}; });
    QVERIFY2(e.contains("optimizer.step_epochs"), qPrintable(e));
    e = errorFor([](OptimizerConfig& c) { c.lrSchedule = "step", c.scheduleParams = {{"gamma", 0}}; });
    QVERIFY2(e.contains("optimizer.gamma: expected a number in (0, 1]"), qPrintable(e));
    e = errorFor([](OptimizerConfig& c) { c.lrSchedule = "cosine", c.scheduleParams = {{"gamma", 0.5}}; });
    QVERIFY2(e.contains("optimizer.gamma: not a parameter of the 'cosine' learning-rate schedule"), qPrintable(e));
    e = errorFor([](OptimizerConfig& c) { c.lrSchedule = "exponential", c.scheduleParams = {{"step_epochs", 2}}; });
    QVERIFY2(e.contains("optimizer.step_epochs") && e.contains("(known: gamma)"), qPrintable(e));
    e = errorFor([](OptimizerConfig& c) { c.lrSchedule = "linear"; });
    QVERIFY2(e.contains("optimizer.lr_schedule: unknown schedule 'linear'"), qPrintable(e));
    e = errorFor([](OptimizerConfig& c) { c.lrUpdateInterval = 0; });
    QVERIFY2(e.contains("optimizer.lr_update_interval"), qPrintable(e));
    e = errorFor([](OptimizerConfig& c) { c.lrMultiplier = -1; });
    QVERIFY2(e.contains("optimizer.lr_multiplier"), qPrintable(e));
    e = errorFor([](OptimizerConfig& c) { c.warmupEpochs = -1; });
    QVERIFY2(e.contains("optimizer.warmup_epochs"), qPrintable(e));
    OptimizerConfig ok;
    ok.lrSchedule = "step";
    ok.scheduleParams = {{"step_epochs", 4}, {"gamma", 1}};
    LearningRateSchedule::validate(ok);
  }
};

QTEST_GUILESS_MAIN(TestOptimizers)
#include "tst_optimizers.moc"
