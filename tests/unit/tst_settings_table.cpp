// netsmith-test-labels: asan
// The settings table (Note [Settings table]): every row is read, checked, written and named in the
// docs the way the row says, and the lists it shares with the optimizer and the schedules agree.
#include <QtTest>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/core/error.h"
#include "engine/optim/lr_schedule.h"
#include "engine/optim/optimizer.h"
#include "engine/project/project_io.h"
#include "engine/project/settings_table.h"
#include "engine/solvers/solver_table.h"

using namespace netsmith;

namespace {

Json baseProject() {
  return Json::parse(R"({
    "format": "netsmith-project", "version": 1, "name": "table",
    "network": {"nodes": [], "links": []},
    "dataset": {"training": {"format": "idx", "images": "/d/i.gz", "labels": "/d/l.gz"}}
  })");
}

Project parse(const Json& j) { return parseProject(j, "", ProjectParseOptions{.checkNetwork = false}); }

// The JSON pointer of a dotted path: "config.augmentation.scale" -> /config/augmentation/scale.
Json::json_pointer pointerOf(const std::string& path) {
  std::string s = "/" + path;
  for (char& c : s)
    if (c == '.') c = '/';
  return Json::json_pointer(s);
}

// A valid value of the row that is not its default.
Json otherValue(const Setting& row) {
  switch (row.type) {
    case SettingType::Integer:
      return static_cast<int64_t>(row.bounds.min.value_or(0)) + 2;
    case SettingType::Seed:
      return 12345;
    case SettingType::Number:
      return row.bounds.max ? *row.bounds.max / 4 : 0.25;
    case SettingType::Flag:  // a solver's flag (Lamb's bias_correction) has no default of its own
      return row.defaultValue.is_boolean() ? !row.defaultValue.get<bool>() : true;
    case SettingType::Choice:
      return row.choices.back() == row.defaultValue ? row.choices.front() : row.choices.back();
    case SettingType::Path:
      return "/d/initial.nsparams";  // absolute: the Project holds it as written
  }
  return {};
}

