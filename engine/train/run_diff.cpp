// Two runs read and compared (Note [Run differences], run_diff.h).
#include "engine/train/run_diff.h"

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "engine/core/error.h"
#include "engine/project/project_io.h"
#include "engine/protocol/json_fields.h"
#include "engine/train/run_folder.h"

namespace fs = std::filesystem;

namespace netsmith {
namespace {

using protocol::FieldReader;

enum class FigureGroup { Run, Result };

// The figures of the Run and Result groups, declared once: the key (the JSON's), the words, how
// the value is shown and what "not set" means for it.
struct FigureSpec {
  const char* key;
  const char* label;
  FigureGroup group;
  FigureFormat format;
  const char* absent;
};

const FigureSpec kFigures[] = {
    {"max_epoch", "Max epoch (--max-epoch)", FigureGroup::Run, FigureFormat::Plain, "the project's"},
    {"early_stopping", "Early stopping (--early-stopping)", FigureGroup::Run, FigureFormat::Plain, "the project's"},
    {"train_samples", "Training samples (--train-samples)", FigureGroup::Run, FigureFormat::Plain, "all"},
    {"validation_samples", "Validation samples (--validation-samples)", FigureGroup::Run, FigureFormat::Plain, "all"},
    {"devices", "Devices (--devices)", FigureGroup::Run, FigureFormat::Plain, "the project's"},
    {"trained_on", "Devices trained on", FigureGroup::Run, FigureFormat::Plain, ""},
    {"batch_per_device", "Batch per device", FigureGroup::Run, FigureFormat::Plain, ""},
    {"logical_batch", "Logical batch", FigureGroup::Run, FigureFormat::Plain, ""},
    {"effective_lr", "Learning rate used", FigureGroup::Run, FigureFormat::Plain, ""},
    {"backend", "Backend", FigureGroup::Run, FigureFormat::Plain, ""},
    {"status", "Status", FigureGroup::Result, FigureFormat::Plain, ""},
    {"epochs", "Epochs trained", FigureGroup::Result, FigureFormat::Plain, ""},
    {"final_train_loss", "Final training loss", FigureGroup::Result, FigureFormat::Loss, ""},
    {"final_validation_loss", "Final validation loss", FigureGroup::Result, FigureFormat::Loss, "not validated"},
    {"final_validation_error", "Final validation error", FigureGroup::Result, FigureFormat::Percent, "not validated"},
    {"best_validation_error", "Best validation error", FigureGroup::Result, FigureFormat::Percent, "not validated"},
    {"training_seconds", "Training time", FigureGroup::Result, FigureFormat::Seconds, ""},
    {"samples_per_s", "Samples/s", FigureGroup::Result, FigureFormat::Rate, ""},
    {"parameters_sha256", "Parameters (SHA-256)", FigureGroup::Result, FigureFormat::Hash, ""},
};

std::string readRunFile(const fs::path& path) {
  // A folder opens as a stream on Linux and fails only when read, with the library's words.
  std::error_code ec;
  NS_CHECK(fs::is_regular_file(path, ec), "{}: is not a file (a folder, or something else); expected the run's file",
           path.string());
  std::ifstream in(path, std::ios::binary);
  NS_CHECK(in.good(), "{}: cannot open it: {}", path.string(), std::strerror(errno));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  NS_CHECK(!in.bad(), "{}: cannot read it", path.string());
  return text;
}

Json parseRunJson(const fs::path& file) {
  const std::string text = readRunFile(file);
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::exception& e) {
    std::string what = e.what();
    const std::string marker = "parse error at ";
    if (const auto at = what.find(marker); at != std::string::npos) what = what.substr(at + marker.size());
    NS_THROW("{}: not valid JSON at {}", file.string(), what);
  }
  NS_CHECK(j.is_object(), "{}: expected a JSON object (a run's record), got {}", file.string(), protocol::describeValue(j));
  return j;
}

Json figureNumber(double v) { return std::isnan(v) ? Json() : Json(v); }
Json figureInteger(const std::optional<int64_t>& v) { return v ? Json(*v) : Json(); }

// The Run and Result figures of a run: run.json's fields checked by type (an error names the file
// and the path), and the learning curve's final figures.
Json figuresOfRun(const Json& record, const std::string& file, const protocol::LearningCurve& curve, const std::string& status) {
  const FieldReader r(record, file);
  const std::string format = r.text("format");
  if (!format.empty() && format != "netsmith-run") r.fail("format", "\"netsmith-run\"", record["format"]);
  r.text("run_id");  // the JSON output names the run by it: a string, when present
  Json f = Json::object();
  for (const char* key : {"max_epoch", "early_stopping", "train_samples", "validation_samples"})
    f[key] = figureInteger(r.optionalInteger(key));
  f["devices"] = r.has("devices") ? Json(r.texts("devices")) : Json();
  f["trained_on"] = Json();
  f["logical_batch"] = Json();
  f["effective_lr"] = Json();
  if (const auto training = r.object("training")) {
    std::vector<std::string> ids;
    training->forEachObject("devices", [&](const FieldReader& d) { ids.push_back(d.text("id")); });
    if (!ids.empty()) f["trained_on"] = ids;
    f["logical_batch"] = figureInteger(training->optionalInteger("logical_batch"));
    f["effective_lr"] = figureNumber(training->number("effective_lr"));
  }
  f["backend"] = Json();
  f["batch_per_device"] = Json();
  f["samples_per_s"] = Json();
  f["parameters_sha256"] = Json();
  if (const auto result = r.object("result")) {
    if (result->has("backend")) f["backend"] = result->text("backend");
    f["batch_per_device"] = figureInteger(result->optionalInteger("batch_per_device"));
    f["samples_per_s"] = figureNumber(result->number("samples_per_s"));
    if (result->has("parameters_sha256")) f["parameters_sha256"] = result->text("parameters_sha256");
  }
  f["status"] = status;
  f["epochs"] = static_cast<int64_t>(curve.size());
  f["final_train_loss"] = Json();
  f["final_validation_loss"] = Json();
  f["final_validation_error"] = Json();
  f["best_validation_error"] = Json();
  double seconds = 0;
  for (const protocol::LearningCurveRow& row : curve) {
    seconds += row.seconds;
    if (!row.validationError) continue;
    Json& best = f["best_validation_error"];
    if (best.is_null() || *row.validationError < best.get<double>()) best = *row.validationError;
  }
  f["training_seconds"] = curve.empty() ? Json() : Json(seconds);
  if (!curve.empty()) {
    const protocol::LearningCurveRow& last = curve.back();
    f["final_train_loss"] = figureNumber(last.trainLoss);
    if (last.validationLoss) f["final_validation_loss"] = *last.validationLoss;
    if (last.validationError) f["final_validation_error"] = *last.validationError;
  }
  return f;
}

// How the run ended: run.json's result, else whether a process still trains it.
std::string statusOfRun(const Json& record, const std::string& file, const fs::path& folder) {
  const FieldReader r(record, file);
  if (const auto result = r.object("result"))
    if (result->has("status")) return result->text("status");
  return runFolderInUse(folder) ? "running" : "not finished";
}

std::string diffNumberText(double v, const char* format = "%.6g") {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, v);
  return buffer;
}

