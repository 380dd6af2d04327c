// TensorBoardSink: the run's TensorBoard event file, written from its events as they are
// published, beside events.jsonl (RunFiles adds it to the run's EventBus on the leader), so that
// `tensorboard --logdir PROJECT.runs` shows every run.
#pragma once

#include <filesystem>
#include <string>

#include "engine/core/error.h"
#include "engine/tensorboard/event_file.h"
#include "engine/tensorboard/hparams_messages.h"
#include "engine/train/events.h"
#include "engine/train/tensorboard_scalars.h"

namespace netsmith::training {

// Note [TensorBoard HParams]
// A run given settings to show (TrainOptions::hparams: a study's trial) also writes the HParams
// plugin's records, so TensorBoard's HParams tab lists the run with its settings beside its
// metrics: when the sink opens, the experiment (the settings' names and types; the metrics
// `validation/error`, `loss/validation`, `loss/train`) and the session's start (the settings'
// values, the start time); at `finished`, the session's end: completed gives STATUS_SUCCESS, failed
// STATUS_FAILURE. A stopped run writes no end: it is usually resumed, and TensorBoard keeps the
// first end (and the first start, and the first experiment) it reads for a run folder, whatever
// later files say. run.json keeps the settings (`hparams`), so a resumed run writes them again.
// TensorBoard shows one experiment for its whole logdir: runs whose settings have other names
// (another study) show the names of the experiment it met first.
inline constexpr const char* kTensorBoardMetrics[] = {kValidationErrorTag, kValidationLossTag, kTrainLossTag};

// TrainOptions::hparams as the plugin's values. Throws Error naming the setting when a value is
// not a number, a string or a bool, or when `hparams` is neither null nor an object.
tensorboard::HParams hparamsOf(const Json& hparams);

class TensorBoardSink final : public EventSink {
 public:
  // Opens a new event file in `runDir` (a resumed run adds one beside the earlier sessions';
  // TensorBoard reads a folder's files as one run) and writes the HParams experiment and session
  // start when `hparams` is not empty. Throws Error naming the file when it cannot be written.
  TensorBoardSink(const std::filesystem::path& runDir, tensorboard::HParams hparams);

  // Writes the event's scalars (Note [TensorBoard tags]) at once. A write that fails (a full disk)
  // throws SinkGaveUp once, which the bus reports as a warning; the run goes on without TensorBoard
  // files from then on.
  void publish(const Json& event) override;
  const std::filesystem::path& path() const { return m_file.path(); }

 private:
  void write(const std::string& event);
  // Writes nothing more and throws SinkGaveUp saying why.
  [[noreturn]] void giveUp(const Error& cause);

  tensorboard::EventFileWriter m_file;
  tensorboard::HParams m_hparams;
  TensorBoardScalars m_scalars;
  bool m_failed = false;
};

}  // namespace netsmith::training
