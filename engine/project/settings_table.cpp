// The rows of the settings table (Note [Settings table] in settings_table.h).
#include "engine/project/settings_table.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "engine/core/error.h"
#include "engine/solvers/solver_table.h"

namespace netsmith {
namespace {

// Whole numbers are written without ".0" (scale 1, warm-up 0).
Json numberValue(double d) {
  if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) return static_cast<int64_t>(d);
  return d;
}

template <class T>
Json valueJson(const T& v) {
  if constexpr (std::is_same_v<T, double>) return numberValue(v);
  else return Json(v);
}

// One row under construction: Row(...).min(1).field([](auto& p) -> auto& { return p.config.x; }).
class Row {
 public:
  Row(SettingGroup group, std::string key, SettingType type, std::string label, std::string help) {
    static const char* const kPrefix[] = {"config.", "config.augmentation.", "optimizer."};
    m_s.path = kPrefix[static_cast<int>(group)] + key;
    m_s.key = std::move(key);
    m_s.group = group;
    m_s.type = type;
    m_s.label = std::move(label);
    m_s.help = std::move(help);
  }
  Row& min(double limit, bool exclusive = false) {
    m_s.bounds.min = limit;
    m_s.bounds.minExclusive = exclusive;
    return *this;
  }
  Row& max(double limit, bool exclusive = false, std::string note = {}) {
    m_s.bounds.max = limit;
    m_s.bounds.maxExclusive = exclusive;
    m_s.rangeNote = std::move(note);
    return *this;
  }
  Row& choices(std::vector<std::string> names) {
    m_s.choices = std::move(names);
    return *this;
  }
  Row& defaultValue(Json v) {
    m_s.defaultValue = std::move(v);
    return *this;
  }
  // Written only when not the default; an empty field reads `absentText` ("off").
  Row& unlessDefault(std::string absentText = {}) {
    m_s.write = WritePolicy::UnlessDefault;
    m_s.absentText = std::move(absentText);
    return *this;
  }
  Row& schedules(std::vector<std::string> names) {
    m_s.schedules = std::move(names);
    return *this;
  }
  // Binds the row to a Project member: `access` returns it for a Project& and a const Project&.
  template <class Access>
  Row& field(Access access) {
    using T = std::remove_cvref_t<decltype(access(std::declval<Project&>()))>;
    m_s.get = [access](const Project& p) { return valueJson(access(p)); };
    m_s.set = [access](Project& p, const Json& v) { access(p) = v.get<T>(); };
    if (m_s.defaultValue.is_null()) {
      const Project defaults;
      m_s.defaultValue = valueJson(access(defaults));
    }
    return *this;
  }
  // What an empty field reads when absent is neither a default value nor "off".
  Row& absent(std::string text) {
    m_s.absentText = std::move(text);
    return *this;
  }
  // An optional file (Path rows): absent and empty are the same, "no file".
  Row& optionalPath(std::string TrainingConfig::*member) {
    m_s.write = WritePolicy::WhenSet;
    m_s.get = [member](const Project& p) { return (p.config.*member).empty() ? Json() : Json(p.config.*member); };
    m_s.set = [member](Project& p, const Json& v) { p.config.*member = v.is_string() ? v.get<std::string>() : std::string(); };
    return *this;
  }
  // An optional value kept as written in a JSON object of the Project (the solver's and the
  // schedule's parameters): absent is null.
  Row& optionalIn(Json OptimizerConfig::*object) {
    const std::string key = m_s.key;
    m_s.write = WritePolicy::WhenSet;
    m_s.get = [object, key](const Project& p) {
      const Json& o = p.optimizer.*object;
      return o.is_object() && o.contains(key) ? o.at(key) : Json();
    };
    m_s.set = [object, key](Project& p, const Json& v) { (p.optimizer.*object)[key] = v; };
    return *this;
  }
  Setting take() { return std::move(m_s); }