// A value the row refuses: below its minimum, above its maximum, or of the wrong type.
Json refusedValue(const Setting& row) {
  switch (row.type) {
    case SettingType::Integer:
    case SettingType::Number:
      if (row.bounds.max) return *row.bounds.max + 1;
      return row.bounds.min.value_or(0) - 1;
    case SettingType::Seed:
      return -1;
    case SettingType::Flag:
      return "yes";
    case SettingType::Choice:
      return "no such choice";
    case SettingType::Path:
      return 5;
  }
  return {};
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

class TestSettingsTable : public QObject {
  Q_OBJECT
 private slots:
  void rowsAreComplete() {
    std::set<std::string> paths;
    for (const Setting& row : settingsTable()) {
      const std::string prefix = row.group == SettingGroup::GlobalConfig   ? "config."
                                 : row.group == SettingGroup::Augmentation ? "config.augmentation."
                                                                           : "optimizer.";
      QCOMPARE(row.path, prefix + row.key);
      QVERIFY2(paths.insert(row.path).second, row.path.c_str());
      QVERIFY2(!row.label.empty() && !row.help.empty(), row.path.c_str());
      QVERIFY2(row.get && row.set, row.path.c_str());
      if (row.type == SettingType::Choice) QVERIFY2(!row.choices.empty(), row.path.c_str());
      if (row.write != WritePolicy::WhenSet) QVERIFY2(!row.defaultValue.is_null(), row.path.c_str());
      QCOMPARE(findSetting(row.path), &row);
    }
  }

  // A file without the key gives the row's default (the rows that are optional give nothing).
  void absentKeysGiveTheDefaults() {
    const Project p = parse(baseProject());
    for (const Setting& row : settingsTable()) {
      if (row.write == WritePolicy::WhenSet) QVERIFY2(row.get(p).is_null(), row.path.c_str());
      else QVERIFY2(row.get(p) == row.defaultValue, row.path.c_str());
    }
  }

  // Every row's value is read from its path into the Project, written back at the same path, and
  // the default of a row written only when not the default is left out.
  void everyRowRoundTrips() {
    for (const Setting& row : settingsTable()) {
      Json j = baseProject();
      const Json value = otherValue(row);
      j[pointerOf(row.path)] = value;
      const Project p = parse(j);
      QVERIFY2(row.get(p) == value, (row.path + ": " + row.get(p).dump()).c_str());
      const Json written = projectToJson(p);
      QVERIFY2(written.contains(pointerOf(row.path)) && written.at(pointerOf(row.path)) == value, row.path.c_str());
      QVERIFY2(row.get(parse(written)) == value, row.path.c_str());

      if (row.write != WritePolicy::UnlessDefault) continue;
      Json d = baseProject();
      d[pointerOf(row.path)] = row.defaultValue;
      QVERIFY2(!projectToJson(parse(d)).contains(pointerOf(row.path)), row.path.c_str());
    }
  }

  // A refused value names the row's JSON path and, for numbers and flags, the row's range.
  void refusedValuesNameThePathAndTheRange() {
    for (const Setting& row : settingsTable()) {
      Json j = baseProject();
      j[pointerOf(row.path)] = refusedValue(row);
      QString message;
      try {
        parse(j);
      } catch (const Error& e) {
        message = e.what();
      }
      QVERIFY2(message.startsWith(QString::fromStdString(row.path + ": expected ")), qPrintable(message));
      if (row.type != SettingType::Choice)
        QVERIFY2(message.contains(QString::fromStdString("expected " + row.expected())), qPrintable(message));
    }
  }

  // optimizer.ema_decay (Note [Weight averaging]): 0.999 round-trips, 0 is off and not written,
  // and the bound 1 itself is refused as well as negatives.
  void emaDecayRange() {
    Json j = baseProject();
    j["optimizer"] = {{"ema_decay", 0.999}};
    const Project p = parse(j);
    QCOMPARE(p.optimizer.emaDecay, 0.999);
    QCOMPARE(projectToJson(p).at("optimizer").at("ema_decay").get<double>(), 0.999);
    QVERIFY(!projectToJson(parse(baseProject())).at("optimizer").contains("ema_decay"));
    for (const double bad : {1.0, -0.5}) {
      j["optimizer"]["ema_decay"] = bad;
      QString message;
      try {
        parse(j);
      } catch (const Error& e) {
        message = e.what();
      }
      QVERIFY2(message.startsWith("optimizer.ema_decay: expected a number in [0, 1)"), qPrintable(message));
    }
  }

  // The optimizer's solvers and the schedules are the table's.
  void solversAndSchedulesAgree() {
    QCOMPARE(solverNames(), Optimizer::solverNames());
    QCOMPARE(findSetting("optimizer.solver")->choices, Optimizer::solverNames());
    for (const SolverRow& solver : solverTable()) {
      const Json defaults = Optimizer::defaultHyperParameters(solver.name);
      QCOMPARE(defaults.size(), solver.hyper.size());
      for (const SolverHyperParameter& h : solver.hyper) {
        const Setting* row = findSetting(std::string("optimizer.") + h.name);
        QVERIFY2(row, h.name);
        QVERIFY2(std::count(row->solvers.begin(), row->solvers.end(), solver.name) == 1, h.name);
      }
    }
    // Every hyper-parameter row is taken by some solver, and a file may set it.
    for (const Setting& row : settingsTable())
      if (!row.solvers.empty())
        QVERIFY(std::count(solverHyperParameterNames().begin(), solverHyperParameterNames().end(), row.key) == 1);

    QCOMPARE(findSetting("optimizer.lr_schedule")->choices, LearningRateSchedule::names());
    for (const auto& schedule : LearningRateSchedule::names()) {
      const Json params = LearningRateSchedule::defaultParameters(schedule);
      for (const Setting& row : settingsTable()) {
        if (row.schedules.empty()) continue;
        const bool takes = std::count(row.schedules.begin(), row.schedules.end(), schedule) == 1;
        QVERIFY2(takes == params.contains(row.key), (row.path + " / " + schedule).c_str());
      }
    }
  }

  // AdamW's wd is a row like the others: a file may set it (before the table, the loader's own
  // list of names left it out and refused it).
  void adamWsDecayLoads() {
    Json j = baseProject();
    j["optimizer"] = {{"solver", "AdamW"}, {"wd", 0.01}};
    const Project p = parse(j);
    QCOMPARE(p.optimizer.hyper.at("wd").get<double>(), 0.01);
    QVERIFY(Optimizer::create(p.optimizer) != nullptr);
  }

  // docs/project-format.md describes every key of the table.
  void docsNameEveryRow() {
    const std::string docs = readFile(NETSMITH_SOURCE_DIR "/docs/project-format.md");
    QVERIFY(!docs.empty());
    for (const Setting& row : settingsTable())
      QVERIFY2(docs.find("`" + row.key + "`") != std::string::npos, row.path.c_str());
  }

  // The optimizer section's table has one row per solver folder, naming its keys with their
  // defaults in the folder's order and its state buffers.
  void docsListEverySolver() {
    const std::string docs = readFile(NETSMITH_SOURCE_DIR "/docs/project-format.md");
    for (const SolverRow& solver : solverTable()) {
      const std::string start = "| `" + std::string(solver.name) + "` | ";
      const size_t at = docs.find(start);
      QVERIFY2(at != std::string::npos, solver.name);
      const std::string line = docs.substr(at, docs.find('\n', at) - at);
      std::string keys;
      for (const SolverHyperParameter& h : solver.hyper) {
        char number[32];
        std::snprintf(number, sizeof(number), "%g", h.defaultValue);  // 1e-08, written 1e-8
        std::string value = h.range == SolverHyperRange::Flag ? (h.defaultValue != 0 ? "true" : "false") : number;
        if (const size_t e = value.find("e-0"); e != std::string::npos) value.erase(e + 2, 1);
        keys += (keys.empty() ? "" : ", ") + ("`" + std::string(h.name) + "` (" + value + ")");
      }
      std::string buffers;
      for (const std::string& b : solver.buffers) buffers += (buffers.empty() ? "" : ", ") + ("`" + b + "`");
      const std::string expected = start + keys + " | " + buffers + (buffers.empty() ? "|" : " |");
      QVERIFY2(line == expected, ("docs: " + line + "\nexpected: " + expected).c_str());
    }
  }
};

QTEST_APPLESS_MAIN(TestSettingsTable)
#include "tst_settings_table.moc"
