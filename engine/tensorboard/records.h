// TensorBoard's record framing (TFRecord): how event files hold their serialized Event messages.
//
// Note [TFRecord framing]
// An event file is a sequence of records, each
//   uint64 length            little-endian: the bytes of data
//   uint32 masked CRC-32C    of those 8 length bytes (crc32c.h)
//   data                     one serialized tensorboard.Event (event_messages.h)
//   uint32 masked CRC-32C    of the data
// with nothing between records and no header or footer. TensorBoard's reader (and TensorFlow's)
// checks both checksums; a file cut in the middle of a record ends, for a reader, with the last
// whole record, so a writer appends each record in one write (engine/core/atomic_file.h
// RecordAppender) and never leaves a part of one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace netsmith::tensorboard {

inline constexpr size_t kRecordHeaderBytes = 12;  // length and its CRC
inline constexpr size_t kRecordFooterBytes = 4;   // the data's CRC

// The record holding `data`.
std::string frameRecord(std::string_view data);

// The data of every record in `bytes` (a whole file's content), in order. Throws Error naming
// `source` (the file), the record's number and byte offset and what was expected, when the
// framing is damaged: a cut record, a length or data checksum that does not match.
std::vector<std::string> readRecords(std::string_view bytes, const std::string& source);

}  // namespace netsmith::tensorboard