 private:
  Setting m_s;
};

// One row per hyper-parameter key of the solvers (Note [Solver folders]), with the words and the
// range of the first solver that declares it and the list of those that take it. The rows are in
// the order files write them: each solver's keys in the order it declares them (a key comes after
// every key that some solver declares just before it; otherwise in the order the keys are met).
std::vector<Setting> hyperRows() {
  struct Key {
    const SolverHyperParameter* first;
    std::vector<std::string> solvers;
    std::vector<std::string> after;
    bool positive = true;
    bool placed = false;
  };
  std::vector<Key> keys;
  const auto find = [&](const char* name) {
    return std::find_if(keys.begin(), keys.end(), [&](const Key& k) { return std::string(k.first->name) == name; });
  };
  for (const SolverRow& s : solverTable())
    for (size_t j = 0; j < s.hyper.size(); ++j) {
      const SolverHyperParameter& h = s.hyper[j];
      auto it = find(h.name);
      if (it == keys.end()) it = keys.insert(keys.end(), Key{&h, {}, {}});
      NS_CHECK((h.range == SolverHyperRange::Flag) == (it->first->range == SolverHyperRange::Flag),
               "settings table: the solvers' hyper-parameter '{}' is a flag for one and a number for another", h.name);
      it->solvers.emplace_back(s.name);
      it->positive = it->positive && h.range == SolverHyperRange::Positive;
      if (j > 0) it->after.emplace_back(s.hyper[j - 1].name);
    }
  std::vector<Setting> rows;
  while (rows.size() < keys.size()) {
    const auto ready = std::find_if(keys.begin(), keys.end(), [&](const Key& k) {
      return !k.placed && std::all_of(k.after.begin(), k.after.end(), [&](const std::string& a) { return find(a.c_str())->placed; });
    });
    NS_CHECK(ready != keys.end(), "settings table: the solvers declare their hyper-parameters in contradicting orders");
    ready->placed = true;
    const SolverHyperParameter& h = *ready->first;
    std::string takenBy;
    for (const auto& name : ready->solvers) takenBy += (takenBy.empty() ? "" : ", ") + name;
    const bool flag = h.range == SolverHyperRange::Flag;
    Row row(SettingGroup::Optimizer, h.name, flag ? SettingType::Flag : SettingType::Number, h.name,
            format("{} ({}.) Leave empty for the solver's default.", h.help, takenBy));
    // The loader checks the lower bound; the upper bound of [0, 1) and which solver takes which
    // name are checked with the chosen solver (Optimizer::create), whose message names the path.
    if (!flag) row.min(0, ready->positive);
    row.optionalIn(&OptimizerConfig::hyper);
    Setting setting = row.take();
    setting.solvers = ready->solvers;
    rows.push_back(std::move(setting));
  }
  return rows;
}

std::vector<Setting> buildTable() {
  using G = SettingGroup;
  using T = SettingType;
  std::vector<Setting> rows;
  const auto add = [&](Row& row) { rows.push_back(row.take()); };

  // --- config ------------------------------------------------------------------------------
  add(Row(G::GlobalConfig, "max_epoch", T::Integer, "Max epoch", "Epochs to train.")
          .min(1)
          .field([](auto& p) -> auto& { return p.config.maxEpoch; }));
  add(Row(G::GlobalConfig, "batch_size", T::Integer, "Batch size",
          "Samples per iteration on each device; with N devices the logical batch is N times this.")
          .min(1)
          .field([](auto& p) -> auto& { return p.config.batchSize; }));
  add(Row(G::GlobalConfig, "accumulate_gradients", T::Integer, "Accumulate gradients",
          "Micro-batches of batch_size each device runs per step, their gradients summed before one update: a "
          "logical batch this many times larger in the memory of one batch. 1: off.")
          .min(1)
          .unlessDefault("1")
          .field([](auto& p) -> auto& { return p.config.accumulateGradients; }));
  add(Row(G::GlobalConfig, "monitor_interval", T::Integer, "Monitor interval", "Validate every N epochs (and after the last).")
          .min(1)
          .field([](auto& p) -> auto& { return p.config.monitorInterval; }));
  // Which devices can compute each is the training plan's business (Note [CPU bfloat16]).
  add(Row(G::GlobalConfig, "precision", T::Choice, "Precision",
          "float: 32-bit everywhere. bfloat16: bf16 products in convolutions and inner products, 32-bit weights and "
          "accumulation, on GPUs (which also store activations in 16 bits) and on CPUs with AVX512-BF16 or AMX. "
          "half: fp16 activations and products on CUDA devices only.")
          .choices({"float", "half", "bfloat16"})
          .field([](auto& p) -> auto& { return p.config.precision; }));
  add(Row(G::GlobalConfig, "seed", T::Seed, "Seed", "Initial weights, shuffling and Dropout masks.")
          .field([](auto& p) -> auto& { return p.config.seed; }));
  add(Row(G::GlobalConfig, "deterministic", T::Flag, "Deterministic",
          "Bitwise identical weights on 1, 2 or 4 devices and after a resume (slower).")
          .field([](auto& p) -> auto& { return p.config.deterministic; }));
  add(Row(G::GlobalConfig, "save_best", T::Flag, "Save best",
          "Keep the parameters of the epoch with the lowest validation error as best.nsparams in the run folder.")
          .unlessDefault()
          .field([](auto& p) -> auto& { return p.config.saveBest; }));
  add(Row(G::GlobalConfig, "early_stopping", T::Integer, "Early stopping",
          "Stop when the validation error has not improved for this many validations in a row (patience), and keep "
          "the best epoch's parameters. 0: off.")
          .min(0)
          .unlessDefault("off")
          .field([](auto& p) -> auto& { return p.config.earlyStopping; }));
  add(Row(G::GlobalConfig, "early_stopping_min_delta", T::Number, "Min. improvement",
          "Early stopping counts a validation error as improved only when it is lower than the best by more than this.")
          .min(0)
          .unlessDefault("0")
          .field([](auto& p) -> auto& { return p.config.earlyStoppingMinDelta; }));
  add(Row(G::GlobalConfig, "initial_parameters", T::Path, "Initial parameters",
          "A parameters file (.nsparams: an imported model's, or a run's parameters.nsparams) or a run folder to start "
          "training from instead of random weights. Parameters are matched by layer name and shape; layers not in it, "
          "or of another shape, start from their initialisers, and the run reports which. Empty: none.")
          .optionalPath(&TrainingConfig::initialParameters)
          .absent("none: the layers' initialisers"));

  // --- config.augmentation: every key optional, absent ones off ------------------------------
  add(Row(G::Augmentation, "flip_horizontal", T::Flag, "Horizontal flip", "Mirror left-right with probability 0.5.")
          .unlessDefault("off")
          .field([](auto& p) -> auto& { return p.config.augmentation.flipHorizontal; }));
  add(Row(G::Augmentation, "flip_vertical", T::Flag, "Vertical flip", "Mirror top-bottom with probability 0.5.")
          .unlessDefault("off")
          .field([](auto& p) -> auto& { return p.config.augmentation.flipVertical; }));
  // The largest crop_padding accepted: far beyond any image's use, small enough for int arithmetic.
  add(Row(G::Augmentation, "crop_padding", T::Integer, "Crop padding",
          "Pad by this many zero pixels on every side, then crop back to the image size at a random place.")
          .min(0)
          .max(4096)
          .unlessDefault("off")
          .field([](auto& p) -> auto& { return p.config.augmentation.cropPadding; }));
  add(Row(G::Augmentation, "rotation_degrees", T::Number, "Rotation (°)",
          "Rotate by a random angle within ± this many degrees (0 to 180); corners outside the image are 0.")
          .min(0)
          .max(180, false, "degrees")
          .unlessDefault("off")
          .field([](auto& p) -> auto& { return p.config.augmentation.rotationDegrees; }));
  add(Row(G::Augmentation, "scale", T::Number, "Scale",
          "Zoom by a random factor within 1 ± this (0 to below 1): 0.1 gives ×0.9 to ×1.1.")
          .min(0)
          .max(1, true, "the largest relative change of size, such as 0.1 for ×0.9 to ×1.1")
          .unlessDefault("off")
          .field([](auto& p) -> auto& { return p.config.augmentation.scale; }));
  add(Row(G::Augmentation, "shift", T::Number, "Shift",
          "Move by whole pixels, up to this fraction of the width and height (0 to 1).")
          .min(0)
          .max(1, false, "a fraction of the width and height, such as 0.1")
          .unlessDefault("off")
          .field([](auto& p) -> auto& { return p.config.augmentation.shift; }));
  add(Row(G::Augmentation, "brightness", T::Number, "Brightness",
          "Multiply every value by a random factor within 1 ± this (not below 0).")
          .min(0)
          .unlessDefault("off")
          .field([](auto& p) -> auto& { return p.config.augmentation.brightness; }));
  add(Row(G::Augmentation, "contrast", T::Number, "Contrast",
          "Scale each value's distance to the image's mean by a random factor within 1 ± this (not below 0).")
          .min(0)
          .unlessDefault("off")
          .field([](auto& p) -> auto& { return p.config.augmentation.contrast; }));

  // --- optimizer ---------------------------------------------------------------------------
  std::vector<std::string> solvers;
  for (const SolverRow& s : solverTable()) solvers.emplace_back(s.name);
  add(Row(G::Optimizer, "solver", T::Choice, "Solver", "Update rule (as in nnabla).")
          .choices(solvers)
          .field([](auto& p) -> auto& { return p.optimizer.solver; }));
  for (Setting& row : hyperRows()) rows.push_back(std::move(row));
  add(Row(G::Optimizer, "weight_decay", T::Number, "Weight decay", "Adds wd·w to the gradient (AdamW: decoupled decay).")
          .min(0)
          .field([](auto& p) -> auto& { return p.optimizer.weightDecay; }));
  add(Row(G::Optimizer, "clip_gradient_norm", T::Number, "Clip gradient norm",
          "Scale the gradient down to this global L2 norm (over every parameter, after the devices' gradients are "
          "summed) when it is larger. 0: off.")
          .min(0)
          .unlessDefault("off")
          .field([](auto& p) -> auto& { return p.optimizer.clipGradientNorm; }));
  add(Row(G::Optimizer, "ema_decay", T::Number, "EMA decay",
          "Keep an exponential moving average of the weights, updated after every step (average ← decay·average + "
          "(1 − decay)·weights), and validate, save and export the average; training continues from the weights. "
          "Such as 0.999 (about the last 1000 steps). 0: off.")
          .min(0)
          .max(1, true, "a decay such as 0.999; 0: off")
          .unlessDefault("off")
          .field([](auto& p) -> auto& { return p.optimizer.emaDecay; }));
  add(Row(G::Optimizer, "lr_multiplier", T::Number, "LR multiplier", "Learning rate × this every LR update interval.")
          .min(0, true)
          .field([](auto& p) -> auto& { return p.optimizer.lrMultiplier; }));
  add(Row(G::Optimizer, "lr_update_interval", T::Integer, "LR update interval",
          "Iterations between learning-rate multiplications.")
          .min(1)
          .field([](auto& p) -> auto& { return p.optimizer.lrUpdateInterval; }));
  add(Row(G::Optimizer, "warmup_epochs", T::Number, "Warm-up epochs", "Linear learning-rate warm-up over these epochs.")
          .min(0)
          .field([](auto& p) -> auto& { return p.optimizer.warmupEpochs; }));
  // engine/optim/lr_schedule.cpp computes them; tst_settings_table checks that both name the same.
  add(Row(G::Optimizer, "lr_schedule", T::Choice, "Schedule",
          "none, cosine (to 0), step (× gamma every step_epochs) or exponential (× gamma per epoch).")
          .choices({"none", "cosine", "step", "exponential"})
          .field([](auto& p) -> auto& { return p.optimizer.lrSchedule; }));
  add(Row(G::Optimizer, "step_epochs", T::Integer, "step_epochs", "step schedule period, in epochs.")
          .min(1)
          .schedules({"step"})
          .optionalIn(&OptimizerConfig::scheduleParams));
  add(Row(G::Optimizer, "gamma", T::Number, "gamma", "step/exponential schedule factor.")
          .min(0, true)
          .schedules({"step", "exponential"})
          .optionalIn(&OptimizerConfig::scheduleParams));
  return rows;
}

}  // namespace

