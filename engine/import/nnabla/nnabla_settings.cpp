// mapSettings (Note [NNabla settings]).
#include "engine/import/nnabla/nnabla_settings.h"

#include <cctype>
#include <filesystem>

#include "engine/core/error.h"
#include "engine/solvers/solver_table.h"

namespace fs = std::filesystem;

namespace netsmith::nnabla_import {

namespace {

const NnDataset* datasetNamed(const NnablaFile& file, const std::string& name) {
  for (const NnDataset& d : file.datasets)
    if (d.name == name) return &d;
  return nullptr;
}

// A uri this machine can open as a file: not a URL, not a Windows drive or UNC path.
bool isLocalPath(const std::string& uri) {
  if (uri.empty() || uri.find("://") != std::string::npos) return false;
  if (uri.size() >= 2 && std::isalpha(static_cast<unsigned char>(uri[0])) && uri[1] == ':') return false;
  return uri.find('\\') == std::string::npos;
}

}  // namespace

const NnOptimizer* trainingOptimizer(const NnablaFile& file, const std::string& networkName) {
  for (const NnOptimizer& o : file.optimizers)
    if (o.networkName == networkName) return &o;
  return file.optimizers.empty() ? nullptr : &file.optimizers.front();
}

void NnablaSettings::apply(Project& p) const {
  if (maxEpoch) p.config.maxEpoch = *maxEpoch;
  if (monitorInterval) p.config.monitorInterval = *monitorInterval;
  if (batchSize) p.config.batchSize = *batchSize;
  if (saveBest) p.config.saveBest = *saveBest;
  if (shuffle) p.dataset.shuffle = *shuffle;
  if (scale) p.dataset.scale = *scale;
  if (!solver.empty()) {
    p.optimizer.solver = solver;
    p.optimizer.hyper = hyper;
  }
  if (weightDecay) p.optimizer.weightDecay = *weightDecay;
  if (lrMultiplier) p.optimizer.lrMultiplier = *lrMultiplier;
  if (lrUpdateInterval) p.optimizer.lrUpdateInterval = *lrUpdateInterval;
}

NnablaSettings mapSettings(const NnablaFile& file, const std::string& networkName) {
  NnablaSettings s;
  const fs::path folder = fs::absolute(file.path).parent_path();
  auto list = [&](std::string text) { s.notMapped.push_back(std::move(text)); };

  if (file.maxEpoch > 0) s.maxEpoch = file.maxEpoch;
  if (file.monitorInterval > 0) s.monitorInterval = file.monitorInterval;
  if (file.hasSaveBest) s.saveBest = file.saveBest;
  if (file.iterPerEpoch > 0) list(format("training_config.iter_per_epoch {} (Netsmith derives it from the dataset and batch size)", file.iterPerEpoch));
  for (const std::string& b : file.backends)
    list(format("global_config backend \"{}\" (choose devices and precision on the Training page)", b));

  const NnNetwork* network = nullptr;
  for (const NnNetwork& n : file.networks) {
    if (n.name == networkName) network = &n;
    else list(format("network '{}' (Netsmith validates and infers with the imported network itself)", n.name));
  }
  if (network && network->batchSize > 0) s.batchSize = network->batchSize;

  // Datasets: the optimizer's for training; a monitor's other one for validation.
  const NnOptimizer* optimizer = trainingOptimizer(file, networkName);
  const NnDataset* training = optimizer ? datasetNamed(file, optimizer->datasetName) : nullptr;
  if (!training) training = datasetNamed(file, "Training");
  const NnDataset* validation = nullptr;
  for (const NnMonitor& m : file.monitors)
    if (!validation && training && m.datasetName != training->name) validation = datasetNamed(file, m.datasetName);
  if (!validation) validation = datasetNamed(file, "Validation");
  for (const NnDataset& d : file.datasets) {
    const bool isTraining = &d == training, isValidation = &d == validation;
    if (!isTraining && !isValidation) {
      list(format("dataset '{}' (uri \"{}\"): neither the optimizer's nor a monitor's validation dataset", d.name, d.uri));
      continue;
    }
    std::string& target = isTraining ? s.trainingCsv : s.validationCsv;
    const char* role = isTraining ? "dataset.training" : "dataset.validation";
    if (isLocalPath(d.uri) && fs::path(d.uri).extension() == ".csv") {
      const fs::path uri(d.uri);
      target = (uri.is_absolute() ? uri : folder / uri).lexically_normal().string();
    } else {
      list(format("dataset '{}' uri \"{}\": not a CSV path on this machine; set {} on the Dataset page", d.name, d.uri, role));
    }
    if (isTraining) {
      if (d.batchSize > 0) s.batchSize = d.batchSize;
      s.shuffle = d.shuffle;
      s.scale = d.noImageNormalization ? 1.0 : 1.0 / 255.0;
    }
    for (const NnSetting& o : d.other) list(format("dataset '{}' {}: {}", d.name, o.name, o.value));
  }

  if (optimizer) {
    const NnOptimizer& o = *optimizer;
    const SolverRow* row = findSolver(o.solverType);
    if (!row && !o.solverType.empty()) {
      list(format("solver {} (Netsmith has {}; the project keeps Adam)", o.solverType, solverNameList()));
    } else if (row) {
      s.solver = row->name;
      for (const auto& [name, value] : o.solverParams) {
        const SolverHyperParameter* known = nullptr;
        for (const SolverHyperParameter& h : row->hyper)
          if (name == h.name) known = &h;
        if (known) s.hyper[name] = known->range == SolverHyperRange::Flag ? Json(value != 0) : Json(value);
        else list(format("{}.{} {}", o.solverParamName, name, value));
      }
    }
    s.weightDecay = o.weightDecay;
    if (o.lrDecay > 0) s.lrMultiplier = o.lrDecay;
    if (o.lrDecayInterval > 0) s.lrUpdateInterval = o.lrDecayInterval;
    if (o.updateInterval != 1)
      list(format("optimizer '{}' update_interval {} (gradients accumulated over several batches; Netsmith updates every batch)", o.name,
                  o.updateInterval));
    for (size_t i = 0; i < o.dataVariables.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (!o.dataVariables[i].dataName.empty() && o.dataVariables[i].dataName == o.dataVariables[j].dataName)
          list(format("variables '{}' and '{}' both read dataset column '{}' (the input is its own target, as in an autoencoder): "
                      "Netsmith's loss reads its target from the CSV's second column, so give the CSV a target column with the same values",
                      o.dataVariables[j].variable, o.dataVariables[i].variable, o.dataVariables[i].dataName));
    for (const NnSetting& x : o.other) list(format("optimizer '{}' solver {}: {}", o.name, x.name, x.value));
  }
  for (const NnMonitor& m : file.monitors)
    list(format("monitor '{}' (Netsmith reports training and validation loss and error itself)", m.name));
  return s;
}

}  // namespace netsmith::nnabla_import
