#include "engine/tensorboard/event_messages.h"

#include "engine/tensorboard/wire.h"

namespace netsmith::tensorboard {
namespace {

// Field numbers of TensorBoard's tensorboard/compat/proto/event.proto, summary.proto,
// tensor.proto and tensor_shape.proto (the same as TensorFlow's).
namespace event {
constexpr int kWallTime = 1, kStep = 2, kFileVersion = 3, kSummary = 5, kSessionLog = 7;
}
namespace session_log {
constexpr int kStatus = 1;
constexpr int kStart = 1;  // SessionLog.SessionStatus.START
}  // namespace session_log
namespace summary {
constexpr int kValue = 1;
}
namespace summary_value {
constexpr int kTag = 1, kSimpleValue = 2, kTensor = 8, kMetadata = 9;
}
namespace summary_metadata {
constexpr int kPluginData = 1;
}
namespace plugin_data {
constexpr int kPluginName = 1, kContent = 2;
}
namespace tensor {
constexpr int kDtype = 1, kTensorShape = 2;
constexpr int kFloat = 1;  // DataType.DT_FLOAT
}  // namespace tensor
namespace tensor_shape {
constexpr int kDim = 2;
}

MessageWriter eventAt(double wallTime, int64_t step) {
  MessageWriter e;
  e.doubleField(event::kWallTime, wallTime);
  e.int64Field(event::kStep, step);
  return e;
}

// TensorProto{dtype: DT_FLOAT, tensor_shape{dim{size: 0}}}: no values.
std::string emptyFloatTensor() {
  MessageWriter dim;  // size 0 is the default: an empty Dim
  MessageWriter shape;
  shape.messageField(tensor_shape::kDim, dim.bytes());
  MessageWriter t;
  t.enumField(tensor::kDtype, tensor::kFloat);
  t.messageField(tensor::kTensorShape, shape.bytes());
  return t.bytes();
}

}  // namespace

std::string fileVersionEvent(double wallTime) {
  MessageWriter e;
  e.doubleField(event::kWallTime, wallTime);
  e.stringField(event::kFileVersion, kFileVersion);
  return e.bytes();
}

std::string scalarsEvent(double wallTime, int64_t step, const std::vector<Scalar>& scalars) {
  MessageWriter s;
  for (const Scalar& scalar : scalars) {
    MessageWriter v;
    v.stringField(summary_value::kTag, scalar.tag);
    v.floatField(summary_value::kSimpleValue, scalar.value);
    s.messageField(summary::kValue, v.bytes());
  }
  MessageWriter e = eventAt(wallTime, step);
  e.messageField(event::kSummary, s.bytes());
  return e.bytes();
}

std::string sessionStartEvent(double wallTime, int64_t step) {
  MessageWriter log;
  log.enumField(session_log::kStatus, session_log::kStart);
  MessageWriter e = eventAt(wallTime, step);
  e.messageField(event::kSessionLog, log.bytes());
  return e.bytes();
}

std::string pluginEvent(double wallTime, int64_t step, const std::string& tag, const std::string& pluginName,
                        const std::string& content) {
  MessageWriter plugin;
  plugin.stringField(plugin_data::kPluginName, pluginName);
  plugin.stringField(plugin_data::kContent, content);
  MessageWriter metadata;
  metadata.messageField(summary_metadata::kPluginData, plugin.bytes());
  MessageWriter v;
  v.stringField(summary_value::kTag, tag);
  v.messageField(summary_value::kMetadata, metadata.bytes());
  v.messageField(summary_value::kTensor, emptyFloatTensor());
  MessageWriter s;
  s.messageField(summary::kValue, v.bytes());
  MessageWriter e = eventAt(wallTime, step);
  e.messageField(event::kSummary, s.bytes());
  return e.bytes();
}

}  // namespace netsmith::tensorboard