std::string Setting::expected() const {
  switch (type) {
    case SettingType::Integer:
      if (bounds.max) return format("an integer in [{}, {}]", *bounds.min, *bounds.max);
      return format("an integer >= {}", bounds.min.value_or(0));
    case SettingType::Seed:
      return "a non-negative integer";
    case SettingType::Number:
      if (bounds.max)
        return format("a number in [{}, {}{}", bounds.min.value_or(0), *bounds.max, bounds.maxExclusive ? ")" : "]");
      if (bounds.min) return format("a number {} {}", bounds.minExclusive ? ">" : ">=", *bounds.min);
      return "a number";
    case SettingType::Flag:
      return "true or false";
    case SettingType::Path:
      return "a file path (a non-empty string)";
    case SettingType::Choice: {
      std::string s;
      for (size_t i = 0; i < choices.size(); ++i) s += (i ? ", " : "") + choices[i];
      return "one of " + s;
    }
  }
  return {};
}

const std::vector<Setting>& settingsTable() {
  static const std::vector<Setting> rows = buildTable();
  return rows;
}

const Setting* findSetting(const std::string& path) {
  for (const Setting& s : settingsTable())
    if (s.path == path) return &s;
  return nullptr;
}

std::vector<const Setting*> settingsOf(SettingGroup group) {
  std::vector<const Setting*> out;
  for (const Setting& s : settingsTable())
    if (s.group == group) out.push_back(&s);
  return out;
}

}  // namespace netsmith
