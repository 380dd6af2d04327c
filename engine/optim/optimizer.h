// Optimizer: the solvers of Neural Network Console / nnabla (one folder each under engine/solvers:
// Note [Solver folders]) applied to float32 parameters in place.
//
// Contract:
// - step() updates every slot once with the learning rate it is given (the scheduled value,
//   LearningRateSchedule::at); gradients are already averaged over the logical batch.
// - The update of one element depends only on that element, its gradient and its solver state
//   (LAMB's also on per-tensor sums added in a fixed order: Note [Trust ratio]), so results do
//   not depend on the number of OpenMP threads (bitwise).
// - Solver state is created, zeroed, for every slot on the first step; state is keyed by the
//   slot's name, so later steps must pass the same names (order may change).
// - stateTensors()/restoreState() round-trip the state exactly: a restored optimizer continues
//   bitwise like the one that was never stopped.
// - One optimizer per replica; an instance is not thread-safe (it uses OpenMP inside step()).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/core/tensor.h"
#include "engine/solvers/solver.h"

namespace netsmith {

using Json = nlohmann::json;
// The project's optimizer section (engine/project/project.h). Declared, not included, so the CUDA
// backend's fused solver, which takes an Optimizer, sees no project header.
struct OptimizerConfig;

// One learnable parameter: its name (e.g. "conv1/W"), its value (updated in place) and its
// gradient (same shape, averaged over the logical batch).
struct ParamSlot {
  std::string name;
  Tensor* value = nullptr;
  const Tensor* grad = nullptr;
  // The layer's lr_mult (Note [Frozen layers], engine/project/graph.h): this slot's update uses
  // lr × lrMult (Adam's α_t × lrMult, AdamW's decoupled decay too). 1 changes nothing, bit for bit.
  float lrMult = 1.0f;
};

class Optimizer {
 public:
  // (name, tensor) pairs; the tensors belong to whoever returned them.
  using StateList = std::vector<std::pair<std::string, const Tensor*>>;

  virtual ~Optimizer();

  // Validates cfg.solver, cfg.hyper and cfg.weightDecay and builds the solver. Errors name the
  // JSON path: "optimizer.beta3: unknown parameter of Adam (known: alpha, beta1, beta2, eps)".
  static std::unique_ptr<Optimizer> create(const OptimizerConfig& cfg);
  // Every solver folder's name, in folder order (Adagrad Adam AdamW Lamb Momentum ...).
  static const std::vector<std::string>& solverNames();
  // A solver's own hyper-parameters with their defaults ({"alpha": 0.001, "beta1": 0.9, ...});
  // empty for an unknown name. Editors (the GUI's Optimizer panel) show exactly these.
  static Json defaultHyperParameters(const std::string& solver);
  // The hyper-parameters a switch of optimizer.solver from `from` to `to` drops: `from`'s own that
  // `to` does not take (its defaults apply to the rest). The Optimizer panel's solver box and a
  // study's optimizer.solver setting both switch this way.
  static std::vector<std::string> hyperParametersDroppedBySwitch(const std::string& from, const std::string& to);

  const std::string& solverName() const { return m_solver; }
  // The solver's learning rate (its kLrKey: lr, alpha, eta), as configured or as set by
  // setBaseLearningRate.
  double baseLearningRate() const { return m_baseLr; }
  // The trainer sets the effective base after lr_policy (scale_lr: × devices). AdamW's decoupled
  // decay is scaled by lr / base, so the base must be the one the schedule starts from.
  void setBaseLearningRate(double lr);
  // L2 weight decay (g += wd·w), or the decoupled one of AdamW and LAMB (their kWeightDecay).
  double weightDecay() const { return m_weightDecay; }
  // Every hyper-parameter with its effective value, defaults filled ({"alpha": 0.001, ...}).
  Json hyperParameters() const;
  // The same as configured (the learning rate as configured, not the base), flags as 1 or 0: what
  // the solver's per-step scalars are computed from (the CUDA fused step's too).
  const solvers::HyperValues& hyperValues() const { return m_hyper; }

  // One update of every slot with learning rate `lr`. Throws Error when a slot's gradient or
  // state does not match its value's shape, or a slot has no state after the first step.
  void step(std::span<const ParamSlot> slots, double lr);
  // Number of steps taken (Adam's t).
  int64_t steps() const { return m_steps; }

  // The state as "<slot name>/<buffer>" tensors, sorted by name (Adam: "conv1/W/m",
  // "conv1/W/v"; Sgd: none). Pointers stay valid until the next step() or restoreState().
  StateList stateTensors() const;
  // Replaces the state by copies of `tensors` (as returned by stateTensors(), perhaps via a
  // checkpoint) and the step count. Errors name the tensor that does not belong to this solver.
  void restoreState(const StateList& tensors, int64_t steps);

  // Buffer names of this solver's state per parameter ("m", "v").
  const std::vector<std::string>& bufferNames() const { return m_buffers; }

  // A contiguous piece of one parameter, the unit of work of the solver kernels: value,
  // gradient and state buffers (bufferNames order; null where the solver has fewer).
  struct Piece {
    float* w;
    const float* g;
    float* s0;
    float* s1;
    int64_t n;
    float lrMult;  // the slot's
    int64_t slot;  // its index in step()'s slots (Note [Trust ratio]: the tensor it belongs to)
  };

 protected:
  Optimizer(std::string solver, solvers::HyperValues hyper, double baseLr, double weightDecay,
            std::vector<std::string> buffers);

  // Called once per step before update(), with the step's learning rate and t = steps() (>= 1).
  virtual void prepare(double lr, int64_t t) = 0;
  // Updates one piece; must be element-wise (see the contract above).
  virtual void update(const Piece& piece) const = 0;
  // A solver with per-tensor norms (Note [Trust ratio]) says so here; its step then runs
  // accumulate() on every piece (sums[0] = Σw², sums[1] = Σd² of the piece), tensorScale() once
  // per slot with its pieces' sums added in piece order, and apply() on every piece.
  virtual bool trustRatio() const { return false; }
  virtual void accumulate(const Piece& piece, double* sums) const {}
  virtual float tensorScale(double sumW2, double sumD2, float lrMult) const { return 0; }
  virtual void apply(const Piece& piece, float scale) const {}

 private:
  struct SlotState {
    std::vector<Tensor> buffers;  // bufferNames order, each the shape of the parameter
  };

  std::string m_solver;
  solvers::HyperValues m_hyper;
  double m_baseLr;
  double m_weightDecay;
  std::vector<std::string> m_buffers;
  std::map<std::string, SlotState> m_state;
  int64_t m_steps = 0;
  std::vector<Piece> m_pieces;  // step()'s work list, kept between steps
  std::vector<double> m_partials;    // two-pass solvers: each piece's Σw², Σd²
  std::vector<float> m_pieceScales;  // and its slot's scale
};

}  // namespace netsmith
