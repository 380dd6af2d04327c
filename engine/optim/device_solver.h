// DeviceSolver: a solver's update on memory the host cannot touch (a GPU), made by a device kind
// (engine/devices/device_factory.h) and implemented by a backend (engine/backend/cuda/cuda_solver.h).
#pragma once

#include <cstdint>
#include <span>

#include "engine/optim/gradient_clip.h"
#include "engine/optim/optimizer.h"

namespace netsmith {

// A solver's update on device memory: the same element-wise maths as Optimizer (whose
// configuration it takes), fused into one kernel over all parameters. Only the worker's thread
// calls step(); pullState/pushState may also be called by the thread that owns the worker while
// the worker is idle.
class DeviceSolver {
 public:
  virtual ~DeviceSolver() = default;
  // slots: values and gradients in device memory; names as Optimizer::step takes them.
  virtual void step(std::span<const ParamSlot> slots, double lr) = 0;
  // Host view of the state: copies the device state (and the step count) into `host` ...
  virtual void pullState(Optimizer& host) = 0;
  // ... and back, after a caller may have replaced it (a checkpoint restore).
  virtual void pushState(const Optimizer& host) = 0;
  // The factor the loss gradient is multiplied by before backward (dynamic loss scaling in half
  // precision; step() divides it out); exactly 1 otherwise.
  virtual float lossScale() const { return 1.0f; }
  // Steps skipped because a reduced-precision gradient overflowed (dynamic loss scaling); 0 in float.
  virtual int64_t skippedSteps() const { return 0; }
  // Note [Gradient clipping]: from the next step on, scale the gradient (after the unscale of half
  // precision) to at most this global norm (0: off). Every step computes the norm on the device,
  // and skips the update when it is not finite.
  virtual void setClipNorm(double maxNorm) = 0;
  // The norms seen so far, read from the device: waits for the queued work, so call it while the
  // worker is idle or between steps, never once per step.
  virtual GradientNorms gradientNorms() = 0;
  // Note [Weight averaging]: an int in device memory, nonzero once the last step() has skipped its
  // update for a non-finite gradient (read by work queued after it); null when the solver has none.
  virtual const int* skipFlag() const { return nullptr; }
};

}  // namespace netsmith
