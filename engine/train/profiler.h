// LayerProfiler (one worker) and RunProfile (the run): where a training step's time goes, per
// node and per layer type, forward and backward, and the step's other phases —
// `netsmith-cli train --profile`, the run folder's profile.json and the `profile` event.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "engine/model/step_timer.h"
#include "engine/train/events.h"
#include "engine/train/parallel_plan.h"

namespace netsmith {

class DeviceContext;
class Network;
class Replica;

// Note [Layer profile]
// A profile costs nothing when it is off: Network holds a null profiler pointer and tests it once
// per node; Replica's step tests it at the step's start and end, around the data gather and
// around the optimizer step. When on (TrainOptions::profile), each worker's Network times:
//   - every node's forward and backward kernel call (in backward also the zero-fill of a node
//     nothing depends on and the addition of a fanned-out gradient);
//   - "data": Replica's gatherBatch (host), building the loss target and copying the batch and
//     target into the Input node's memory;
//   - "buckets": backward's per-node hand-off to the all-reduce (copies into gradient buckets;
//     nothing on one worker);
//   - the optimizer step, the all-reduce wait (StepFigures::waitSeconds: the reduced gradients and
//     running statistics, slowest worker included) and the step itself (Replica::trainStep).
// "other" is the step less all of these: the loss sum, the loss gradient's fill, the reproducible
// mode's chunk-tree copies. The trainer adds the iteration it measures around the workers' steps
// (thread hand-off, the workers' reports, events), so time outside the steps shows too.
// Steady state: the first kProfileWarmupIterations iterations of the session (primitive
// creation, first-touch memory, caches) are timed but dropped. Only training steps are timed,
// not validation. On the CPU a node's wall time is its time (oneDNN's CPU stream returns when
// the primitive has run). A GPU queues kernels and returns: Note [Device-clock profile]. Under
// mpirun the leader profiles its own workers.
//
// Note [Device-clock profile]
// On a GPU every timed section is bracketed by marks on the compute stream (CUDA timed events:
// DeviceContext::mark()), and the profiler waits once, at the step's end, then reads the device's
// time between each section's marks. So a profiled step queues as an unprofiled one does (it only
// adds that one wait), the figures are the device's own, and the device's time between sections
// shows too: `between_sections_ms`, the device idle while the host had not yet queued the next
// section (host stalls, launch gaps), waiting on the all-reduce, or running untimed work (the loss
// gradient's fill). The step is the device's time from the step's first mark to its last. Data
// stays a host figure (gathering the batch is the host's work; the device idles meanwhile only
// when nothing else is queued, and that idle time is between sections).

inline constexpr int kProfileWarmupIterations = 5;

class LayerProfiler final : public StepTimer {
 public:

  // Attaches itself to `network` (Network::profiler()); detaches when destroyed.
  LayerProfiler(Network& network, int warmupIterations);
  ~LayerProfiler();
  LayerProfiler(const LayerProfiler&) = delete;
  LayerProfiler& operator=(const LayerProfiler&) = delete;

  // A training step (StepProfile). Between them the network times its nodes.
  void beginStep() override;
  void endStep(double allReduceWaitSeconds) override;

  // The host's clock, and on a GPU a mark queued on its stream (Note [Device-clock profile]).
  Mark now() override;
  void addForward(int node, Mark start) override;
  // countCall false: more time of a call already counted.
  void addBackward(int node, Mark start, bool countCall) override;
  void add(ProfilePhase phase, Mark start) override;

  // This worker's profile (ms per profiled iteration): Note [Layer profile].
  Json toJson(const DevicePlan& worker) const;
  int64_t profiledSteps() const { return m_profiled; }
  // Steps timed by every profiler of the process so far: 0 unless a run profiled (tests).
  static int64_t stepsTimed() { return s_stepsTimed.load(); }

 private:
  void reset();

  Network& m_network;
  DeviceContext& m_device;
  const bool m_deviceClock;  // a device that queues work: Note [Device-clock profile]
  // The step's sections on the device clock, in queue order, resolved at its end.
  enum class Section { Forward, Backward, Phase };
  struct Pending {
    Section section;
    int index;  // node, or ProfilePhase
    int start, end;  // device marks
    bool countCall;
  };
  std::vector<Pending> m_pending;
  double m_betweenSections = 0;  // device seconds between sections, summed over the counted steps
  void resolveDeviceStep(int stepEnd);
  const int m_warmup;
  int64_t m_steps = 0;     // steps begun
  int64_t m_profiled = 0;  // steps counted (after the warm-up)
  Mark m_stepStart;
  // Seconds and calls per node, summed over the counted steps.
  std::vector<double> m_forward, m_backward;
  std::vector<int64_t> m_forwardCalls, m_backwardCalls;
  double m_phase[3] = {0, 0, 0};
  double m_wait = 0, m_step = 0;
  static std::atomic<int64_t> s_stepsTimed;
};

// Times a training step of Replica: begins it when constructed, ends it when destroyed, reading
// the step's all-reduce wait from `figures` then. Does nothing when `profiler` is null.
template <class Figures>
class StepProfile {
 public:
  StepProfile(StepTimer* profiler, const Figures& figures) : m_profiler(profiler), m_figures(figures) {
    if (m_profiler) m_profiler->beginStep();
  }
  ~StepProfile() {
    if (m_profiler) m_profiler->endStep(m_figures.waitSeconds);
  }
  StepProfile(const StepProfile&) = delete;
  StepProfile& operator=(const StepProfile&) = delete;

 private:
  StepTimer* m_profiler;
  const Figures& m_figures;
};

// Runs f(), timed as `phase` when profiling.
template <class F>
void profiled(StepTimer* profiler, ProfilePhase phase, F&& f) {
  if (!profiler) {
    f();
    return;
  }
  const auto start = profiler->now();
  f();
  profiler->add(phase, start);
}

// The run's profile: one LayerProfiler per worker of this process, and the iterations the
// trainer measures around the workers' steps.
class RunProfile {
 public:
  RunProfile(std::vector<std::unique_ptr<Replica>>& replicas, std::vector<DevicePlan> workers,
             int warmupIterations = kProfileWarmupIterations);
  ~RunProfile();

  // One training iteration as the trainer measured it (all workers' steps and what surrounds them).
  void iterationDone(double seconds);
  // profile.json's content and the `profile` event's keys (docs/events.md).
  Json toJson() const;
  // Writes <runDir>/profile.json and publishes the `profile` event; a failed write is a warning.
  void publish(EventBus& bus, const std::filesystem::path& runDir) const;

 private:
  std::vector<std::unique_ptr<LayerProfiler>> m_workers;
  std::vector<DevicePlan> m_plans;
  int m_warmup;
  int64_t m_iterations = 0;  // iterations seen
  int64_t m_profiled = 0;    // counted (after the warm-up)
  double m_iterationSeconds = 0;
};

// The profile as a table (what `netsmith-cli train --profile` prints), from toJson()'s object.
std::string profileTable(const Json& profile);

}  // namespace netsmith
