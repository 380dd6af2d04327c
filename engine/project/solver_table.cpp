#include "engine/project/solver_table.h"

namespace netsmith {

const std::vector<SolverRow>& solverTable() {
  using enum SolverHyperRange;
  static const std::vector<SolverRow> rows = {
      {"Sgd", "lr", {{"lr", 0.001, Positive}}},
      {"Momentum", "lr", {{"lr", 0.01, Positive}, {"momentum", 0.9, UnitInterval}}},
      {"Nesterov", "lr", {{"lr", 0.01, Positive}, {"momentum", 0.9, UnitInterval}}},
      {"Adagrad", "lr", {{"lr", 0.01, Positive}, {"eps", 1e-8, Positive}}},
      {"RMSprop", "lr", {{"lr", 0.001, Positive}, {"decay", 0.9, UnitInterval}, {"eps", 1e-8, Positive}}},
      {"Adam", "alpha", {{"alpha", 0.001, Positive}, {"beta1", 0.9, UnitInterval}, {"beta2", 0.999, UnitInterval}, {"eps", 1e-8, Positive}}},
      // wd defaults to optimizer.weight_decay (Optimizer::create).
      {"AdamW",
       "alpha",
       {{"alpha", 0.001, Positive},
        {"beta1", 0.9, UnitInterval},
        {"beta2", 0.999, UnitInterval},
        {"eps", 1e-8, Positive},
        {"wd", 0.0, NonNegative}}}};
  return rows;
}

const SolverRow* findSolver(const std::string& solver) {
  for (const auto& row : solverTable())
    if (solver == row.name) return &row;
  return nullptr;
}

}  // namespace netsmith
