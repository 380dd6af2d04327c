// Checked file writes for run folders (Note [Atomic files]): whole files replaced atomically,
// lines appended whole, and the clean-up of what a killed writer leaves behind.
//
// Note [Atomic files]
// A file of a run folder is either its old content or its new content, never a mix, an empty
// file or a torn line, whatever fails: a full disk, an I/O error, kill -9, a power cut.
// - Whole files (run.json, project.nsproj, learning_curve.csv, checkpoints, parameter files) are
//   written to a hidden temporary ".NAME.tmp-XXXXXX" in the same folder; then fsync, close,
//   rename over NAME, fsync of the folder. Every step's result is checked; a failure removes
//   the temporary file and throws Error naming the final file and the system's reason
//   ("/r/run.json: cannot write: No space left on device"); NAME is then as it was.
// - Appended lines (events.jsonl) and records (TensorBoard's files) go out in one write each; a short or failed write is
//   cut back off the file before the Error is thrown, and a line torn by a kill is dropped when
//   the file is next opened.
// - Temporaries left by a kill are removed when the folder is next claimed
//   (removeStaleTemporaryFiles), under the folder's lock (run_folder.h).
// The test hook write_faults.h injects failures and kills into these writes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/write_faults.h"

namespace netsmith {

// Writes one file atomically, streamed: create, write() any number of times, commit(). A writer
// destroyed without commit() removes its temporary file. Not thread-safe.
class AtomicFileWriter {
 public:
  // `label` prefixes messages ("checkpoint" gives "checkpoint /r/x.ckpt: cannot write: ...").
  explicit AtomicFileWriter(std::filesystem::path target, std::string label = {});
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(const void* data, size_t bytes);
  // fsync, close, rename over the target, fsync of the folder.
  void commit();
  const std::filesystem::path& target() const { return m_target; }

 private:
  [[noreturn]] void fail(const std::string& what, int error);
  std::filesystem::path m_target;
  std::string m_prefix;  // "checkpoint /r/x.ckpt" or "/r/run.json"
  std::string m_temp;
  int m_fd = -1;
  WriteFault m_fault = WriteFault::None;
};

// Replaces `path` by `bytes` atomically (AtomicFileWriter).
void writeFileAtomically(const std::filesystem::path& path, std::string_view bytes);

// Appends whole lines to a file. Not thread-safe (EventBus serialises its sinks).
class LineAppender {
 public:
  // Opens or creates `path` for appending; a last line without its newline (a writer killed in
  // the middle of it) is cut off. Error names the file and the reason.
  explicit LineAppender(std::filesystem::path path);
  ~LineAppender();
  LineAppender(const LineAppender&) = delete;
  LineAppender& operator=(const LineAppender&) = delete;

  // Appends `lines` (ending with '\n') in one write: all of it, or nothing and an Error naming
  // the file and the system's reason ("/r/events.jsonl: cannot append: No space left on device").
  void append(std::string_view lines);
  const std::filesystem::path& path() const { return m_path; }

 private:
  std::filesystem::path m_path;
  int m_fd = -1;
  uint64_t m_size = 0;
};

// Writes a new file of whole binary records (TensorBoard's event files, engine/tensorboard): each
// append() in one write, as LineAppender does lines. Not thread-safe.
class RecordAppender {
 public:
  // Creates `path`, which must not exist yet. Error names the file and the reason.
  explicit RecordAppender(std::filesystem::path path);
  ~RecordAppender();
  RecordAppender(const RecordAppender&) = delete;
  RecordAppender& operator=(const RecordAppender&) = delete;

  // Appends `bytes` in one write: all of it, or nothing and an Error naming the file and the
  // system's reason, so the file always ends with a whole record.
  void append(std::string_view bytes);
  const std::filesystem::path& path() const { return m_path; }

 private:
  std::filesystem::path m_path;
  int m_fd = -1;
  uint64_t m_size = 0;
};

// Removes the temporary files an interrupted writer left directly in `dir` (".NAME.tmp-XXXXXX",
// and "NAME.tmp" of older versions); returns their names. Only call it while no other process
// writes in `dir` (its lock is held). A missing `dir` has none.
std::vector<std::string> removeStaleTemporaryFiles(const std::filesystem::path& dir);

// Bytes an unprivileged process may still write on the file system holding `path`, or the
// nearest folder above it that exists (statvfs; the write_faults.h hook may impose a figure).
uint64_t freeDiskBytes(const std::filesystem::path& path);

// "5.4 MB", "812 KB": sizes in messages.
std::string humanBytes(uint64_t bytes);

}  // namespace netsmith
