// StepTimer: what a Network (and the Replica that steps it) reports to while a training step is
// profiled — implemented by the trainer's LayerProfiler (engine/train/profiler.h, Note [Layer
// profile]). An interface here, so the network, which the evaluator shares with the trainer,
// needs nothing of the trainer.
#pragma once

#include <chrono>

namespace netsmith {

enum class ProfilePhase { Data, Buckets, Optimizer };

class StepTimer {
 public:
  using Clock = std::chrono::steady_clock;

  // A training step. Between them the network times its nodes.
  virtual void beginStep() = 0;
  virtual void endStep(double allReduceWaitSeconds) = 0;

  // A point in the step: the host's clock, and the device's mark there (DeviceContext::mark(); -1
  // on a device without marks).
  struct Mark {
    Clock::time_point host{};
    int device = -1;
  };
  virtual Mark now() = 0;
  virtual void addForward(int node, Mark start) = 0;
  // countCall false: more time of a call already counted.
  virtual void addBackward(int node, Mark start, bool countCall = true) = 0;
  virtual void add(ProfilePhase phase, Mark start) = 0;

 protected:
  ~StepTimer() = default;
};

}  // namespace netsmith
