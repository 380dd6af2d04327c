#include "engine/study/study_runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <deque>
#include <fstream>
#include <mutex>
#include <thread>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/core/error.h"
#include "engine/core/text_files.h"
#include "engine/optim/optimizer.h"
#include "engine/project/project_io.h"
#include "engine/protocol/events.h"
#include "engine/protocol/json_fields.h"
#include "engine/study/trial_project.h"
#include "engine/train/trainer.h"

namespace fs = std::filesystem;

namespace netsmith::study {

namespace {

// Run folder names: letters, digits and . - = only.
std::string folderSafe(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '=') c = '_';
  return s;
}

int64_t gridSize(const StudyDefinition& d) {
  if (d.search != SearchKind::Grid) return d.trialBudget;
  int64_t n = 1;
  for (const auto& p : d.parameters) n *= static_cast<int64_t>(p.choices.size());
  return d.parameters.empty() && !d.queued.empty() ? (d.trialBudget > 0 ? 1 : 0) : n;
}

fs::path runsOf(const std::string& project) {
  const fs::path file(project);
  return file.parent_path() / (file.stem().string() + ".runs");
}

std::string joined(const std::vector<std::string>& devices) {
  std::string s;
  for (const auto& d : devices) s += (s.empty() ? "" : "+") + d;
  return s;
}

}  // namespace

int64_t plannedTrials(const StudyDefinition& d) {
  return std::min(d.trialBudget, gridSize(d)) + static_cast<int64_t>(d.queued.size());
}

namespace {

// The trial's record and project JSON (not yet written).
std::pair<TrialRecord, Json> trialProject(StudyFolder& folder, int64_t index, const TrialValues& values) {
  const StudyDefinition& d = folder.definition();
  const int64_t fromGrid = std::min(d.trialBudget, gridSize(d));
  TrialRecord t;
  t.index = index;
  Json project;
  fs::path runs = folder.dir().parent_path();
  if (index < fromGrid) {
    std::ifstream in(folder.baseProject());
    project = Json::parse(in, nullptr, false);
    NS_CHECK(project.is_object(), "{}: not valid JSON", folder.baseProject().string());
    t.values = values;
    t.label = d.parameters.empty() ? fs::path(d.projectPath).stem().string() : trialLabel(d.parameters, values);
    t.sourceProject = d.projectPath;
    for (size_t i = 0; i < values.size(); ++i) setProjectValue(project, d.parameters[i].path, values[i]);
  } else {
    const std::string& queued = d.queued.at(static_cast<size_t>(index - fromGrid));
    project = projectToPortableJson(loadProject(queued));
    t.label = fs::path(queued).stem().string();
    t.sourceProject = queued;
    runs = runsOf(queued);
  }
  // The trials running at once share the cores: one thread per core of each trial's devices.
  const int64_t groups = std::max<int64_t>(1, static_cast<int64_t>(d.devices.size()) / d.devicesPerTrial);
  const int64_t atOnce = std::min(groups, std::max<int64_t>(1, plannedTrials(d))) * d.devicesPerTrial;
  if (project["parallel"].value("threads_per_device", 0) == 0)
    project["parallel"]["threads_per_device"] = std::max<int64_t>(1, availableCores() / atOnce);
  project["parallel"].erase("worker_load");
  t.project = (folder.dir() / format("{}-{}.nsproj", index + 1, folderSafe(t.label))).string();
  t.runDir = (runs / format("{}-sweep{}-{}", d.stamp, index + 1, folderSafe(t.label))).string();
  return {t, project};
}

}  // namespace

TrialRecord prepareTrial(StudyFolder& folder, int64_t index, const TrialValues& values) {
  auto [t, project] = trialProject(folder, index, values);
  writeTextAtomically(t.project, protocol::jsonText(project, 2) + "\n");  // a full disk is an Error naming it
  // Throws naming the file and what is wrong; the solver's own check runs when training starts.
  Optimizer::create(loadProject(t.project).optimizer);
  return t;
}

void checkRangeEnds(StudyFolder& folder, const TrialValues& values) {
  const auto& parameters = folder.definition().parameters;
  const fs::path file = folder.dir() / ".range-check.nsproj";
  for (size_t i = 0; i < parameters.size(); ++i) {
    if (!parameters[i].numeric()) continue;
    for (const double end : {0.0, 1.0}) {
      TrialValues at = values;
      at[i] = parameters[i].fromUnit(end);
      const Json project = trialProject(folder, 0, at).second;
      writeTextAtomically(file, protocol::jsonText(project, 2) + "\n");
      try {
        Optimizer::create(loadProject(file.string()).optimizer);
      } catch (const Error& e) {
        fs::remove(file);
        NS_THROW("--range {}: the end {} is refused: {}", parameters[i].path, parameters[i].valueText(at[i]), e.what());
      }
    }
  }
  fs::remove(file);
}

