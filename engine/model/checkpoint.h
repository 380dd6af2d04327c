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

// Writes `data` to `path` atomically (Note [Atomic files]): a temporary file in the same folder,
// fsync, rename over `path`, fsync of the folder. On failure the temporary file is removed and
// Error names the path and the system's reason; an existing file at `path` is then left as it was.
void writeCheckpoint(const std::string& path, const CheckpointData& data);

// Reads and verifies a checkpoint (magic, lengths, SHA-256). Error names the file and what is
// wrong, e.g. "checkpoint /r/checkpoints/epoch_0002.ckpt: checksum mismatch: the file is damaged".
CheckpointData readCheckpoint(const std::string& path);

// Like readCheckpoint, but keeps only the meta (the whole file is still verified).
Json readCheckpointMeta(const std::string& path);

// The newest valid "*.ckpt" file in `dir`, or nullopt when there is none (or `dir` does not
// exist). Newest: the highest epoch, then the most samples into it (iteration × logical_batch
// of its meta, so that checkpoints of a run resumed on another device count compare), then the
// later file name. With a non-empty `runId`, only checkpoints whose meta "run_id" is that id
// count (Note [One run per folder]). Files that fail verification or belong to another run are
// skipped; each is listed in `rejected` as a message naming it. Older files are not verified.
std::optional<std::string> newestValidCheckpoint(const std::string& dir, std::vector<std::string>* rejected = nullptr,
                                                 const std::string& runId = {});

// The meta of a checkpoint or parameter file as its header says, without verifying the rest of
// the file (cheap: for ordering and pruning). Error names the file when the header is damaged.
Json peekCheckpointMeta(const std::string& path);

// Where a checkpoint's meta puts it in its run: (epoch, samples trained into that epoch).
std::pair<double, double> checkpointPosition(const Json& meta);

}  // namespace netsmith
