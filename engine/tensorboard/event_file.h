// EventFileWriter: one TensorBoard event file, written record by record as a run goes.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "engine/core/atomic_file.h"

namespace netsmith::tensorboard {

// Seconds since the Unix epoch: an Event's wall_time.
double wallTimeNow();

class EventFileWriter {
 public:
  // Creates DIR/events.out.tfevents.<seconds>.<host>.<pid> (the name TensorBoard looks for; ".2",
  // ".3", ... appended when that file exists) and writes its file-version record. A folder may hold
  // several such files (one per session of a resumed run): TensorBoard reads them in name order,
  // which is the order they were written. Throws Error naming the file.
  EventFileWriter(const std::filesystem::path& dir, double wallTime);

  // Appends one serialized Event (event_messages.h) as a record (Note [TFRecord framing]) in one
  // write, so a TensorBoard watching the folder sees it at once. Throws Error naming the file
  // (a full disk); the file then ends with the last whole record.
  void write(const std::string& event);
  const std::filesystem::path& path() const { return m_file->path(); }

 private:
  std::unique_ptr<RecordAppender> m_file;
};

}  // namespace netsmith::tensorboard
