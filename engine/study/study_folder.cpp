#include "engine/study/study_folder.h"

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "engine/core/error.h"
#include "engine/core/text_files.h"
#include "engine/protocol/json_fields.h"
#include "engine/train/run_folder.h"

namespace fs = std::filesystem;

namespace netsmith::study {

namespace {

Json optionalNumber(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

// Reads `key` of a log line or study.json with the type it must have; `where` names file and line.
template <typename T>
T field(const Json& j, const char* key, const std::string& where) {
  const auto it = j.find(key);
  NS_CHECK(it != j.end(), "{}: '{}' is missing", where, key);
  try {
    return it->get<T>();
  } catch (const Json::exception&) {
    NS_THROW("{}: '{}' has the wrong type ({})", where, key, it->dump());
  }
}

// An unfinished trial whose run began was stopped (Ctrl-C, the console's Stop, a kill): a resume
// continues it.
std::string statusOf(const TrialRecord& t) {
  if (t.ended()) return t.status;
  return fs::exists(fs::path(t.runDir) / "run.json") ? "stopped" : "not run";
}

// [[epoch, error], ...]: the trial's validation curve as the study saw it.
Json epochErrors(const TrialRecord& t) {
  Json curve = Json::array();
  for (const auto& e : t.epochs) curve.push_back({e.epoch, e.validationError});
  return curve;
}

}  // namespace

std::optional<double> TrialRecord::bestError() const {
  std::optional<double> best;
  for (const auto& e : epochs)
    if (!best || e.validationError < *best) best = e.validationError;
  return best;
}

std::optional<double> TrialRecord::finalError() const {
  if (epochs.empty()) return std::nullopt;
  return epochs.back().validationError;
}

int64_t TrialRecord::bestEpoch() const {
  int64_t at = 0;
  std::optional<double> best;
  for (const auto& e : epochs)
    if (!best || e.validationError < *best) {
      best = e.validationError;
      at = e.epoch;
    }
  return at;
}

Json StudyDefinition::toJson() const {
  Json params = Json::array();
  for (const auto& p : parameters) params.push_back(p.toJson());
  Json j = {{"format", "netsmith-study"},
            {"version", 1},
            {"project", projectPath},
            {"stamp", stamp},
            {"search", searchKindName(search)},
            {"parameters", params},
            {"queued", queued},
            {"seed", seed},
            {"trials", trialBudget},
            {"time_budget_s", timeBudgetSeconds},
            {"early_stop", stopRuleName(stopping.rule)},
            {"early_stop_grace_epochs", stopping.graceEpochs},
            {"early_stop_reduction", stopping.reduction},
            {"trial_max_epoch", stopping.maxEpoch},
            {"devices", devices},
            {"devices_per_trial", devicesPerTrial},
            {"train_samples", trainSamples},
            {"validation_samples", validationSamples}};
  j["max_epoch"] = maxEpoch ? Json(*maxEpoch) : Json(nullptr);
  j["early_stopping"] = earlyStopping ? Json(*earlyStopping) : Json(nullptr);
  return j;
}

StudyDefinition StudyDefinition::fromJson(const Json& j, const std::string& file) {
  NS_CHECK(j.is_object() && j.value("format", "") == "netsmith-study",
           "{}: not a study (expected an object with \"format\": \"netsmith-study\")", file);
  StudyDefinition d;
  d.projectPath = field<std::string>(j, "project", file);
  d.stamp = field<std::string>(j, "stamp", file);
  d.search = parseSearchKind(field<std::string>(j, "search", file), file + ": search");
  const Json params = field<Json>(j, "parameters", file);
  NS_CHECK(params.is_array(), "{}: parameters: expected an array", file);
  for (size_t i = 0; i < params.size(); ++i)
    d.parameters.push_back(SearchParameter::fromJson(params[i], format("{}: parameters[{}]", file, i)));
  d.queued = field<std::vector<std::string>>(j, "queued", file);
  d.seed = field<uint64_t>(j, "seed", file);
  d.trialBudget = field<int64_t>(j, "trials", file);
  d.timeBudgetSeconds = field<double>(j, "time_budget_s", file);
  d.stopping.rule = parseStopRule(field<std::string>(j, "early_stop", file), file + ": early_stop");
  d.stopping.graceEpochs = field<int64_t>(j, "early_stop_grace_epochs", file);
  d.stopping.reduction = field<int64_t>(j, "early_stop_reduction", file);
  d.stopping.maxEpoch = field<int64_t>(j, "trial_max_epoch", file);
  d.devices = field<std::vector<std::string>>(j, "devices", file);
  d.devicesPerTrial = field<int>(j, "devices_per_trial", file);
  d.trainSamples = field<int64_t>(j, "train_samples", file);
  d.validationSamples = field<int64_t>(j, "validation_samples", file);
  if (j.contains("max_epoch") && !j["max_epoch"].is_null()) d.maxEpoch = field<int64_t>(j, "max_epoch", file);
  if (j.contains("early_stopping") && !j["early_stopping"].is_null())
    d.earlyStopping = field<int64_t>(j, "early_stopping", file);
  NS_CHECK(d.devicesPerTrial >= 1 && !d.devices.empty(), "{}: expected devices and devices_per_trial >= 1", file);
  return d;
}

std::unique_ptr<StudyFolder> StudyFolder::create(const fs::path& runs, StudyDefinition& definition,
                                                 const std::string& baseProjectText) {
  fs::create_directories(runs);
  // One mkdir claims the folder: two sweeps of a project started in the same second would
  // otherwise share it. The loser waits for the next second (the run history reads the stamp).
  std::string stamp = timestampFolderName();
  for (int tries = 0; !fs::create_directory(runs / (stamp + "-sweep")); ++tries) {
    NS_CHECK(tries < 50, "{}: cannot claim a sweep folder: every second's name is taken", runs.string());
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stamp = timestampFolderName();
  }
  definition.stamp = stamp;
  std::unique_ptr<StudyFolder> folder(new StudyFolder(runs / (stamp + "-sweep")));
  folder->m_lock = RunFolderLock::acquire(folder->m_dir);
  folder->m_definition = definition;
  writeTextAtomically(folder->baseProject(), baseProjectText);
  folder->writeDefinition();
  folder->m_log = std::make_unique<LineAppender>(folder->m_dir / "trials.jsonl");
  return folder;
}

std::unique_ptr<StudyFolder> StudyFolder::open(const fs::path& dir) {
  const fs::path file = dir / "study.json";
  NS_CHECK(fs::is_directory(dir), "{}: no such study folder", dir.string());
  NS_CHECK(fs::exists(file), "{}: not a study folder (no study.json: only a sweep of this version can be resumed)",
           dir.string());
  std::unique_ptr<StudyFolder> folder(new StudyFolder(dir));
  folder->m_lock = RunFolderLock::acquire(dir);
  std::ifstream in(file);
  const Json j = Json::parse(in, nullptr, false);
  NS_CHECK(!j.is_discarded(), "{}: not valid JSON", file.string());
  folder->m_definition = StudyDefinition::fromJson(j, file.string());
  NS_CHECK(fs::exists(folder->baseProject()), "{}: missing: the study's base project is gone",
           folder->baseProject().string());
  folder->readLog();
  folder->m_log = std::make_unique<LineAppender>(dir / "trials.jsonl");  // cuts a torn last line
  return folder;
}

StudyFolder::~StudyFolder() = default;

void StudyFolder::readLog() {
  const fs::path file = m_dir / "trials.jsonl";
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // A last line without its newline was torn by a kill: it never happened.
  if (!text.empty() && text.back() != '\n') text.erase(text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1);
  std::istringstream lines(text);
  std::string line;
  int64_t number = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (line.empty()) continue;
    const std::string where = format("{}:{}", file.string(), number);
    const Json j = Json::parse(line, nullptr, false);
    NS_CHECK(j.is_object(), "{}: not a JSON object: the study's log is damaged", where);
    const auto event = field<std::string>(j, "event", where);
    const auto index = field<int64_t>(j, "trial", where);
    m_secondsUsed = std::max(m_secondsUsed, j.value("at", 0.0));
    if (event == "trial") {
      NS_CHECK(index == static_cast<int64_t>(m_trials.size()), "{}: trial {} suggested out of order", where, index + 1);
      TrialRecord t;
      t.index = index;
      t.values = field<std::vector<Json>>(j, "values", where);
      NS_CHECK(t.values.size() == m_definition.parameters.size() || t.values.empty(),
               "{}: {} values for {} settings", where, t.values.size(), m_definition.parameters.size());
      t.label = field<std::string>(j, "label", where);
      t.project = field<std::string>(j, "project", where);
      t.sourceProject = field<std::string>(j, "source_project", where);
      t.runDir = field<std::string>(j, "run", where);
      m_trials.push_back(std::move(t));
      continue;
    }
    NS_CHECK(index >= 0 && index < static_cast<int64_t>(m_trials.size()), "{}: trial {} was never suggested", where,
             index + 1);
    TrialRecord& t = m_trials[static_cast<size_t>(index)];
    if (event == "epoch") {
      t.epochs.push_back({field<int64_t>(j, "epoch", where), field<double>(j, "validation_error", where)});
    } else if (event == "stopped_early") {
      t.stoppedEarly = field<std::string>(j, "reason", where);
    } else if (event == "ended") {
      t.status = field<std::string>(j, "status", where);
      t.message = j.value("message", "");
      t.devices = j.value("devices", "");
      t.seconds = j.value("seconds", 0.0);
      t.parametersSha256 = j.value("parameters_sha256", "");
    } else {
      NS_THROW("{}: unknown event '{}' (expected trial, epoch, stopped_early or ended)", where, event);
    }
  }
}

void StudyFolder::append(const Json& line) { m_log->append(protocol::jsonText(line) + "\n"); }

void StudyFolder::logTrial(const TrialRecord& t, double at) {
  append({{"event", "trial"},
          {"trial", t.index},
          {"values", t.values},
          {"label", t.label},
          {"project", t.project},
          {"source_project", t.sourceProject},
          {"run", t.runDir},
          {"at", at}});
}

void StudyFolder::logEpoch(const TrialRecord& t, const EpochRecord& e, double at) {
  append({{"event", "epoch"}, {"trial", t.index}, {"epoch", e.epoch}, {"validation_error", e.validationError}, {"at", at}});
}

void StudyFolder::logStoppedEarly(const TrialRecord& t, double at) {
  append({{"event", "stopped_early"}, {"trial", t.index}, {"epoch", t.epochs.empty() ? 0 : t.epochs.back().epoch},
          {"reason", t.stoppedEarly.value_or("")}, {"at", at}});
}

void StudyFolder::logEnded(const TrialRecord& t, double at) {
  append({{"event", "ended"},
          {"trial", t.index},
          {"status", t.status},
          {"message", t.message},
          {"devices", t.devices},
          {"seconds", t.seconds},
          {"best_validation_error", optionalNumber(t.bestError())},
          {"parameters_sha256", t.parametersSha256},
          {"at", at}});
}

Json StudyFolder::summary() const {
  Json rows = Json::array();
  for (const TrialRecord& t : m_trials) {
    Json settings = Json::object();
    for (size_t i = 0; i < t.values.size() && i < m_definition.parameters.size(); ++i)
      settings[m_definition.parameters[i].path] = t.values[i];
    rows.push_back({{"trial", t.index + 1},
                    {"settings", settings},
                    {"label", t.label},
                    {"project", t.sourceProject},
                    {"trial_project", t.project},
                    {"device", t.devices},
                    {"status", statusOf(t)},
                    {"final_validation_error", optionalNumber(t.finalError())},
                    {"best_validation_error", optionalNumber(t.bestError())},
                    {"best_epoch", t.bestEpoch()},
                    {"epochs", t.epochs.empty() ? 0 : t.epochs.back().epoch},
                    {"validation_errors", epochErrors(t)},
                    {"stopped_early", t.stoppedEarly ? Json(*t.stoppedEarly) : Json(nullptr)},
                    {"seconds", t.seconds},
                    {"run", t.runDir},
                    {"parameters_sha256", t.parametersSha256},
                    {"message", t.message}});
  }
  return rows;
}

void StudyFolder::writeSummary() const { writeTextAtomically(m_dir / "summary.json", protocol::jsonText(summary(), 2) + "\n"); }

void StudyFolder::writeDefinition() const {
  writeTextAtomically(m_dir / "study.json", protocol::jsonText(m_definition.toJson(), 2) + "\n");
}

}  // namespace netsmith::study