std::string diffJsonText(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) return diffNumberText(v.get<double>());
  if (v.is_array() && std::all_of(v.begin(), v.end(), [](const Json& e) { return e.is_string(); })) {
    std::string list;
    for (const Json& e : v) list += (list.empty() ? "" : ", ") + e.get<std::string>();
    return v.empty() ? "(none)" : list;
  }
  return protocol::jsonText(v);
}

std::string diffValueText(const Json& v, bool isDefault, const std::string& absentText) {
  if (v.is_null()) return absentText.empty() ? "(not set)" : absentText;
  return diffJsonText(v) + (isDefault ? " (default)" : "");
}

std::string figureText(const FigureChange& c, const Json& v) {
  if (v.is_null()) return c.absentText.empty() ? "(not set)" : c.absentText;
  // 16 hex digits tell two runs' weights apart; the JSON keeps all 64.
  if (c.format == FigureFormat::Hash && v.is_string() && v.get<std::string>().size() > 16)
    return v.get<std::string>().substr(0, 16) + "…";
  if (!v.is_number()) return diffJsonText(v);
  const double x = v.get<double>();
  char buffer[64];
  switch (c.format) {
    case FigureFormat::Percent: std::snprintf(buffer, sizeof buffer, "%.2f%%", 100 * x); return buffer;
    case FigureFormat::Loss: std::snprintf(buffer, sizeof buffer, "%.4g", x); return buffer;
    case FigureFormat::Rate: std::snprintf(buffer, sizeof buffer, "%.0f", x); return buffer;
    case FigureFormat::Seconds:
      if (x < 120) std::snprintf(buffer, sizeof buffer, "%.1f s", x);
      else if (x < 7200) std::snprintf(buffer, sizeof buffer, "%.0f min %02.0f s", std::floor(x / 60), std::fmod(x, 60));
      else std::snprintf(buffer, sizeof buffer, "%.0f h %02.0f min", std::floor(x / 3600), std::floor(std::fmod(x, 3600) / 60));
      return buffer;
    case FigureFormat::Plain:
    case FigureFormat::Hash: break;
  }
  return diffNumberText(x);
}

