// MessageWriter: one protobuf message's bytes, field by field, through libprotobuf's wire-format
// API (WireFormatLite). TensorBoard's messages are written without generated code: the writer
// needs a handful of fields, and protoc is not part of the build.
#pragma once

#include <cstdint>
#include <string>

namespace netsmith::tensorboard {

class MessageWriter {
 public:
  void doubleField(int field, double value);
  void floatField(int field, float value);
  void int64Field(int field, int64_t value);
  void int32Field(int field, int32_t value);
  void enumField(int field, int value);
  void boolField(int field, bool value);
  void stringField(int field, const std::string& value);  // also bytes
  // A nested message: `message` is its encoding (another MessageWriter's bytes()).
  void messageField(int field, const std::string& message) { stringField(field, message); }

  const std::string& bytes() const { return m_bytes; }

 private:
  std::string m_bytes;
};

}  // namespace netsmith::tensorboard
