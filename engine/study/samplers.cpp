#include "engine/study/samplers.h"

#include "engine/core/error.h"
#include "engine/study/study_random.h"
#include "engine/study/tpe_sampler.h"

namespace netsmith::study {

std::string searchKindName(SearchKind kind) {
  switch (kind) {
    case SearchKind::Grid: return "grid";
    case SearchKind::Random: return "random";
    case SearchKind::Bayesian: return "bayes";
  }
  return "grid";
}

SearchKind parseSearchKind(const std::string& text, const std::string& what) {
  if (text == "grid") return SearchKind::Grid;
  if (text == "random") return SearchKind::Random;
  if (text == "bayes" || text == "bayesian" || text == "tpe") return SearchKind::Bayesian;
  NS_THROW("{}: expected grid, random or bayes, got '{}'", what, text);
}

TrialValues drawUniform(const std::vector<SearchParameter>& parameters, uint64_t seed, int64_t trial) {
  StudyRandom random(seed, static_cast<uint64_t>(trial), /*stream=*/1);
  TrialValues values;
  for (const SearchParameter& p : parameters) {
    if (p.numeric()) values.push_back(p.fromUnit(random.uniform()));
    else values.push_back(p.choices[random.below(p.choices.size())]);
  }
  return values;
}

namespace {

// Every combination of the listed values, the first parameter slowest (as the grid sweep always
// ran them).
class GridSampler final : public Sampler {
 public:
  explicit GridSampler(std::vector<SearchParameter> parameters) : m_parameters(std::move(parameters)) {}
  TrialValues suggest(int64_t trial, const std::vector<Observation>&) const override {
    TrialValues values(m_parameters.size());
    int64_t rest = trial;
    for (size_t i = m_parameters.size(); i-- > 0;) {
      const auto n = static_cast<int64_t>(m_parameters[i].choices.size());
      values[i] = m_parameters[i].choices[static_cast<size_t>(rest % n)];
      rest /= n;
    }
    return values;
  }
  std::optional<int64_t> size() const override {
    int64_t n = 1;
    for (const SearchParameter& p : m_parameters) n *= static_cast<int64_t>(p.choices.size());
    return n;
  }

 private:
  std::vector<SearchParameter> m_parameters;
};

class RandomSampler final : public Sampler {
 public:
  RandomSampler(std::vector<SearchParameter> parameters, uint64_t seed) : m_parameters(std::move(parameters)), m_seed(seed) {}
  TrialValues suggest(int64_t trial, const std::vector<Observation>&) const override {
    return drawUniform(m_parameters, m_seed, trial);
  }

 private:
  std::vector<SearchParameter> m_parameters;
  uint64_t m_seed;
};

}  // namespace

std::unique_ptr<Sampler> makeSampler(SearchKind kind, const std::vector<SearchParameter>& parameters, uint64_t seed) {
  NS_CHECK(!parameters.empty(), "a study needs at least one setting to search: --set KEY=V1,V2 or --range KEY=LOW..HIGH");
  switch (kind) {
    case SearchKind::Grid:
      for (const SearchParameter& p : parameters)
        NS_CHECK(!p.numeric(), "--range {}: a grid takes listed values only (--set {}=V1,V2,...); a range needs "
                 "--search random or --search bayes", p.path, p.path);
      return std::make_unique<GridSampler>(parameters);
    case SearchKind::Random: return std::make_unique<RandomSampler>(parameters, seed);
    case SearchKind::Bayesian: return std::make_unique<TpeSampler>(parameters, seed);
  }
  return nullptr;
}

}  // namespace netsmith::study
