#include "engine/tensorboard/wire.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>

namespace netsmith::tensorboard {
namespace {

using google::protobuf::internal::WireFormatLite;

// A coded stream lives for one field: its destructor hands the unused buffer back, so m_bytes is
// exact after every call.
template <typename Write>
void append(std::string& bytes, const Write& write) {
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream out(&stream);
  write(out);
}

}  // namespace

void MessageWriter::doubleField(int field, double value) {
  append(m_bytes, [&](auto& out) { WireFormatLite::WriteDouble(field, value, &out); });
}

void MessageWriter::floatField(int field, float value) {
  append(m_bytes, [&](auto& out) { WireFormatLite::WriteFloat(field, value, &out); });
}

void MessageWriter::int64Field(int field, int64_t value) {
  append(m_bytes, [&](auto& out) { WireFormatLite::WriteInt64(field, value, &out); });
}

void MessageWriter::int32Field(int field, int32_t value) {
  append(m_bytes, [&](auto& out) { WireFormatLite::WriteInt32(field, value, &out); });
}

void MessageWriter::enumField(int field, int value) {
  append(m_bytes, [&](auto& out) { WireFormatLite::WriteEnum(field, value, &out); });
}

void MessageWriter::boolField(int field, bool value) {
  append(m_bytes, [&](auto& out) { WireFormatLite::WriteBool(field, value, &out); });
}

void MessageWriter::stringField(int field, const std::string& value) {
  append(m_bytes, [&](auto& out) { WireFormatLite::WriteBytes(field, value, &out); });
}

}  // namespace netsmith::tensorboard
