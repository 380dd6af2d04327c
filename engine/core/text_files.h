// Small file helpers shared by the trainer and the CLI commands that write into run folders.
#pragma once

#include <ctime>
#include <filesystem>
#include <string>

#include "engine/core/atomic_file.h"

namespace netsmith {

// Writes `text` to `path` atomically and checked (Note [Atomic files]): a reader sees the old or
// the new text, and a failure (a full disk) is an Error naming `path` and the system's reason.
inline void writeTextAtomically(const std::filesystem::path& path, const std::string& text) {
  writeFileAtomically(path, text);
}

// The local time now, in strftime's `format`.
inline std::string localTimeNow(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

// The local time as run folders are named: YYYYMMDD-HHMMSS.
inline std::string timestampFolderName() { return localTimeNow("%Y%m%d-%H%M%S"); }

}  // namespace netsmith
