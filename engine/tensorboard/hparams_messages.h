// The HParams plugin's records (TensorBoard's plugins/hparams/plugin_data.proto and api.proto):
// the run's settings and how it ended, for TensorBoard's HParams tab (Note [TensorBoard HParams],
// engine/train/tensorboard_sink.h).
#pragma once

#include <map>
#include <string>
#include <variant>
#include <vector>

namespace netsmith::tensorboard {

using HParamValue = std::variant<double, std::string, bool>;
using HParams = std::map<std::string, HParamValue>;  // setting name -> value

enum class SessionStatus { Success, Failure };

// The three summaries' tags, as TensorBoard's HParams plugin looks for them. Each is written at
// step 0, where a resumed session's reader never drops it (event_messages.h sessionStartEvent).
inline constexpr const char* kHParamsPlugin = "hparams";
inline constexpr const char* kExperimentTag = "_hparams_/experiment";
inline constexpr const char* kSessionStartTag = "_hparams_/session_start_info";
inline constexpr const char* kSessionEndTag = "_hparams_/session_end_info";

// Event holding HParamsPluginData{experiment{hparam_infos (name, type), metric_infos (tags)}}: the
// columns of the HParams table.
std::string experimentEvent(double wallTime, const HParams& hparams, const std::vector<std::string>& metricTags);
// Event holding HParamsPluginData{session_start_info{hparams, start_time_secs}}.
std::string sessionStartInfoEvent(double wallTime, const HParams& hparams);
// Event holding HParamsPluginData{session_end_info{status, end_time_secs}}.
std::string sessionEndInfoEvent(double wallTime, SessionStatus status);

}  // namespace netsmith::tensorboard
