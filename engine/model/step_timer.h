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

  // The clock once the device has finished what was queued (a GPU: synchronize first).
  virtual Clock::time_point now() = 0;
  virtual void addForward(int node, Clock::time_point start) = 0;
  // countCall false: more time of a call already counted.
  virtual void addBackward(int node, Clock::time_point start, bool countCall = true) = 0;
  virtual void add(ProfilePhase phase, Clock::time_point start) = 0;

 protected:
  ~StepTimer() = default;
};

}  // namespace netsmith
