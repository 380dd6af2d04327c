#include "engine/train/tensorboard_sink.h"

#include "engine/core/error.h"
#include "engine/tensorboard/event_messages.h"

namespace netsmith::training {

tensorboard::HParams hparamsOf(const Json& hparams) {
  tensorboard::HParams out;
  if (hparams.is_null()) return out;
  NS_CHECK(hparams.is_object(), "hparams: expected an object of setting names and values, got {}", hparams.dump());
  for (const auto& [name, value] : hparams.items()) {
    if (value.is_boolean()) out[name] = value.get<bool>();
    else if (value.is_number()) out[name] = value.get<double>();
    else if (value.is_string()) out[name] = value.get<std::string>();
    else NS_THROW("hparams.{}: expected a number, a string or true/false, got {}", name, value.dump());
  }
  return out;
}

TensorBoardSink::TensorBoardSink(const std::filesystem::path& runDir, tensorboard::HParams hparams)
    : m_file(runDir, tensorboard::wallTimeNow()), m_hparams(std::move(hparams)) {
  if (m_hparams.empty()) return;
  const double now = tensorboard::wallTimeNow();
  m_file.write(tensorboard::experimentEvent(now, m_hparams, {std::begin(kTensorBoardMetrics), std::end(kTensorBoardMetrics)}));
  m_file.write(tensorboard::sessionStartInfoEvent(now, m_hparams));
}

void TensorBoardSink::giveUp(const Error& cause) {
  m_failed = true;
  throw SinkGaveUp(format("TensorBoard files are no longer written for this run: {}", cause.what()));
}

void TensorBoardSink::write(const std::string& event) {
  try {
    m_file.write(event);
  } catch (const Error& e) {
    giveUp(e);
  }
}

void TensorBoardSink::publish(const Json& json) {
  if (m_failed) return;
  protocol::Event event;
  try {
    event = protocol::eventFromJson(json);
  } catch (const Error& e) {
    // The engine's own events always read back; one that does not is reported, not a failed run.
    giveUp(e);
  }
  const double now = tensorboard::wallTimeNow();
  if (const auto* started = std::get_if<protocol::StartedEvent>(&event)) {
    m_scalars.of(event);
    // A resumed session: TensorBoard's reader drops what an earlier session wrote after the
    // checkpoint this one goes on from (a session killed later), which is trained again.
    if (started->resumed) write(tensorboard::sessionStartEvent(now, m_scalars.startStep() + 1));
    return;
  }
  if (const auto* finished = std::get_if<protocol::FinishedEvent>(&event)) {
    if (!m_hparams.empty() && (finished->status == "completed" || finished->status == "failed"))
      write(tensorboard::sessionEndInfoEvent(now, finished->status == "completed" ? tensorboard::SessionStatus::Success
                                                                                  : tensorboard::SessionStatus::Failure));
    return;
  }
  const std::optional<TensorBoardPoint> point = m_scalars.of(event);
  if (point && !point->scalars.empty()) write(tensorboard::scalarsEvent(now, point->step, point->scalars));
}

}  // namespace netsmith::training
