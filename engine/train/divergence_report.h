// The divergence report: the structured `divergence` object of the error and finished events
// (engine/protocol/events.h) and the failure message, with advice in words computed from the run
// (Note [Divergence], divergence_guard.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/optim/gradient_clip.h"
#include "engine/project/project.h"
#include "engine/protocol/events.h"
#include "engine/train/divergence_diagnosis.h"

namespace netsmith {

struct DivergenceFacts {
  std::string reason;  // the guard's words, without the position ("the training loss became inf")
  int64_t epoch = 0, iteration = 0, globalIteration = 0;  // 1-based
  double learningRate = 0;                                // of the failing iteration (effective)
  std::optional<DivergenceFinding> finding;               // the diagnosis pass' answer
  GradientNorms norms;                                    // the leader replica's, this session
  int64_t firstGlobalIteration = 0;  // the global iteration (0-based) this session's first step trained
  const Project* project = nullptr;  // its optimizer and precision settings
};

// The report, advice included: lower the learning rate (a tenth of the failing one, and the
// project value that gives it), clip gradients (at the largest norm seen before the failure),
// a warm-up when there is none, and in half precision what loss scaling cannot do.
protocol::Divergence explainDivergence(const DivergenceFacts& facts);

// The failure message of a report: one paragraph naming the iteration, the layer and pass, the
// largest gradient norm before it and the advice, and that the last checkpoint is kept.
std::string divergenceMessage(const protocol::Divergence& report);

}  // namespace netsmith
