#include "engine/tensorboard/hparams_messages.h"

#include "engine/tensorboard/event_messages.h"
#include "engine/tensorboard/wire.h"

namespace netsmith::tensorboard {
namespace {

// Field numbers and enum values of TensorBoard's tensorboard/plugins/hparams/plugin_data.proto and
// api.proto, and of google/protobuf/struct.proto (google.protobuf.Value).
namespace plugin_data {
constexpr int kExperiment = 2, kSessionStartInfo = 3, kSessionEndInfo = 4;
// `version` (field 1) is the plugin's PLUGIN_DATA_VERSION, 0: the default, so not written.
}  // namespace plugin_data
namespace experiment {
constexpr int kHParamInfos = 4, kMetricInfos = 5;
}
namespace hparam_info {
constexpr int kName = 1, kType = 4;
constexpr int kString = 1, kBool = 2, kFloat64 = 3;  // DataType
}  // namespace hparam_info
namespace metric_info {
constexpr int kName = 1;
}
namespace metric_name {
constexpr int kTag = 2;  // group (1) empty: the scalars are in the session's own run folder
}
namespace session_start {
constexpr int kHParams = 1, kStartTimeSecs = 5;
constexpr int kMapKey = 1, kMapValue = 2;  // a map's entries are messages {key, value}
}  // namespace session_start
namespace session_end {
constexpr int kStatus = 1, kEndTimeSecs = 2;
constexpr int kSuccess = 1, kFailure = 2;  // Status
}  // namespace session_end
namespace value {
constexpr int kNumber = 2, kString = 3, kBool = 4;
}

std::string valueMessage(const HParamValue& v) {
  MessageWriter m;
  if (const auto* number = std::get_if<double>(&v)) m.doubleField(value::kNumber, *number);
  else if (const auto* text = std::get_if<std::string>(&v)) m.stringField(value::kString, *text);
  else m.boolField(value::kBool, std::get<bool>(v));
  return m.bytes();
}

int dataType(const HParamValue& v) {
  if (std::holds_alternative<double>(v)) return hparam_info::kFloat64;
  return std::holds_alternative<std::string>(v) ? hparam_info::kString : hparam_info::kBool;
}

std::string hparamsEvent(double wallTime, const char* tag, int field, const std::string& message) {
  MessageWriter data;
  data.messageField(field, message);
  return pluginEvent(wallTime, 0, tag, kHParamsPlugin, data.bytes());
}

}  // namespace

std::string experimentEvent(double wallTime, const HParams& hparams, const std::vector<std::string>& metricTags) {
  MessageWriter e;
  // No domain: TensorBoard finds each setting's values among the sessions it reads.
  for (const auto& [name, v] : hparams) {
    MessageWriter info;
    info.stringField(hparam_info::kName, name);
    info.enumField(hparam_info::kType, dataType(v));
    e.messageField(experiment::kHParamInfos, info.bytes());
  }
  for (const std::string& tag : metricTags) {
    MessageWriter name;
    name.stringField(metric_name::kTag, tag);
    MessageWriter info;
    info.messageField(metric_info::kName, name.bytes());
    e.messageField(experiment::kMetricInfos, info.bytes());
  }
  return hparamsEvent(wallTime, kExperimentTag, plugin_data::kExperiment, e.bytes());
}

std::string sessionStartInfoEvent(double wallTime, const HParams& hparams) {
  MessageWriter start;
  for (const auto& [name, v] : hparams) {
    MessageWriter entry;
    entry.stringField(session_start::kMapKey, name);
    entry.messageField(session_start::kMapValue, valueMessage(v));
    start.messageField(session_start::kHParams, entry.bytes());
  }
  start.doubleField(session_start::kStartTimeSecs, wallTime);
  return hparamsEvent(wallTime, kSessionStartTag, plugin_data::kSessionStartInfo, start.bytes());
}

std::string sessionEndInfoEvent(double wallTime, SessionStatus status) {
  MessageWriter end;
  end.enumField(session_end::kStatus, status == SessionStatus::Success ? session_end::kSuccess : session_end::kFailure);
  end.doubleField(session_end::kEndTimeSecs, wallTime);
  return hparamsEvent(wallTime, kSessionEndTag, plugin_data::kSessionEndInfo, end.bytes());
}

}  // namespace netsmith::tensorboard
