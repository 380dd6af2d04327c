// The differences of two projects (Note [Project differences], engine/project/project_diff.h):
// settings by JSON path and label, blocks added, removed and changed by name, links, and nothing
// at all for projects that train the same (defaults written or left out, blocks moved).
#include <QtTest>

#include "engine/op_interface/op_registry.h"
#include "engine/project/project_diff.h"
#include "engine/project/project_io.h"
#include "engine/project/settings_table.h"
#include "engine/solvers/solver_table.h"

using namespace netsmith;

namespace {

Json baseProject() {
  return Json::parse(R"({
    "format": "netsmith-project", "version": 1, "name": "diff",
    "network": {
      "nodes": [
        {"id": "x", "type": "Input", "params": {"shape": [1, 8, 8]}, "pos": [0, 0]},
        {"id": "conv", "type": "Convolution", "params": {"outmaps": 4, "kernel": [3, 3]}, "pos": [0, 90]},
        {"id": "fc", "type": "Affine", "params": {"n_outmaps": [10]}, "pos": [0, 180]},
        {"id": "loss", "type": "SoftmaxCrossEntropy", "pos": [0, 270]}
      ],
      "links": [{"from": "x", "to": "conv"}, {"from": "conv", "to": "fc"}, {"from": "fc", "to": "loss"}]
    },
    "dataset": {"training": {"format": "idx", "images": "/d/i.gz", "labels": "/d/l.gz"}, "shuffle": true},
    "config": {"max_epoch": 5, "batch_size": 32},
    "optimizer": {"solver": "Adam"},
    "parallel": {"devices": ["cpu:0"]}
  })");
}

Project parse(const Json& j) { return parseProject(j, "", ProjectParseOptions{.checkNetwork = false}); }

ProjectDiff diff(const Json& a, const Json& b) { return diffProjects(parse(a), parse(b)); }

// The JSON pointer of a dotted path: "config.augmentation.scale" -> /config/augmentation/scale.
Json::json_pointer pointerOf(const std::string& path) {
  std::string s = "/" + path;
  for (char& c : s)
    if (c == '.') c = '/';
  return Json::json_pointer(s);
}

// A valid value of the row that is neither its default nor, for a solver's hyper-parameter,
// any solver's default.
Json otherValue(const Setting& row) {
  switch (row.type) {
    case SettingType::Integer: return static_cast<int64_t>(row.bounds.min.value_or(0)) + 7;
    case SettingType::Seed: return 12345;
    case SettingType::Number: return row.bounds.max ? *row.bounds.max / 4.0 : 0.375;
    case SettingType::Flag: return row.defaultValue.is_boolean() ? !row.defaultValue.get<bool>() : false;
    case SettingType::Choice: return row.choices.back() == row.defaultValue ? row.choices.front() : row.choices.back();
    case SettingType::Path: return "/d/initial.nsparams";
  }
  return {};
}

double adamDefault(const std::string& key) {
  for (const SolverHyperParameter& h : findSolver("Adam")->hyper)
    if (h.name == key) return h.defaultValue;
  qFatal("Adam has no hyper-parameter %s", key.c_str());
}

}  // namespace

class TestProjectDiff : public QObject {
  Q_OBJECT
 private slots:
  void equalProjectsHaveNoDifferences() {
    const ProjectDiff d = diff(baseProject(), baseProject());
    QVERIFY(d.empty());
    QVERIFY(d.settings.empty() && d.blocks.empty() && d.links.empty());
    QCOMPARE(projectDiffToJson(d), Json::parse(R"({"settings": [], "blocks": [], "links": []})"));
  }

  // What trains the same compares the same: a default written or left out, a block moved.
  void defaultsAndPositionsAreNotDifferences() {
    Json b = baseProject();
    b["config"]["save_best"] = findSetting("config.save_best")->defaultValue;
    b["optimizer"]["alpha"] = adamDefault("alpha");
    b["dataset"]["scale"] = 1;
    const OpSchema& conv = OpRegistry::builtin().get("Convolution");
    const ParamSpec* withBias = conv.findParam("with_bias");
    QVERIFY(withBias && !withBias->defaultValue.is_null());
    b["network"]["nodes"][1]["params"]["with_bias"] = withBias->defaultValue;
    b["network"]["nodes"][2]["pos"] = Json::array({300, 40});
    const ProjectDiff d = diff(baseProject(), b);
    QVERIFY2(d.empty(), projectDiffToJson(d).dump().c_str());
  }

