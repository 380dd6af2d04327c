// TensorBoardScalars: which figures of the run's events (docs/events.md) become which TensorBoard
// scalars, and at which step (Note [TensorBoard tags]).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/protocol/events.h"
#include "engine/tensorboard/event_messages.h"

namespace netsmith::training {

// Note [TensorBoard tags]
// The step of every scalar is the run's global iteration, so a resumed run's curves go on where
// they stopped and the per-iteration and per-epoch curves share one axis:
// - `iteration` events (at most ~20 a second), at their global_iteration: `loss/train_iteration`
//   (the logical batch's loss), `learning_rate`, `throughput/samples_per_s`, `time/iteration_ms`
//   (the wall time of an iteration since the previous point: logical batch / samples_per_s),
//   `memory/process_mb`, and per working device `device/<id>/utilization`, `.../memory_mb`,
//   `.../compute_ms`, `.../data_ms`, `.../sync_ms`, `.../wait_ms`, and on GPUs with NVML
//   `.../temperature_c`, `.../power_w`;
// - `epoch` events, at the global iteration where the epoch ends (epoch × iterations per epoch):
//   `loss/train` (the epoch's mean), `loss/validation`, `validation/error`, `time/epoch_s`, and
//   with the data-parallel summary `scaling/samples_per_s`, `scaling/communication_share`,
//   `scaling/data_share`, `scaling/sync_s`, `scaling/speedup_estimate`;
// - the `profile` event (train --profile), at the last step: `profile/iteration_ms` and per
//   worker `profile/<id>/step_ms`, `forward_ms`, `backward_ms`, `data_ms`, `buckets_ms`,
//   `optimizer_ms`, `allreduce_wait_ms`, `other_ms`.
// A figure that is not defined (null in the event: no validation set, a regression loss) is not
// written. TensorBoard groups charts by the part of the tag before the first '/'.
// The tags of the epoch's figures, which the HParams tab also shows (Note [TensorBoard HParams]).
inline constexpr const char* kTrainLossTag = "loss/train";
inline constexpr const char* kValidationLossTag = "loss/validation";
inline constexpr const char* kValidationErrorTag = "validation/error";

struct TensorBoardPoint {
  int64_t step = 0;
  std::vector<tensorboard::Scalar> scalars;
};

class TensorBoardScalars {
 public:
  // The scalars `event` gives, at their step; none for events without figures.
  std::optional<TensorBoardPoint> of(const protocol::Event& event);
  // The global iteration a resumed session starts from (set by `started`).
  int64_t startStep() const { return m_startStep; }
  // The last step any scalar was written at.
  int64_t lastStep() const { return m_lastStep; }

 private:
  TensorBoardPoint iteration(const protocol::IterationEvent& e) const;
  TensorBoardPoint epoch(const protocol::EpochEvent& e) const;
  TensorBoardPoint profile(const protocol::ProfileEvent& e) const;

  int64_t m_iterationsPerEpoch = 0;
  int64_t m_logicalBatch = 0;
  int64_t m_startStep = 0;
  int64_t m_lastStep = 0;
};

}  // namespace netsmith::training
