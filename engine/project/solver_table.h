// The solvers of optimizer.solver and each one's hyper-parameters, declared once (issue 17 item 3):
// the project loader (which names optimizer.* may hold), the settings table (settings_table.h),
// the optimizer (engine/optim/optimizer.cpp: defaults and ranges) and the GUI's Optimizer panel
// read this list. The defaults are those of Neural Network Console / nnabla.
#pragma once

#include <string>
#include <vector>

namespace netsmith {

enum class SolverHyperRange {
  Positive,      // > 0
  NonNegative,   // >= 0
  UnitInterval,  // [0, 1)
};

struct SolverHyperParameter {
  const char* name;  // the key in the optimizer section: optimizer.<name>
  double defaultValue;
  SolverHyperRange range;
};

struct SolverRow {
  const char* name;   // optimizer.solver
  const char* lrKey;  // which hyper-parameter is the learning rate: "lr" or "alpha"
  std::vector<SolverHyperParameter> hyper;
};

const std::vector<SolverRow>& solverTable();
// The row of `solver`, or nullptr.
const SolverRow* findSolver(const std::string& solver);

}  // namespace netsmith
