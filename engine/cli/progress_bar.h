// ProgressBarSink: the terminal view of a training run — a progress bar with epoch, iteration,
// loss, samples/s and ETA, one summary line per epoch, warnings and errors.
#pragma once

#include <cstdio>

#include "engine/train/events.h"

namespace netsmith::cli {

class ProgressBarSink final : public EventSink {
 public:
  // interactive: redraw one line with '\r' (a terminal); otherwise print a line every 10%.
  ProgressBarSink(std::FILE* out, bool interactive) : m_out(out), m_interactive(interactive) {}
  // Reads the event with engine/protocol's reader; one it cannot read is a warning on stderr.
  void publish(const Json& event) override;

 private:
  void endBarLine();
  void showStarted(const protocol::StartedEvent& e);
  void showIteration(const protocol::IterationEvent& e);
  void showEpoch(const protocol::EpochEvent& e);
  void showFinished(const protocol::FinishedEvent& e);
  void showMessage(const char* kind, const std::string& message);
  void showPosition(const char* kind, const protocol::RunPosition& at);
  std::FILE* m_out;
  bool m_interactive;
  bool m_barOpen = false;
  int64_t m_maxEpoch = 0;
  int m_lastDecile = -1;
};

std::string formatDuration(double seconds);

}  // namespace netsmith::cli