namespace {

// One trial's epochs, reported to the log and the stopping rule as the training publishes them.
class TrialSink final : public EventSink {
 public:
  TrialSink(std::function<void(int64_t, double)> onEpoch) : m_onEpoch(std::move(onEpoch)) {}
  void publish(const Json& json) override {
    const auto name = json.find("event");
    if (name == json.end() || *name != protocol::EpochEvent::kName) return;
    const protocol::EpochEvent e = protocol::EpochEvent::fromJson(json);
    if (e.validationError && std::isfinite(*e.validationError)) m_onEpoch(e.epoch, *e.validationError);
  }

 private:
  std::function<void(int64_t, double)> m_onEpoch;
};

// A trial's settings as TensorBoard's HParams take them: by the settings' short names, numbers,
// strings and flags as they are, anything else (a list) as its JSON text.
Json trialHParams(const StudyDefinition& d, const TrialRecord& t) {
  Json hparams = Json::object();
  for (size_t i = 0; i < t.values.size() && i < d.parameters.size(); ++i) {
    const Json& v = t.values[i];
    hparams[d.parameters[i].name()] = v.is_number() || v.is_string() || v.is_boolean() ? v : Json(v.dump());
  }
  return hparams;
}

class Session {
 public:
  Session(StudyFolder& folder, const StudyEvents& events, const RunControl& stop)
      : m_folder(folder), m_events(events), m_stop(stop), m_d(folder.definition()), m_stopper(m_d.stopping),
        m_offset(folder.secondsUsed()) {
    if (!m_d.parameters.empty()) m_sampler = makeSampler(m_d.search, m_d.parameters, m_d.seed);
    // The rungs as they were: every logged epoch, in the log's order.
    for (const TrialRecord& t : m_folder.trials())
      for (const EpochRecord& e : t.epochs) m_stopper.report(t.index, e.epoch, e.validationError);
    for (const TrialRecord& t : m_folder.trials())
      if (!t.ended()) m_unfinished.push_back(t.index);
  }

