// Project files: the samples load, load → JSON → parse and load → save → load keep every field,
// saving is atomic, ${DATASETS} and relative dataset paths resolve and keep their spelling.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QTemporaryDir>
#include <QtTest>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/core/error.h"
#include "engine/op_interface/op_registry.h"
#include "engine/project/graph.h"
#include "engine/project/project_io.h"

using namespace netsmith;
namespace fs = std::filesystem;

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

std::string samplePath(const char* name) { return std::string(NETSMITH_SOURCE_DIR) + "/projects/" + name; }

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void writeText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::vector<std::string> folderEntries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Every field of a Project (dataset paths as stored: absolute), for comparisons that print a diff.
Json everything(const Project& p) {
  Json nodes = Json::array();
  for (const auto& n : p.network.nodes) nodes.push_back({n.id, n.type, n.params, n.pos[0], n.pos[1]});
  Json links = Json::array();
  for (const auto& l : p.network.links) links.push_back({l.from, l.to, l.port ? Json(*l.port) : Json()});
  const auto source = [](const DataSourceSpec& s) { return Json{s.format, s.images, s.labels, s.csv}; };
  return {{"name", p.name},
          {"nodes", nodes},
          {"links", links},
          {"dataset", {source(p.dataset.training), source(p.dataset.validation), p.dataset.scale, p.dataset.shuffle, p.dataset.onError}},
          {"config", {p.config.maxEpoch, p.config.batchSize, p.config.monitorInterval, p.config.precision, p.config.seed, p.config.deterministic}},
          {"optimizer", {p.optimizer.solver, p.optimizer.hyper, p.optimizer.weightDecay, p.optimizer.lrMultiplier, p.optimizer.lrUpdateInterval,
                         p.optimizer.warmupEpochs, p.optimizer.lrSchedule, p.optimizer.scheduleParams}},
          {"parallel", {p.parallel.devices, p.parallel.workerLoad, p.parallel.lrPolicy, p.parallel.threadsPerDevice, p.parallel.timeoutS}}};
}

#define COMPARE_PROJECTS(a, b) QCOMPARE(q(everything(a).dump(1)), q(everything(b).dump(1)))

// A small valid project; dataset paths as given.
Json tinyProject(const std::string& images, const std::string& labels) {
  return Json::parse(R"({
    "format": "netsmith-project", "version": 1,
    "network": {
      "nodes": [{"id": "x", "type": "Input", "params": {"shape": [4]}},
                {"id": "fc", "type": "Affine", "params": {"n_outmaps": [3]}},
                {"id": "loss", "type": "SoftmaxCrossEntropy"}],
      "links": [{"from": "x", "to": "fc"}, {"from": "fc", "to": "loss"}]
    },
    "dataset": {"training": {"format": "idx", "images": "", "labels": ""}}
  })")
      .patch(Json::array({{{"op", "replace"}, {"path", "/dataset/training/images"}, {"value", images}},
                          {{"op", "replace"}, {"path", "/dataset/training/labels"}, {"value", labels}}}));
}

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : m_name(name) {
    if (const char* old = std::getenv(name)) m_old = old;
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (m_old) ::setenv(m_name, m_old->c_str(), 1);
    else ::unsetenv(m_name);
  }

 private:
  const char* m_name;
  std::optional<std::string> m_old;
};

}  // namespace

class TestProjectIo : public QObject {
  Q_OBJECT