// "config.max_epoch (Max epoch)": the path, and the label when it says more than the key.
std::string diffSettingName(const ValueChange& c) {
  const std::string key = c.path.substr(c.path.rfind('.') == std::string::npos ? 0 : c.path.rfind('.') + 1);
  return c.label.empty() || c.label == key ? c.path : c.path + " (" + c.label + ")";
}

// "Affine n_outmaps=[10]": an added or removed block in one cell.
std::string diffBlockText(const std::string& type, const Json& params) {
  std::string text = type;
  for (const auto& [key, value] : params.items()) text += (text == type ? " " : ", ") + key + "=" + diffJsonText(value);
  return text;
}

std::string diffLinkName(const LinkSpec& link) {
  std::string name = "link " + link.from + " → " + link.to;
  if (link.port) name += format(" (port {})", *link.port);
  return name;
}

}  // namespace

ComparedRun readComparedRun(const std::string& path) {
  ComparedRun side;
  side.path = path;
  std::error_code ec;
  const auto status = fs::status(path, ec);
  NS_CHECK(!ec && fs::exists(status),
           "{}: no such run folder or project file (give a run folder such as <project>.runs/<YYYYMMDD-HHMMSS>, or a "
           ".nsproj file)",
           path);
  if (!fs::is_directory(status)) {
    side.projectFile = path;
    // The network is compared, not trained: a project whose network has problems still compares.
    side.project = loadProject(path, ProjectParseOptions{.checkNetwork = false});
    return side;
  }
  const fs::path folder(path);
  const fs::path runJson = folder / "run.json";
  NS_CHECK(fs::exists(runJson, ec),
           "{}: not a run folder: it has no run.json (a run folder, <project>.runs/<YYYYMMDD-HHMMSS>/, holds run.json and "
           "project.nsproj as `netsmith-cli train` writes them)",
           path);
  const fs::path snapshot = folder / "project.nsproj";
  NS_CHECK(fs::exists(snapshot, ec), "{}: missing; is {} a Netsmith run folder?", snapshot.string(), path);
  side.folder = path;
  side.projectFile = snapshot.string();
  side.record = parseRunJson(runJson);
  side.project = loadProject(side.projectFile, ProjectParseOptions{.checkNetwork = false});
  const fs::path curveFile = folder / "learning_curve.csv";
  if (fs::exists(curveFile, ec)) side.curve = protocol::learningCurveFromCsv(readRunFile(curveFile), curveFile.string());
  side.status = statusOfRun(side.record, runJson.string(), folder);
  // Checked here, so that a damaged run.json is an error when it is read, not when it is compared.
  side.figures = figuresOfRun(side.record, runJson.string(), side.curve, side.status);
  return side;
}