  // Every row of the settings table, changed alone, is one difference named by its path and label.
  void everySettingOfTheTableIsCompared() {
    for (const Setting& row : settingsTable()) {
      Json b = baseProject();
      b[pointerOf(row.path)] = otherValue(row);
      const ProjectDiff d = diff(baseProject(), b);
      QVERIFY2(d.blocks.empty() && d.links.empty(), row.path.c_str());
      // Another solver also changes which hyper-parameters have a default (the next test).
      const size_t expected = row.path == "optimizer.solver" ? d.settings.size() : 1;
      QVERIFY2(!d.settings.empty() && d.settings.size() == expected, (row.path + ": " + projectDiffToJson(d).dump()).c_str());
      QCOMPARE(d.settings[0].path, row.path);
      QCOMPARE(d.settings[0].label, row.label);
      QCOMPARE(d.settings[0].b, row.get(parse(b)));
    }
  }

  void solverHyperParametersCompareWithTheSolversDefaults() {
    Json b = baseProject();
    b["optimizer"]["alpha"] = 0.003;
    const ProjectDiff d = diff(baseProject(), b);
    QCOMPARE(d.settings.size(), size_t(1));
    QCOMPARE(d.settings[0].path, std::string("optimizer.alpha"));
    QCOMPARE(d.settings[0].a, Json(adamDefault("alpha")));
    QVERIFY(d.settings[0].aDefault && !d.settings[0].bDefault);
    QCOMPARE(d.settings[0].b, Json(0.003));
    const Json j = projectDiffToJson(d)["settings"][0];
    QCOMPARE(j["path"], Json("optimizer.alpha"));
    QCOMPARE(j["a_default"], Json(true));
    QVERIFY(!j.contains("b_default"));

    // Another solver: the solver, and each hyper-parameter one takes and the other does not.
    Json sgd = baseProject();
    sgd["optimizer"] = {{"solver", "Sgd"}, {"lr", 0.05}};
    const ProjectDiff s = diff(baseProject(), sgd);
    std::set<std::string> paths;
    for (const ValueChange& c : s.settings) paths.insert(c.path);
    QVERIFY(paths.count("optimizer.solver") && paths.count("optimizer.lr") && paths.count("optimizer.alpha"));
    for (const ValueChange& c : s.settings)
      if (c.path == "optimizer.alpha") QVERIFY(c.b.is_null() && c.aDefault);
  }

  // Keys outside the settings table: by JSON path, without a label; arrays whole.
  void otherSettingsByPath() {
    Json b = baseProject();
    b["name"] = "diff 2";
    b["dataset"]["shuffle"] = false;
    b["dataset"]["training"]["labels"] = "/d/other.gz";
    b["parallel"]["devices"] = {"cpu:0", "cpu:1"};
    const ProjectDiff d = diff(baseProject(), b);
    std::map<std::string, ValueChange> byPath;
    for (const ValueChange& c : d.settings) byPath[c.path] = c;
    QCOMPARE(byPath.size(), size_t(4));
    QCOMPARE(byPath.at("name").b, Json("diff 2"));
    QCOMPARE(byPath.at("dataset.shuffle").a, Json(true));
    QCOMPARE(byPath.at("dataset.training.labels").b, Json("/d/other.gz"));
    QCOMPARE(byPath.at("parallel.devices").b, Json({"cpu:0", "cpu:1"}));
    QVERIFY(byPath.at("parallel.devices").label.empty());
    // worker_load written on one side only: absent is null.
    Json loads = baseProject();
    loads["parallel"]["worker_load"] = {1};
    const ProjectDiff w = diff(baseProject(), loads);
    QCOMPARE(w.settings.size(), size_t(1));
    QCOMPARE(w.settings[0].path, std::string("parallel.worker_load"));
    QVERIFY(w.settings[0].a.is_null());
  }

