// The settings of a Neural Network Console file that map to a Netsmith project (Note [NNabla
// settings]), and the list of those that do not.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/import/nnabla/nnabla_file.h"
#include "engine/project/project.h"

namespace netsmith::nnabla_import {

// Note [NNabla settings]
//   training_config.max_epoch → config.max_epoch; monitor_interval → config.monitor_interval;
//   save_best → config.save_best;
//   the optimizer's dataset (else the one named "Training") → dataset.training, the validation
//   monitor's dataset (else "Validation") → dataset.validation: its uri when it names a CSV file
//   on this machine's kind of path (relative ones against the imported file's folder; a Windows
//   path such as C:\data\train.csv or a URL is listed instead), its batch_size → config.batch_size
//   (else the network's batch_size), shuffle → dataset.shuffle, no_image_normalization false →
//   dataset.scale 1/255 (NNC divides image values by 255 unless told not to);
//   solver type Sgd, Momentum, Nesterov, Adagrad, RMSprop, Adam, AdamW with its <solver>_param
//   values (lr, momentum, alpha, beta1, beta2, eps, decay) → optimizer.solver and its
//   hyper-parameters; weight_decay → optimizer.weight_decay; lr_decay and lr_decay_interval →
//   optimizer.lr_multiplier and lr_update_interval (NNC's own learning-rate schedule).
// Everything else the file sets is listed: other solvers (the project keeps Adam), update_interval
// other than 1, the backends of global_config, iter_per_epoch, dataset caches, monitors, the
// networks not imported. The optimizer's learning_rate_multiplier of each parameter becomes the
// layers' lr_mult in the importer (Note [NNabla learning-rate multipliers]).
struct NnablaSettings {
  std::optional<int64_t> maxEpoch, monitorInterval, batchSize, lrUpdateInterval;
  std::optional<bool> saveBest, shuffle;
  std::optional<double> scale, weightDecay, lrMultiplier;
  std::string solver;  // empty: not mapped
  Json hyper = Json::object();
  std::string trainingCsv, validationCsv;  // absolute, or empty
  std::vector<std::string> notMapped;

  void apply(Project& project) const;
};

// The optimizer that trains `networkName` (NNC's "Main"), else the file's first; null when none.
const NnOptimizer* trainingOptimizer(const NnablaFile& file, const std::string& networkName);

// `networkName`: the imported network (the others are listed).
NnablaSettings mapSettings(const NnablaFile& file, const std::string& networkName);

}  // namespace netsmith::nnabla_import