  StudyOutcome run() {
    NS_CHECK(static_cast<int64_t>(m_d.devices.size()) >= m_d.devicesPerTrial,
             "--devices-per-trial {}: only {} devices given ({})", m_d.devicesPerTrial, m_d.devices.size(),
             joined(m_d.devices));
    std::vector<std::vector<std::string>> groups;
    for (size_t i = 0; i + static_cast<size_t>(m_d.devicesPerTrial) <= m_d.devices.size();
         i += static_cast<size_t>(m_d.devicesPerTrial))
      groups.emplace_back(m_d.devices.begin() + static_cast<std::ptrdiff_t>(i),
                          m_d.devices.begin() + static_cast<std::ptrdiff_t>(i) + m_d.devicesPerTrial);
    std::atomic<bool> done{false};
    std::thread watchdog([&] {
      while (!done.load()) {
        if (m_d.timeBudgetSeconds > 0 && now() >= m_d.timeBudgetSeconds) {
          std::lock_guard lock(m_mutex);
          if (!m_outcome.timeBudgetSpent) {
            m_outcome.timeBudgetSpent = true;
            for (auto& [index, control] : m_running) control->requestStop();
          }
        }
        if (m_stop.stopRequested()) {
          std::lock_guard lock(m_mutex);
          for (auto& [index, control] : m_running) control->requestStop();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    });
    std::vector<std::thread> slots;
    for (const auto& group : groups) slots.emplace_back([this, group] { slot(group); });
    for (auto& s : slots) s.join();
    done = true;
    watchdog.join();
    std::lock_guard lock(m_mutex);
    for (const TrialRecord& t : m_folder.trials()) {
      m_outcome.anyFailed = m_outcome.anyFailed || t.status == "failed";
      if (!t.ended()) m_outcome.interrupted = true;
    }
    if (!m_outcome.timeBudgetSpent && static_cast<int64_t>(m_folder.trials().size()) < plannedTrials(m_d))
      m_outcome.interrupted = true;
    m_folder.writeSummary();
    return m_outcome;
  }

 private:
  double now() const { return m_offset + std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count(); }

  // The next trial to train, under the lock: an unfinished one of the log first, then a new one.
  std::optional<int64_t> nextTrial() {
    if (m_stop.stopRequested() || m_outcome.timeBudgetSpent) return std::nullopt;
    if (!m_unfinished.empty()) {
      const int64_t index = m_unfinished.front();
      m_unfinished.pop_front();
      return index;
    }
    auto& trials = m_folder.trials();
    const auto index = static_cast<int64_t>(trials.size());
    if (index >= plannedTrials(m_d)) return std::nullopt;
    TrialValues values;
    if (index < std::min(m_d.trialBudget, gridSize(m_d)) && !m_d.parameters.empty()) {
      std::vector<Observation> observed;
      for (const TrialRecord& t : trials)
        if (t.ended()) observed.push_back(t.observation());
      values = m_sampler->suggest(index, observed);
    }
    TrialRecord t;
    try {
      t = prepareTrial(m_folder, index, values);
    } catch (const Error& e) {
      // A drawn value the project refuses (a grid's were checked before the study began): the
      // trial fails, the study goes on, and the samplers count it among the worst.
      t.index = index;
      t.values = values;
      t.label = trialLabel(m_d.parameters, values);
      t.sourceProject = m_d.projectPath;
      t.status = "failed";
      t.message = e.what();
      trials.push_back(t);
      m_folder.logTrial(t, now());
      m_folder.logEnded(t, now());
      if (m_events.trialEnded) m_events.trialEnded(t);
      return nextTrial();
    }
    trials.push_back(t);
    m_folder.logTrial(t, now());
    return index;
  }

  void slot(const std::vector<std::string>& devices) {
    for (;;) {
      RunControl control;
      int64_t index = 0;
      TrainOptions options;
      {
        std::lock_guard lock(m_mutex);
        const auto next = nextTrial();
        if (!next) return;
        index = *next;
        TrialRecord& t = m_folder.trials()[static_cast<size_t>(index)];
        t.devices = joined(devices);
        if (fs::exists(fs::path(t.runDir) / "run.json")) {
          options.resumeRun = t.runDir;  // a trial a kill or a stop interrupted: from its newest checkpoint
        } else {
          options.projectPath = t.project;
          options.runDir = t.runDir;
        }
        // TensorBoard's HParams view lists the trial with its settings (Note [TensorBoard HParams]).
        // Read here, under the lock: another slot's next trial may grow the trials' vector and
        // move this record (ThreadSanitizer caught the read outside it, tst_study_threads).
        options.hparams = trialHParams(m_d, t);
        m_running[index] = &control;
        if (m_events.trialStarted) m_events.trialStarted(t);
      }
      options.devices = devices;
      options.maxEpoch = m_d.maxEpoch;
      options.earlyStopping = m_d.earlyStopping;
      options.trainSamples = m_d.trainSamples;
      options.validationSamples = m_d.validationSamples;
      EventBus bus;
      TrialSink sink([&](int64_t epoch, double error) { onEpoch(index, epoch, error, control); });
      bus.add(&sink);
      options.events = &bus;
      options.control = &control;
      const auto start = std::chrono::steady_clock::now();
      const TrainResult result = runTraining(options);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::lock_guard lock(m_mutex);
      m_running.erase(index);
      TrialRecord& t = m_folder.trials()[static_cast<size_t>(index)];
      t.seconds += seconds;
      t.message = result.message;
      t.parametersSha256 = result.parametersSha256;
      if (result.status == "completed" || result.status == "failed") t.status = result.status;
      else if (t.stoppedEarly) t.status = "stopped_early";
      else if (m_outcome.timeBudgetSpent) {
        t.status = "stopped";
        t.message = "the study's time budget ran out";
      }
      // Otherwise (Ctrl-C, the console's Stop) it stays unfinished: a resume continues it.
      if (t.ended()) m_folder.logEnded(t, now());
      m_folder.writeSummary();
      if (m_events.trialEnded) m_events.trialEnded(t);
    }
  }

  void onEpoch(int64_t index, int64_t epoch, double error, RunControl& control) {
    std::lock_guard lock(m_mutex);
    TrialRecord& t = m_folder.trials()[static_cast<size_t>(index)];
    // A resumed trial may repeat an epoch it had reported before its kill: the log keeps the first.
    if (!t.epochs.empty() && epoch <= t.epochs.back().epoch) return;
    const EpochRecord record{epoch, error};
    t.epochs.push_back(record);
    m_folder.logEpoch(t, record, now());
    if (m_events.trialEpoch) m_events.trialEpoch(t, record);
    if (t.stoppedEarly) return;
    if (const auto reason = m_stopper.report(index, epoch, error)) {
      t.stoppedEarly = *reason;
      m_folder.logStoppedEarly(t, now());
      control.requestStop();
    }
  }

  StudyFolder& m_folder;
  const StudyEvents& m_events;
  const RunControl& m_stop;
  const StudyDefinition& m_d;
  std::unique_ptr<Sampler> m_sampler;
  TrialStopper m_stopper;
  const double m_offset;
  const std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
  std::mutex m_mutex;
  std::deque<int64_t> m_unfinished;
  std::map<int64_t, RunControl*> m_running;
  StudyOutcome m_outcome;
};

}  // namespace

StudyOutcome StudyRunner::run(const RunControl& stop) { return Session(m_folder, m_events, stop).run(); }

}  // namespace netsmith::study
