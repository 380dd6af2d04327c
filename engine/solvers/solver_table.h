// The solvers of optimizer.solver with their words, read from the solver folders (Note [Solver
// folders], solver.h): the project loader (which names optimizer.* may hold), the settings table
// (settings_table.h: one row per hyper-parameter key), the optimizer (defaults and ranges), the
// NNabla importer and the GUI's Optimizer panel read this table. The maths are read from the same
// folders through solver_list.h. The defaults are those of Neural Network Console / nnabla.
#pragma once

#include <string>
#include <vector>

#include "engine/solvers/solver.h"

namespace netsmith {

struct SolverRow {
  const char* name;   // optimizer.solver
  const char* lrKey;  // which hyper-parameter is the learning rate: "lr", "alpha", "eta"
  std::vector<SolverHyperParameter> hyper;
  std::vector<std::string> buffers;  // state buffers per parameter ("m", "v")
  SolverWeightDecay weightDecay;
  const char* weightDecayKey;  // another spelling of optimizer.weight_decay (AdamW's "wd"), or nullptr
  bool trustRatio;             // per-tensor norms (Note [Trust ratio])
};

// Every solver, in folder-name order.
const std::vector<SolverRow>& solverTable();
// The row of `solver`, or nullptr.
const SolverRow* findSolver(const std::string& solver);
// "Adagrad, Adam, ...": the names, for messages.
std::string solverNameList();

}  // namespace netsmith
