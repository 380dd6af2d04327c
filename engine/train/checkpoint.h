// Checkpoint files: what a run needs to resume (parameters, solver state, positions), written
// atomically with a checksum so that a crash or a damaged disk never yields a half-read state.
//
// Format (all integers little-endian):
//   "NSCKPT01"                              8 bytes magic
//   u64 meta length, meta JSON (UTF-8)
//   u64 tensor count, then per tensor:
//     u32 name length, name (UTF-8), u32 rank, rank × i64 dims, numel × float32 data
//   SHA-256 of every byte before it          32 bytes
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/project/project.h"

namespace netsmith {

struct CheckpointData {
  // Filled by the trainer: epoch, iteration, schedule position, RNG states, data position...
  // newestValidCheckpoint() orders files by the numbers "epoch" and "iteration" in it.
  Json meta = Json::object();
  std::vector<std::pair<std::string, Tensor>> tensors;
};

// Writes `data` to `path` atomically: a temporary file in the same folder, fsync, rename over
// `path`, fsync of the folder. On failure the temporary file is removed and Error names the path
// and the system's reason; an existing file at `path` is then left as it was.
void writeCheckpoint(const std::string& path, const CheckpointData& data);

// Reads and verifies a checkpoint (magic, lengths, SHA-256). Error names the file and what is
// wrong, e.g. "checkpoint /r/checkpoints/epoch_0002.ckpt: checksum mismatch: the file is damaged".
CheckpointData readCheckpoint(const std::string& path);

// Like readCheckpoint, but keeps only the meta (the whole file is still verified).
Json readCheckpointMeta(const std::string& path);

// The newest valid "*.ckpt" file in `dir` by (epoch, iteration) of its meta (ties: the later
// file name), or nullopt when there is none (or `dir` does not exist). Files that fail
// verification are skipped; each is listed in `rejected` as the Error message, which names it.
// Files older than the one returned are not verified.
std::optional<std::string> newestValidCheckpoint(const std::string& dir, std::vector<std::string>* rejected = nullptr);

}  // namespace netsmith