RunDiff diffRuns(const ComparedRun& a, const ComparedRun& b) {
  RunDiff d;
  d.project = diffProjects(a.project, b.project);
  d.runsCompared = a.isRun() && b.isRun();
  if (!d.runsCompared) return d;
  const Json& fa = a.figures;
  const Json& fb = b.figures;
  for (const FigureSpec& spec : kFigures) {
    FigureChange c{spec.key, spec.label, fa.value(spec.key, Json()), fb.value(spec.key, Json()), spec.format, spec.absent};
    if (c.a == c.b) continue;
    (spec.group == FigureGroup::Run ? d.run : d.result).push_back(std::move(c));
  }
  return d;
}

std::vector<DiffRow> diffRows(const RunDiff& diff) {
  std::vector<DiffRow> rows;
  for (const ValueChange& c : diff.project.settings)
    rows.push_back({"Settings", diffSettingName(c), diffValueText(c.a, c.aDefault, c.absentText), diffValueText(c.b, c.bDefault, c.absentText)});
  for (const BlockChange& block : diff.project.blocks) {
    switch (block.kind) {
      case BlockChange::Kind::Added:
        rows.push_back({"Network", block.id + " (added)", "(none)", diffBlockText(block.typeB, block.paramsB)});
        break;
      case BlockChange::Kind::Removed:
        rows.push_back({"Network", block.id + " (removed)", diffBlockText(block.typeA, block.paramsA), "(none)"});
        break;
      case BlockChange::Kind::Changed: {
        const std::string name = block.typeA == block.typeB ? block.id + " (" + block.typeA + ")" : block.id;
        for (const ValueChange& f : block.fields) {
          const std::string field = f.path.rfind("params.", 0) == 0 ? f.path.substr(7) : f.path;
          rows.push_back({"Network", name + ": " + field, diffValueText(f.a, f.aDefault, {}), diffValueText(f.b, f.bDefault, {})});
        }
        break;
      }
    }
  }
  for (const LinkChange& link : diff.project.links)
    rows.push_back({"Network", diffLinkName(link.link), link.added ? "(none)" : "linked", link.added ? "linked" : "(none)"});
  for (const auto* group : {&diff.run, &diff.result})
    for (const FigureChange& c : *group)
      rows.push_back({group == &diff.run ? "Run" : "Result", c.label, figureText(c, c.a), figureText(c, c.b)});
  return rows;
}

std::string comparedRunKind(const ComparedRun& side) {
  return side.isRun() ? "run, " + side.status : std::string("project file");
}

Json runDiffToJson(const ComparedRun& a, const ComparedRun& b, const RunDiff& diff) {
  const auto sideJson = [](const ComparedRun& s) {
    Json j = {{"path", s.path}, {"kind", s.isRun() ? "run" : "project"}, {"project", s.projectFile}, {"name", s.project.name}};
    if (s.isRun()) {
      j["run_id"] = s.record.value("run_id", Json());
      j["status"] = s.status;
    }
    return j;
  };
  Json j = projectDiffToJson(diff.project);
  j["a"] = sideJson(a);
  j["b"] = sideJson(b);
  j["equal"] = diff.empty();
  const auto figures = [&](const std::vector<FigureChange>& changes) {
    if (!diff.runsCompared) return Json();
    Json list = Json::array();
    for (const FigureChange& c : changes) list.push_back({{"key", c.key}, {"label", c.label}, {"a", c.a}, {"b", c.b}});
    return list;
  };
  j["run"] = figures(diff.run);
  j["result"] = figures(diff.result);
  return j;
}

}  // namespace netsmith
