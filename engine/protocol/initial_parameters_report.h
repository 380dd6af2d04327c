// What a training run took from config.initial_parameters (Note [Initial parameters],
// engine/train/initial_parameters.h), layer by layer: the `initial_parameters` event of
// docs/events.md, also kept in run.json and shown by netsmith-cli and the GUI's Training page.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/protocol/json_fields.h"

namespace netsmith::protocol {

struct InitialParametersReport {
  // A blob of the network whose file entry has another shape: initialised instead.
  struct Reshaped {
    std::string blob;  // "W"
    std::vector<int64_t> shape;      // the network's
    std::vector<int64_t> fileShape;  // the file's
  };
  // One layer with parameters, in graph order.
  struct Layer {
    std::string id;
    std::string type;
    std::vector<std::string> loaded;  // blob names taken from the file
    std::vector<std::string> fresh;   // not in the file: initialised ("new")
    std::vector<Reshaped> reshaped;   // in the file with another shape: initialised
    // "loaded" (every blob), "new" (none in the file), "reinitialized" (a blob of another shape),
    // "partial" (some blobs loaded, others new).
    std::string status() const;
  };
  // A file entry no layer of the network has.
  struct Unused {
    std::string name;  // "fc3/W"
    std::vector<int64_t> shape;
  };

  std::string source;  // config.initial_parameters as resolved: a file or a run folder
  std::string file;    // the parameters file read
  std::vector<Layer> layers;
  std::vector<Unused> unused;

  int64_t loadedBlobs() const;
  int64_t newBlobs() const;
  int64_t reshapedBlobs() const;
  // "Initial parameters from FILE: 12 blobs loaded, 2 new (fc3), 1 re-initialized (fc2/W), 2 unused"
  std::string summary() const;
  // summary() then one line per layer that was not simply loaded, and per unused entry.
  std::vector<std::string> lines() const;

  Json toJson() const;  // without "event"
  static InitialParametersReport fromJson(const Json& json, const Where& where);
};

// Once, after `started`, for a new run with config.initial_parameters.
struct InitialParametersEvent {
  static constexpr const char* kName = "initial_parameters";
  InitialParametersReport report;

  Json toJson() const;
  static InitialParametersEvent fromJson(const Json& json);
};

}  // namespace netsmith::protocol
