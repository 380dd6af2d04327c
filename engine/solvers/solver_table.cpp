#include "engine/solvers/solver_table.h"

#include "engine/solvers/solver_list.h"

namespace netsmith {

const std::vector<SolverRow>& solverTable() {
  static const std::vector<SolverRow> rows = [] {
    std::vector<SolverRow> out;
    solvers::All::forEach([&](auto s) {
      using S = decltype(s);
      SolverRow row{S::kName, S::kLrKey, {}, {}, S::kWeightDecay, S::kWeightDecayKey, solvers::hasTrustRatio<S>()};
      for (const SolverHyperParameter& h : S::kHyper) row.hyper.push_back(h);
      for (const char* b : S::kBuffers) row.buffers.emplace_back(b);
      out.push_back(std::move(row));
    });
    return out;
  }();
  return rows;
}

const SolverRow* findSolver(const std::string& solver) {
  for (const auto& row : solverTable())
    if (solver == row.name) return &row;
  return nullptr;
}

std::string solverNameList() {
  std::string s;
  for (const auto& row : solverTable()) s += (s.empty() ? "" : ", ") + std::string(row.name);
  return s;
}

}  // namespace netsmith