 private slots:
  void samples_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("lenet") << "fashion_mnist_lenet.nsproj";
    QTest::newRow("mlp") << "fashion_mnist_mlp.nsproj";
    QTest::newRow("resnet") << "fashion_mnist_resnet.nsproj";
  }

  // Each sample loads with its network checked, and is written in the canonical form.
  void samples() {
    QFETCH(QString, file);
    const std::string path = samplePath(file.toUtf8().constData());
    Project p;
    try {
      p = loadProject(path);
    } catch (const Error& e) {
      QFAIL(e.what());
    }
    QCOMPARE(q(p.path), q(fs::path(path).lexically_normal().string()));
    const std::string root = datasetsRoot();
    QCOMPARE(q(p.dataset.training.images), q((fs::path(root) / "fashion-mnist/train-images-idx3-ubyte.gz").lexically_normal().string()));
    QCOMPARE(q(p.dataset.validation.labels), q((fs::path(root) / "fashion-mnist/t10k-labels-idx1-ubyte.gz").lexically_normal().string()));
    QCOMPARE(p.config.maxEpoch, int64_t(5));
    QCOMPARE(p.config.batchSize, int64_t(64));
    QCOMPARE(p.dataset.scale, 1.0 / 255.0);
    QVERIFY(p.dataset.shuffle);
    QCOMPARE(p.parallel.devices, std::vector<std::string>{"cpu:0"});
    for (size_t i = 0; i < p.network.nodes.size(); ++i) {
      QCOMPARE(p.network.nodes[i].pos[0], 0.0);
      QCOMPARE(p.network.nodes[i].pos[1], 90.0 * static_cast<double>(i));
    }
    QCOMPARE(q(projectToText(p)), q(readText(path)));
    const Graph g = buildGraph(p.network, OpRegistry::builtin());
    QCOMPARE(g.input().outputShape, (Shape{1, 28, 28}));
    QCOMPARE(g.prediction().outputShape, (Shape{10}));
  }

  void lenetExactly() {
    const Project p = loadProject(samplePath("fashion_mnist_lenet.nsproj"));
    std::vector<std::string> types;
    for (const auto& n : p.network.nodes) types.push_back(n.type);
    QCOMPARE(types, (std::vector<std::string>{"Input", "Convolution", "ReLU", "MaxPooling", "Convolution", "ReLU",
                                              "MaxPooling", "Affine", "ReLU", "Affine", "SoftmaxCrossEntropy"}));
    QCOMPARE(p.network.links.size(), size_t(10));
    QCOMPARE(q(p.network.nodes[1].params.dump()), q(R"({"kernel":[5,5],"outmaps":16,"pad":[2,2]})"));
    QCOMPARE(q(p.network.nodes[4].params.dump()), q(R"({"kernel":[5,5],"outmaps":32})"));
    QCOMPARE(q(p.network.nodes[7].params.dump()), q(R"({"n_outmaps":[512]})"));
    QCOMPARE(q(p.optimizer.solver), q("Adam"));
    QCOMPARE(p.optimizer.hyper.at("alpha").get<double>(), 0.001);
    QCOMPARE(p.config.seed, uint64_t(1));
    const Graph g = buildGraph(p.network, OpRegistry::builtin());
    QCOMPARE(g.nodes[7].inputShapes.at(0), (Shape{32, 5, 5}));
  }

  void mlpExactly() {
    const Project p = loadProject(samplePath("fashion_mnist_mlp.nsproj"));
    std::vector<std::string> types;
    for (const auto& n : p.network.nodes) types.push_back(n.type);
    QCOMPARE(types, (std::vector<std::string>{"Input", "Affine", "ReLU", "Affine", "ReLU", "Affine", "SoftmaxCrossEntropy"}));
    QCOMPARE(q(p.optimizer.solver), q("Momentum"));
    QCOMPARE(p.optimizer.hyper.at("momentum").get<double>(), 0.9);
    QCOMPARE(p.optimizer.hyper.at("lr").get<double>(), 0.01);
  }

  void resnetHasResidualBlocks() {
    const Project p = loadProject(samplePath("fashion_mnist_resnet.nsproj"));
    const Graph g = buildGraph(p.network, OpRegistry::builtin());
    int adds = 0, norms = 0;
    for (const auto& n : g.nodes) {
      if (n.schema->name == "Add2") {
        ++adds;
        QCOMPARE(n.inputShapes.at(0), n.inputShapes.at(1));
      }
      norms += n.schema->name == "BatchNormalization";
    }
    QCOMPARE(adds, 2);
    QVERIFY(norms >= 4);
    // Cheap enough for two CPU cores: a few million multiply-adds per sample.
    QVERIFY2(g.multiplyAdds < 20'000'000, qPrintable(QString::number(g.multiplyAdds)));
  }

  void roundTrip_data() { samples_data(); }

  // load → projectToJson → parse gives the same JSON and the same project.
  void roundTrip() {
    QFETCH(QString, file);
    const std::string path = samplePath(file.toUtf8().constData());
    const Project a = loadProject(path);
    const Json ja = projectToJson(a);
    const Project b = parseProject(ja, path);
    QCOMPARE(q(projectToJson(b).dump(1)), q(ja.dump(1)));
    COMPARE_PROJECTS(a, b);
    QCOMPARE(q(ja.at("dataset").at("training").at("images").get<std::string>()),
             q("${DATASETS}/fashion-mnist/train-images-idx3-ubyte.gz"));
  }

  void saveLoad_data() { samples_data(); }

  void saveLoad() {
    QFETCH(QString, file);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const Project a = loadProject(samplePath(file.toUtf8().constData()));
    const std::string target = dir.filePath("copy.nsproj").toStdString();
    saveProject(a, target);
    const Project b = loadProject(target);
    COMPARE_PROJECTS(a, b);
    // ${DATASETS} survives the trip into another folder.
    QVERIFY(readText(target).find("${DATASETS}/fashion-mnist/t10k-images-idx3-ubyte.gz") != std::string::npos);
    QCOMPARE(q(projectToText(b)), q(readText(samplePath(file.toUtf8().constData()))));
  }

  // Defaults of every optional section; the canonical JSON writes them all out.
  void defaults() {
    const Project p = parseProject(tinyProject("a.idx", "b.idx"), "/work/x/p.nsproj");
    QCOMPARE(q(p.name), q(""));
    QCOMPARE(p.config.maxEpoch, int64_t(10));
    QCOMPARE(p.config.batchSize, int64_t(64));
    QCOMPARE(q(p.config.precision), q("float"));
    QCOMPARE(q(p.optimizer.solver), q("Adam"));
    QCOMPARE(q(p.parallel.lrPolicy), q("scale_lr"));
    QCOMPARE(p.parallel.devices, std::vector<std::string>{"cpu:0"});
    QVERIFY(!p.dataset.validation.present());
    QCOMPARE(q(p.dataset.onError), q("error"));
    const Json j = projectToJson(p);
    for (const char* key : {"format", "version", "name", "network", "dataset", "config", "optimizer", "parallel"})
      QVERIFY2(j.contains(key), key);
    QCOMPARE(j.at("config").at("max_epoch").get<int>(), 10);
    QVERIFY(!j.at("dataset").contains("validation"));
    COMPARE_PROJECTS(parseProject(j, "/work/x/p.nsproj"), p);
  }

  void everyFieldRoundTrips() {
    Json j = tinyProject("a.idx", "b.idx");
    j["name"] = "all fields";
    j["network"]["links"][0]["port"] = 0;
    j["network"]["nodes"][1]["pos"] = {12.5, -3};
    j["dataset"]["validation"] = {{"format", "csv"}, {"csv", "val/index.csv"}};
    j["dataset"]["scale"] = 0.5;
    j["dataset"]["shuffle"] = false;
    j["dataset"]["on_error"] = "skip";
    j["config"] = {{"max_epoch", 3}, {"batch_size", 8}, {"monitor_interval", 2}, {"precision", "float"},
                   {"seed", 18446744073709551615ull}, {"deterministic", true}};
    j["optimizer"] = {{"solver", "RMSprop"}, {"lr", 0.002}, {"decay", 0.95}, {"eps", 1e-6}, {"weight_decay", 0.0001},
                      {"lr_multiplier", 0.9}, {"lr_update_interval", 100}, {"warmup_epochs", 0.5},
                      {"lr_schedule", "step"}, {"step_epochs", 2}, {"gamma", 0.5}};
    j["parallel"] = {{"devices", {"cpu:0", "cpu:1", "cuda:3"}}, {"worker_load", {1, 0.5, 0}},
                     {"lr_policy", "keep_logical_batch"}, {"threads_per_device", 2}, {"timeout_s", 12.5}};
    const Project a = parseProject(j, "/data/p/x.nsproj");
    QCOMPARE(a.config.seed, uint64_t(18446744073709551615ull));
    QCOMPARE(q(a.dataset.validation.csv), q("/data/p/val/index.csv"));
    QCOMPARE(q(a.optimizer.scheduleParams.dump()), q(R"({"gamma":0.5,"step_epochs":2})"));
    QCOMPARE(q(a.optimizer.hyper.dump()), q(R"({"decay":0.95,"eps":1e-06,"lr":0.002})"));
    QCOMPARE(a.parallel.workerLoad, (std::vector<double>{1, 0.5, 0}));
    QCOMPARE(a.network.links[0].port, std::optional<int>(0));
    const Json out = projectToJson(a);
    const Project b = parseProject(out, "/data/p/x.nsproj");
    COMPARE_PROJECTS(a, b);
    QCOMPARE(q(projectToJson(b).dump()), q(out.dump()));
    QCOMPARE(q(out.at("dataset").at("validation").at("csv").get<std::string>()), q("val/index.csv"));
  }

  // The editor opens a project whose network is broken, to mark the problems on the blocks.
  void networkCheckCanBeSkipped() {
    Json j = tinyProject("a", "b");
    j["network"]["nodes"][1]["type"] = "Afine";
    QVERIFY_THROWS_EXCEPTION(Error, parseProject(j, ""));
    const Project p = parseProject(j, "", ProjectParseOptions{.checkNetwork = false});
    QCOMPARE(q(p.network.nodes[1].type), q("Afine"));
    QVERIFY(!checkNetwork(p.network, OpRegistry::builtin()).empty());
  }

  void datasetsVariable() {
    {
      ScopedEnv a("NETSMITH_DATASETS", "/srv/data");
      ScopedEnv b("DATASETS", "/ignored");
      QCOMPARE(q(datasetsRoot()), q("/srv/data"));
      const Project p = parseProject(tinyProject("${DATASETS}/f/train.gz", "${DATASETS}//f/../f/labels.gz"), "/w/p.nsproj");
      QCOMPARE(q(p.dataset.training.images), q("/srv/data/f/train.gz"));
      QCOMPARE(q(p.dataset.training.labels), q("/srv/data/f/labels.gz"));
      const Json j = projectToJson(p);
      QCOMPARE(q(j["dataset"]["training"]["images"].get<std::string>()), q("${DATASETS}/f/train.gz"));
      QCOMPARE(q(j["dataset"]["training"]["labels"].get<std::string>()), q("${DATASETS}//f/../f/labels.gz"));
    }
    {
      ScopedEnv a("NETSMITH_DATASETS", nullptr);
      ScopedEnv b("DATASETS", "/mnt/sets");
      QCOMPARE(q(datasetsRoot()), q("/mnt/sets"));
    }
    {
      ScopedEnv a("NETSMITH_DATASETS", "");
      ScopedEnv b("DATASETS", nullptr);
      QCOMPARE(q(datasetsRoot()), q("/usr/share/datasets"));
      const Project p = parseProject(tinyProject("${DATASETS}/fashion-mnist/a", "/abs/b"), "/w/p.nsproj");
      QCOMPARE(q(p.dataset.training.images), q("/usr/share/datasets/fashion-mnist/a"));
      QCOMPARE(q(p.dataset.training.labels), q("/abs/b"));
    }
  }

  void relativePaths() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string root = fs::path(dir.path().toStdString()).lexically_normal().string();
    fs::create_directories(root + "/proj/sub");
    fs::create_directories(root + "/elsewhere");
    const std::string file = root + "/proj/sub/p.nsproj";
    writeText(file, tinyProject("data/train.idx", "../shared/labels.idx").dump(2));
    const Project p = loadProject(file);
    QCOMPARE(q(p.dataset.training.images), q(root + "/proj/sub/data/train.idx"));
    QCOMPARE(q(p.dataset.training.labels), q(root + "/proj/shared/labels.idx"));

    // Saved in place: still relative.
    saveProject(p, file);
    const std::string text = readText(file);
    QVERIFY(text.find("\"data/train.idx\"") != std::string::npos);
    QVERIFY(text.find("\"../shared/labels.idx\"") != std::string::npos);
    COMPARE_PROJECTS(loadProject(file), p);

    // Saved elsewhere: the relative spelling would name other files, so the paths go absolute.
    const std::string moved = root + "/elsewhere/p.nsproj";
    saveProject(p, moved);
    QVERIFY(readText(moved).find("\"" + root + "/proj/sub/data/train.idx\"") != std::string::npos);
    COMPARE_PROJECTS(loadProject(moved), p);

    // A project read from a relative file name resolves against that file's folder too.
    const fs::path cwd = fs::current_path();
    fs::current_path(root + "/proj");
    const Project r = loadProject("sub/p.nsproj");
    fs::current_path(cwd);
    QCOMPARE(q(r.dataset.training.images), q(root + "/proj/sub/data/train.idx"));
    QCOMPARE(q(r.path), q(file));
  }

  void atomicSave() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string folder = dir.path().toStdString();
    const std::string target = folder + "/p.nsproj";
    Project p = parseProject(tinyProject("/a", "/b"), "");
    saveProject(p, target);
    QCOMPARE(folderEntries(folder), std::vector<std::string>{"p.nsproj"});
    COMPARE_PROJECTS(loadProject(target), p);

    // An existing file is replaced, keeps its permissions, and no temporary file is left.
    QCOMPARE(::chmod(target.c_str(), 0640), 0);
    p.name = "second version";
    p.config.batchSize = 32;
    saveProject(p, target);
    QCOMPARE(folderEntries(folder), std::vector<std::string>{"p.nsproj"});
    const Project back = loadProject(target);
    QCOMPARE(q(back.name), q("second version"));
    QCOMPARE(back.config.batchSize, int64_t(32));
    struct stat st {};
    QCOMPARE(::stat(target.c_str(), &st), 0);
    QCOMPARE(st.st_mode & 0777, mode_t(0640));
  }

  void failedSaveKeepsOldFile() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string folder = dir.path().toStdString();
    const std::string target = folder + "/p.nsproj";
    const std::string old = "{\"old\": true}\n";
    writeText(target, old);
    Project p = parseProject(tinyProject("/a", "/b"), "");
    p.name = std::string(4000, 'n');  // longer than the file size limit below

    // The write fails half-way (file size limit; works as root too).
    {
      struct rlimit saved {};
      QCOMPARE(::getrlimit(RLIMIT_FSIZE, &saved), 0);
      const auto oldHandler = ::signal(SIGXFSZ, SIG_IGN);
      struct rlimit small = saved;
      small.rlim_cur = 1024;
      QCOMPARE(::setrlimit(RLIMIT_FSIZE, &small), 0);
      bool threw = false;
      try {
        saveProject(p, target);
      } catch (const Error& e) {
        threw = true;
        QVERIFY2(std::string(e.what()).find(target) != std::string::npos, e.what());
      }
      ::setrlimit(RLIMIT_FSIZE, &saved);
      ::signal(SIGXFSZ, oldHandler);
      QVERIFY(threw);
      QCOMPARE(q(readText(target)), q(old));
      QCOMPARE(folderEntries(folder), std::vector<std::string>{"p.nsproj"});
    }

    // An unwritable folder (root writes anyway, so only as another user).
    if (::geteuid() != 0) {
      QCOMPARE(::chmod(folder.c_str(), 0555), 0);
      QVERIFY_THROWS_EXCEPTION(Error, saveProject(p, target));
      ::chmod(folder.c_str(), 0755);
      QCOMPARE(q(readText(target)), q(old));
      QCOMPARE(folderEntries(folder), std::vector<std::string>{"p.nsproj"});
    }

    // A folder that does not exist.
    try {
      saveProject(p, folder + "/missing/p.nsproj");
      QFAIL("saving into a missing folder must fail");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("missing/p.nsproj") != std::string::npos, e.what());
    }
  }

  void loadErrors() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string folder = dir.path().toStdString();
    const auto message = [](const std::string& path) {
      try {
        loadProject(path);
      } catch (const Error& e) {
        return std::string(e.what());
      }
      return std::string("no error");
    };
    const std::string missing = message(folder + "/nothing.nsproj");
    QVERIFY2(missing.rfind(folder + "/nothing.nsproj: ", 0) == 0 && missing.find("does not exist") != std::string::npos,
             missing.c_str());
    const std::string isFolder = message(folder);
    QVERIFY2(isFolder.find("is a folder") != std::string::npos, isFolder.c_str());
    writeText(folder + "/bad.nsproj", "{\n  \"format\": \"netsmith-project\",\n  \"version\": 1,,\n}\n");
    const std::string bad = message(folder + "/bad.nsproj");
    QVERIFY2(bad.rfind(folder + "/bad.nsproj: not valid JSON at line 3, column", 0) == 0, bad.c_str());
    writeText(folder + "/empty.nsproj", "");
    const std::string empty = message(folder + "/empty.nsproj");
    QVERIFY2(empty.find("not valid JSON") != std::string::npos, empty.c_str());
  }
};

QTEST_GUILESS_MAIN(TestProjectIo)
#include "tst_project_io.moc"
