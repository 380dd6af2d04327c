// The tensorboard.Event records an event file holds (TensorBoard's event.proto and summary.proto),
// each returned serialized, ready for frameRecord (records.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace netsmith::tensorboard {

// What TensorBoard reads as the format of the records that follow.
inline constexpr const char* kFileVersion = "brain.Event:2";

struct Scalar {
  std::string tag;  // "loss/train": TensorBoard groups charts by the part before the first '/'
  float value = 0;
};

// Event{wall_time, file_version}: the first record of every event file.
std::string fileVersionEvent(double wallTime);

// Event{wall_time, step, summary{value[]{tag, simple_value}}}: scalars at one step.
std::string scalarsEvent(double wallTime, int64_t step, const std::vector<Scalar>& scalars);

// Event{wall_time, step, session_log{status: START}}: a new session of the run (a resume) goes on
// from `step`. TensorBoard's reader then drops what earlier sessions wrote at steps from `step`
// on: the figures of a session killed after its last checkpoint, which the resume trains again.
std::string sessionStartEvent(double wallTime, int64_t step);

// Event{wall_time, step, summary{value{tag, metadata{plugin_data{plugin_name, content}}, tensor}}}:
// a plugin's summary (the HParams plugin's, hparams_messages.h). The tensor is an empty float
// tensor, as TensorBoard's own writers give such values, since some readers expect one.
std::string pluginEvent(double wallTime, int64_t step, const std::string& tag, const std::string& pluginName,
                        const std::string& content);

}  // namespace netsmith::tensorboard
