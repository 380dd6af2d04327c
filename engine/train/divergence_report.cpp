// The divergence report and its advice (Note [Divergence], divergence_guard.h).
#include "engine/train/divergence_report.h"

#include <cmath>
#include <iomanip>
#include <sstream>

#include "engine/core/error.h"
#include "engine/optim/optimizer.h"
#include "engine/solvers/solver_table.h"

namespace netsmith {
namespace divergence_report_helpers {

// x to 3 significant digits: advice gives round values.
double rounded(double x) {
  std::ostringstream out;
  out << std::setprecision(3) << x;
  return std::stod(out.str());
}

// The learning-rate key of the project's solver and its configured value (the solver's default when
// the project does not set it).
std::pair<std::string, double> configuredLearningRate(const OptimizerConfig& optimizer) {
  const SolverRow* row = findSolver(optimizer.solver);
  if (!row) return {"", 0};
  const std::string key = row->lrKey;
  const Json& hyper = optimizer.hyper;
  if (hyper.is_object() && hyper.contains(key) && hyper.at(key).is_number()) return {key, hyper.at(key).get<double>()};
  const Json defaults = Optimizer::defaultHyperParameters(optimizer.solver);
  return {key, defaults.value(key, 0.0)};
}

}  // namespace divergence_report_helpers

using namespace divergence_report_helpers;

protocol::Divergence explainDivergence(const DivergenceFacts& facts) {
  protocol::Divergence d;
  d.reason = facts.reason;
  d.epoch = facts.epoch;
  d.iteration = facts.iteration;
  d.globalIteration = facts.globalIteration;
  d.learningRate = facts.learningRate;
  if (facts.finding) {
    d.block = facts.finding->block;
    d.pass = facts.finding->pass;
    d.finding = facts.finding->finding;
  }
  // "Before it": the failing step's own gradient is the divergence's, not a norm to clip at.
  const GradientNorms& n = facts.norms;
  const bool failingStepLargest = n.steps > 0 && n.largestStep == n.steps;
  const double before = failingStepLargest ? n.largestBefore : n.largest;
  const int64_t beforeStep = failingStepLargest ? n.largestBeforeStep : n.largestStep;
  if (std::isfinite(before) && beforeStep > 0) {
    d.largestGradientNorm = before;
    d.largestGradientNormIteration = facts.firstGlobalIteration + beforeStep;
  }

  const Project* p = facts.project;
  if (facts.finding && facts.finding->pass == "forward" && facts.finding->finding.find("samples") != std::string::npos)
    d.advice.push_back("check the dataset: its samples are not finite numbers (dataset.scale, the files)");
  const double lr = facts.learningRate;
  std::string lower = format("lower the learning rate (now {}) to {}, a tenth", lr, rounded(lr / 10));
  if (p) {
    const auto [key, configured] = configuredLearningRate(p->optimizer);
    if (!key.empty() && configured > 0) lower += format(": optimizer.{} {}", key, rounded(configured / 10));
  }
  d.advice.push_back(lower);
  const double clip = p ? p->optimizer.clipGradientNorm : 0;
  if (clip > 0) {
    d.advice.push_back(format("clip gradients harder: optimizer.clip_gradient_norm {} (now {})", rounded(clip / 10), clip));
  } else if (std::isfinite(d.largestGradientNorm)) {
    d.advice.push_back(format("clip gradients: optimizer.clip_gradient_norm {} (the largest gradient norm before the "
                              "divergence)",
                              rounded(d.largestGradientNorm)));
  } else {
    d.advice.push_back("clip gradients: optimizer.clip_gradient_norm 1 (no step finished before the divergence to "
                       "measure a norm from)");
  }
  if (p && p->optimizer.warmupEpochs == 0)
    d.advice.push_back("use a warm-up: optimizer.warmup_epochs 1 starts the learning rate near 0 and raises it over "
                       "the first epoch");
  if (p && p->config.precision == "half")
    d.advice.push_back("in half precision, dynamic loss scaling keeps gradients in fp16's range but not activations "
                       "beyond 65504: try config.precision bfloat16 or float");
  return d;
}

std::string divergenceMessage(const protocol::Divergence& d) {
  std::string m = format("{} at epoch {}, iteration {} (global iteration {})", d.reason, d.epoch, d.iteration,
                         d.globalIteration);
  if (!d.block.empty())
    m += format("; it starts in the {} pass of block '{}': {}", d.pass == "parameters" ? "parameter" : d.pass, d.block,
                d.finding);
  else
    m += "; the diagnosis pass found no layer that reproduces it on the failing batch";
  if (std::isfinite(d.largestGradientNorm))
    m += format("; the largest gradient norm before it was {} (global iteration {})", rounded(d.largestGradientNorm),
                d.largestGradientNormIteration);
  m += "; advice: ";
  for (size_t i = 0; i < d.advice.size(); ++i) m += (i ? "; " : "") + d.advice[i];
  m += ". No checkpoint was written for this state, and the last one is kept to resume from";
  return m;
}

}  // namespace netsmith