  void aChangedBlockListsEachFieldThatDiffers() {
    Json b = baseProject();
    b["network"]["nodes"][1]["params"]["outmaps"] = 8;
    b["network"]["nodes"][1]["params"]["pad"] = {1, 1};
    b["network"]["nodes"][2]["frozen"] = true;
    b["network"]["nodes"][2]["lr_mult"] = 0.5;
    const ProjectDiff d = diff(baseProject(), b);
    QVERIFY(d.settings.empty() && d.links.empty());
    QCOMPARE(d.blocks.size(), size_t(2));
    const BlockChange& conv = d.blocks[0];
    QCOMPARE(conv.id, std::string("conv"));
    QCOMPARE(int(conv.kind), int(BlockChange::Kind::Changed));
    QCOMPARE(conv.typeA, std::string("Convolution"));
    QCOMPARE(conv.fields.size(), size_t(2));
    QCOMPARE(conv.fields[0].path, std::string("params.outmaps"));
    QCOMPARE(conv.fields[0].a, Json(4));
    QCOMPARE(conv.fields[0].b, Json(8));
    QCOMPARE(conv.fields[1].path, std::string("params.pad"));
    QVERIFY(conv.fields[1].aDefault && !conv.fields[1].bDefault);  // the op's default pad against [1, 1]
    QCOMPARE(conv.fields[1].b, Json({1, 1}));
    const BlockChange& fc = d.blocks[1];
    QCOMPARE(fc.id, std::string("fc"));
    QCOMPARE(fc.fields.size(), size_t(2));
    QCOMPARE(fc.fields[0].path, std::string("frozen"));
    QCOMPARE(fc.fields[1].path, std::string("lr_mult"));
    QCOMPARE(fc.fields[1].b, Json(0.5));
  }

  void aBlockOfAnotherType() {
    Json b = baseProject();
    b["network"]["nodes"][2]["type"] = "Convolution";
    b["network"]["nodes"][2]["params"] = {{"outmaps", 10}, {"kernel", {1, 1}}};
    const ProjectDiff d = diff(baseProject(), b);
    QCOMPARE(d.blocks.size(), size_t(1));
    QCOMPARE(d.blocks[0].typeA, std::string("Affine"));
    QCOMPARE(d.blocks[0].typeB, std::string("Convolution"));
    QCOMPARE(d.blocks[0].fields[0].path, std::string("type"));
    const Json j = projectDiffToJson(d)["blocks"][0];
    QCOMPARE(j["change"], Json("changed"));
    QCOMPARE(j["fields"][0], Json::parse(R"({"field": "type", "a": "Affine", "b": "Convolution"})"));
  }

  void blocksAndLinksAddedAndRemoved() {
    Json b = baseProject();
    // conv goes; relu comes between x and fc.
    b["network"]["nodes"][1] = {{"id", "relu"}, {"type", "ReLU"}, {"pos", {0, 90}}};
    b["network"]["links"] = {{{"from", "x"}, {"to", "relu"}}, {{"from", "relu"}, {"to", "fc"}}, {{"from", "fc"}, {"to", "loss"}}};
    const ProjectDiff d = diff(baseProject(), b);
    QVERIFY(d.settings.empty());
    QCOMPARE(d.blocks.size(), size_t(2));
    QCOMPARE(d.blocks[0].id, std::string("conv"));
    QCOMPARE(int(d.blocks[0].kind), int(BlockChange::Kind::Removed));
    QCOMPARE(d.blocks[0].paramsA["outmaps"], Json(4));
    QCOMPARE(d.blocks[1].id, std::string("relu"));
    QCOMPARE(int(d.blocks[1].kind), int(BlockChange::Kind::Added));
    QCOMPARE(d.blocks[1].typeB, std::string("ReLU"));
    QCOMPARE(d.links.size(), size_t(4));
    QCOMPARE(d.links[0].link.to, std::string("conv"));
    QVERIFY(!d.links[0].added);
    QCOMPARE(d.links[1].link.from, std::string("conv"));
    QVERIFY(!d.links[1].added);
    QCOMPARE(d.links[2].link.to, std::string("relu"));
    QVERIFY(d.links[2].added && d.links[3].added);
    const Json j = projectDiffToJson(d);
    QCOMPARE(j["blocks"][0]["change"], Json("removed"));
    QCOMPARE(j["blocks"][1]["change"], Json("added"));
    QCOMPARE(j["links"][2], Json::parse(R"({"from": "x", "to": "relu", "port": null, "change": "added"})"));
  }

  // A link to another input port is another link.
  void linkPortsAreCompared() {
    Json b = baseProject();
    b["network"]["links"][2]["port"] = 0;
    const ProjectDiff d = diff(baseProject(), b);
    QCOMPARE(d.links.size(), size_t(2));
    QVERIFY(!d.links[0].link.port && !d.links[0].added);
    QCOMPARE(d.links[1].link.port, std::optional<int>(0));
  }
};

QTEST_APPLESS_MAIN(TestProjectDiff)
#include "tst_project_diff.moc"
