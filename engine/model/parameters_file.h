// Parameter files of a run folder: `parameters.nsparams` (the last epoch) and `best.nsparams`
// (the epoch with the lowest validation error, config.save_best), in the checkpoint container
// (checkpoint.h) with one tensor per blob named "node/blob".
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/model/checkpoint.h"
#include "engine/model/network.h"

namespace netsmith {

// Which parameters of a run to use: "last" or "best".
struct RunParameters {
  std::string path;  // the file they were read from
  std::string which; // "last" | "best"
  CheckpointData data;
};

// Reads RUN/parameters.nsparams ("last"; a stopped run without one falls back to its newest valid
// checkpoint) or RUN/best.nsparams ("best"). Error names the file and what to do.
RunParameters readRunParameters(const std::string& runDir, const std::string& which);

// Copies the parameters into `network` (every blob by name). Error names the file and the blob
// that is missing, extra or of another shape.
void applyParameters(const RunParameters& params, Network& network);

// Writes the network's blobs to `path` atomically (parameters.nsparams' format); `meta` is
// stored with them (epoch, validation error, ...).
void writeParametersFile(const std::string& path, Network& network, Json meta);

}  // namespace netsmith
