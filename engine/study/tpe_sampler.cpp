#include "engine/study/tpe_sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "engine/study/study_random.h"

namespace netsmith::study {

namespace {

constexpr double kPriorMean = 0.5;
constexpr double kPriorSigma = 1.0;

double normalCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// A mixture of Gaussians truncated to [0, 1]: one component per point, plus the prior.
class ParzenDensity {
 public:
  explicit ParzenDensity(std::vector<double> points) {
    std::sort(points.begin(), points.end());
    const double minSigma = 1.0 / std::min(100.0, 1.0 + static_cast<double>(points.size()));
    for (size_t i = 0; i < points.size(); ++i) {
      // The larger gap to a neighbour (the interval's ends count as neighbours).
      const double left = points[i] - (i == 0 ? 0.0 : points[i - 1]);
      const double right = (i + 1 == points.size() ? 1.0 : points[i + 1]) - points[i];
      m_means.push_back(points[i]);
      m_sigmas.push_back(std::clamp(std::max(left, right), minSigma, 1.0));
    }
    m_means.push_back(kPriorMean);
    m_sigmas.push_back(kPriorSigma);
    for (size_t k = 0; k < m_means.size(); ++k)
      m_mass.push_back(normalCdf((1.0 - m_means[k]) / m_sigmas[k]) - normalCdf(-m_means[k] / m_sigmas[k]));
  }

  double logDensity(double x) const {
    double sum = 0;
    for (size_t k = 0; k < m_means.size(); ++k) {
      const double z = (x - m_means[k]) / m_sigmas[k];
      sum += std::exp(-0.5 * z * z) / (m_sigmas[k] * std::sqrt(2 * M_PI) * m_mass[k]);
    }
    return std::log(sum / static_cast<double>(m_means.size()) + std::numeric_limits<double>::min());
  }

  double draw(StudyRandom& random) const {
    const size_t k = random.below(m_means.size());
    for (int tries = 0; tries < 100; ++tries) {
      const double x = m_means[k] + m_sigmas[k] * random.normal();
      if (x >= 0 && x <= 1) return x;
    }
    return std::clamp(m_means[k], 0.0, 1.0);
  }

 private:
  std::vector<double> m_means, m_sigmas, m_mass;
};

// Counts plus one per choice, as probabilities.
std::vector<double> choiceWeights(const SearchParameter& p, const std::vector<const Observation*>& trials, size_t index) {
  std::vector<double> w(p.choices.size(), 1.0);
  for (const Observation* o : trials)
    if (const auto c = p.choiceIndex(o->values[index])) w[*c] += 1;
  const double total = std::accumulate(w.begin(), w.end(), 0.0);
  for (double& x : w) x /= total;
  return w;
}

}  // namespace

TrialValues TpeSampler::suggest(int64_t trial, const std::vector<Observation>& observed) const {
  std::vector<const Observation*> usable;
  for (const Observation& o : observed)
    if (o.values.size() == m_parameters.size()) usable.push_back(&o);
  if (usable.size() < kStartupTrials) return drawUniform(m_parameters, m_seed, trial);

  // Best first; failed trials last; ties keep the order of the trials (stable).
  const auto key = [](const Observation* o) { return o->objective.value_or(std::numeric_limits<double>::infinity()); };
  std::stable_sort(usable.begin(), usable.end(), [&](auto* a, auto* b) { return key(a) < key(b); });
  const auto goodCount = std::max<size_t>(1, static_cast<size_t>(std::ceil(kGoodFraction * static_cast<double>(usable.size()))));
  const std::vector<const Observation*> good(usable.begin(), usable.begin() + static_cast<std::ptrdiff_t>(goodCount));
  const std::vector<const Observation*> bad(usable.begin() + static_cast<std::ptrdiff_t>(goodCount), usable.end());

  StudyRandom random(m_seed, static_cast<uint64_t>(trial), /*stream=*/2);
  std::vector<TrialValues> candidates(kCandidates, TrialValues(m_parameters.size()));
  std::vector<double> scores(kCandidates, 0.0);
  for (size_t i = 0; i < m_parameters.size(); ++i) {
    const SearchParameter& p = m_parameters[i];
    if (p.numeric()) {
      const auto units = [&](const std::vector<const Observation*>& trials) {
        std::vector<double> u;
        for (const Observation* o : trials)
          if (o->values[i].is_number()) u.push_back(p.toUnit(o->values[i].get<double>()));
        return u;
      };
      const ParzenDensity l(units(good)), g(units(bad));
      for (int c = 0; c < kCandidates; ++c) {
        const double x = l.draw(random);
        const Json value = p.fromUnit(x);
        candidates[static_cast<size_t>(c)][i] = value;
        // Scored where the value lands (an integer's share), as the trials are recorded.
        const double at = p.toUnit(value.get<double>());
        scores[static_cast<size_t>(c)] += l.logDensity(at) - g.logDensity(at);
      }
    } else {
      const auto l = choiceWeights(p, good, i), g = choiceWeights(p, bad, i);
      for (int c = 0; c < kCandidates; ++c) {
        double u = random.uniform();
        size_t k = 0;
        while (k + 1 < l.size() && u >= l[k]) u -= l[k++];
        candidates[static_cast<size_t>(c)][i] = p.choices[k];
        scores[static_cast<size_t>(c)] += std::log(l[k]) - std::log(g[k]);
      }
    }
  }
  const auto best = std::max_element(scores.begin(), scores.end()) - scores.begin();
  return candidates[static_cast<size_t>(best)];
}

}  // namespace netsmith::study
