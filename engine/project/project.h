// Project: the in-memory form of a .nsproj file (DESIGN.md §5, format version 1).
// Loading (project_io.h) fills every field with its default, resolves paths and reports
// every problem with its JSON path; code that reads a Project may trust it.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace netsmith {

using Json = nlohmann::json;

struct NodeSpec {
  std::string id;
  std::string type;
  Json params = Json::object();  // as written by the user; the graph validates and fills defaults
  std::array<double, 2> pos{0, 0};
  // Note [Frozen layers] (engine/project/graph.h): "frozen": true keeps the layer's parameters as
  // they are (no gradients, no optimizer state, BatchNormalization in inference mode); "lr_mult"
  // scales the learning rate of its parameters (0: not updated). Written only when set.
  bool frozen = false;
  double lrMult = 1.0;
};

struct LinkSpec {
  std::string from;
  std::string to;
  std::optional<int> port;  // input port index of `to`; absent: next free port in link order
};

struct NetworkSpec {
  std::vector<NodeSpec> nodes;
  std::vector<LinkSpec> links;
};

// One dataset source. "idx": `images` + `labels` (gzip or raw IDX). "csv": Neural Network
// Console CSV at `csv` (header such as "x:image,y:label"; image cells are PNG paths relative
// to the CSV file; numeric cells are features).
struct DataSourceSpec {
  std::string format;  // "idx" | "csv"
  std::string images;  // idx: absolute path after loading (${DATASETS} and relative paths resolved)
  std::string labels;  // idx
  std::string csv;     // csv
  // dataset.class_names (Note [Class names in a project]): the names of the class labels 0..K-1,
  // used when the source names none itself (IDX files, a CSV without classes.txt beside it).
  std::vector<std::string> classNames;
  bool present() const { return !format.empty(); }
};

struct DatasetSpec {
  DataSourceSpec training;
  DataSourceSpec validation;  // optional (format empty when absent)
  double scale = 1.0;          // multiplies every input value (1/255 for 8-bit images)
  bool shuffle = true;
  std::string onError = "error";  // "error" | "skip": bad rows/files stop the run or are skipped
};

// config.augmentation: random transforms of each training image, drawn from (seed, epoch, sample
// index) (engine/data/augment.h). Every field's default is off; an absent object is all off.
// Training only: validation, evaluation and inference see the samples as stored.
struct Augmentation {
  bool flipHorizontal = false;   // flip_horizontal: mirror left-right with probability 0.5
  bool flipVertical = false;     // flip_vertical: mirror top-bottom with probability 0.5
  int64_t cropPadding = 0;       // crop_padding: pad by P zero pixels, crop H×W at a random offset
  double rotationDegrees = 0;    // rotation_degrees: angle uniform in [-r, r], 0..180
  double scale = 0;              // scale: zoom factor uniform in [1-s, 1+s], 0 <= s < 1
  double shift = 0;              // shift: offset uniform in [-f, f] of the width / height, 0..1
  double brightness = 0;         // brightness: values × a factor in [max(0, 1-b), 1+b]
  double contrast = 0;           // contrast: distance to the sample's mean × a factor in [max(0, 1-c), 1+c]

  bool enabled() const {
    return flipHorizontal || flipVertical || cropPadding > 0 || rotationDegrees > 0 || scale > 0 || shift > 0 ||
           brightness > 0 || contrast > 0;
  }
  bool operator==(const Augmentation&) const = default;
};

struct TrainingConfig {
  int64_t maxEpoch = 10;
  int64_t batchSize = 64;  // per device (DESIGN.md §6)
  // Micro-batches of batch_size per device and step, their gradients summed before the update:
  // the logical batch is this many times larger (Note [Gradient accumulation], replica.cpp).
  int64_t accumulateGradients = 1;
  int64_t monitorInterval = 1;
  std::string precision = "float";
  uint64_t seed = 1;
  bool deterministic = false;
  bool saveBest = true;  // keep the best validation epoch's parameters as RUN/best.nsparams
  int64_t earlyStopping = 0;         // patience in validations; 0: off (engine/train/early_stopping.h)
  double earlyStoppingMinDelta = 0;  // an improvement is a decrease by more than this
  // config.initial_parameters: a parameters file (.nsparams) or a run folder the trainer starts
  // from instead of the initialisers, blobs matched by layer name and shape, the rest initialised
  // and reported (Note [Initial parameters], engine/train/initial_parameters.h); absolute after
  // loading, empty: none.
  std::string initialParameters;
  Augmentation augmentation;  // config.augmentation (training samples only)
};

struct OptimizerConfig {
  std::string solver = "Adam";  // Sgd Momentum Nesterov Adagrad RMSprop Adam AdamW
  // Solver hyper-parameters as written (lr, momentum, alpha, beta1, beta2, eps, decay, ...),
  // validated against the solver's own list; absent ones take the solver's defaults.
  Json hyper = Json::object();
  double weightDecay = 0.0;
  // Gradient clipping by global norm (Note [Gradient clipping], engine/optim/gradient_clip.h): the
  // all-reduced gradient is scaled to at most this L2 norm over every parameter; 0: off.
  double clipGradientNorm = 0.0;
  // Exponential moving average of the weights (Note [Weight averaging], engine/optim/weight_average.h):
  // the decay d in [0, 1); 0: off.
  double emaDecay = 0.0;
  double lrMultiplier = 1.0;      // NNC: learning rate × multiplier every lr_update_interval iterations
  int64_t lrUpdateInterval = 1;   // iterations
  double warmupEpochs = 0.0;
  std::string lrSchedule = "none";  // none | cosine | step | exponential
  Json scheduleParams = Json::object();  // e.g. step: {"step_epochs": 2, "gamma": 0.5}
};

struct ParallelConfig {
  std::vector<std::string> devices{"cpu:0"};
  std::vector<double> workerLoad;  // empty: equal loads
  std::string lrPolicy = "scale_lr";  // scale_lr | keep_logical_batch | none
  int threadsPerDevice = 0;           // 0: all cores / devices
  double timeoutS = 60.0;
};

struct Project {
  std::string name;
  NetworkSpec network;
  DatasetSpec dataset;
  TrainingConfig config;
  OptimizerConfig optimizer;
  ParallelConfig parallel;

  std::string path;       // the file it was loaded from (absolute), empty if never saved
  Json original;          // the JSON as loaded, for snapshots that keep the user's spelling
};

}  // namespace netsmith
