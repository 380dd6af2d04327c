// Small file helpers shared by the trainer and the CLI commands that write into run folders.
#pragma once

#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>

#include "engine/core/error.h"

namespace netsmith {

// Writes `text` to `path` through a temporary file and a rename, so a reader never sees half of it.
inline void writeTextAtomically(const std::filesystem::path& path, const std::string& text) {
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    NS_CHECK(out.good(), "{}: cannot write", tmp.string());
    out << text;
    NS_CHECK(out.good(), "{}: write failed", tmp.string());
  }
  std::filesystem::rename(tmp, path);
}

// The local time as run folders are named: YYYYMMDD-HHMMSS.
inline std::string timestampFolderName() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  return buf;
}

}  // namespace netsmith
