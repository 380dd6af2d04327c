// netsmith-test-labels: asan
// Broken project files: each row mutates a valid base project and checks that loading fails with
// the exact JSON path of the problem and a phrase that says what is expected.
#include <QtTest>

#include "engine/core/error.h"
#include "engine/project/project_io.h"

using namespace netsmith;

namespace {

constexpr const char* kFile = "/projects/broken.nsproj";

constexpr const char* kBase = R"({
  "format": "netsmith-project",
  "version": 1,
  "name": "base",
  "network": {
    "nodes": [
      {"id": "x", "type": "Input", "params": {"shape": [1, 28, 28]}, "pos": [0, 0]},
      {"id": "conv", "type": "Convolution", "params": {"outmaps": 4, "kernel": [3, 3], "pad": [1, 1]}, "pos": [0, 90]},
      {"id": "relu", "type": "ReLU", "pos": [0, 180]},
      {"id": "fc", "type": "Affine", "params": {"n_outmaps": [10]}, "pos": [0, 270]},
      {"id": "loss", "type": "SoftmaxCrossEntropy", "pos": [0, 360]}
    ],
    "links": [
      {"from": "x", "to": "conv"},
      {"from": "conv", "to": "relu"},
      {"from": "relu", "to": "fc"},
      {"from": "fc", "to": "loss"}
    ]
  },
  "dataset": {
    "training": {"format": "idx", "images": "${DATASETS}/fashion-mnist/train-images-idx3-ubyte.gz", "labels": "${DATASETS}/fashion-mnist/train-labels-idx1-ubyte.gz"},
    "validation": {"format": "idx", "images": "${DATASETS}/fashion-mnist/t10k-images-idx3-ubyte.gz", "labels": "${DATASETS}/fashion-mnist/t10k-labels-idx1-ubyte.gz"},
    "scale": 0.00392156862745098,
    "shuffle": true,
    "on_error": "error"
  },
  "config": {"max_epoch": 5, "batch_size": 64, "monitor_interval": 1, "precision": "float", "seed": 1, "deterministic": false},
  "optimizer": {"solver": "Adam", "alpha": 0.001, "beta1": 0.9, "beta2": 0.999, "weight_decay": 0, "lr_multiplier": 1,
                "lr_update_interval": 1, "warmup_epochs": 0, "lr_schedule": "none"},
  "parallel": {"devices": ["cpu:0", "cpu:1"], "worker_load": [1, 1], "lr_policy": "scale_lr", "threads_per_device": 0, "timeout_s": 60}
})";

// Applies `mutations`, a JSON array of ["set", pointer, value], ["remove", pointer] or
// ["raw", text] (the file text itself), to the base project; returns the file text.
std::string mutated(const QString& mutations) {
  Json doc = Json::parse(kBase);
  for (const Json& m : Json::parse(mutations.toStdString())) {
    const std::string op = m.at(0);
    if (op == "raw") return m.at(1).get<std::string>();
    const Json::json_pointer pointer(m.at(1).get<std::string>());
    if (op == "set") {
      doc[pointer] = m.at(2);
    } else if (op == "remove") {
      Json& parent = doc.at(pointer.parent_pointer());
      if (parent.is_array()) parent.erase(std::stoul(pointer.back()));
      else parent.erase(pointer.back());
    } else {
      throw std::logic_error("bad mutation " + m.dump());
    }
  }
  return doc.dump(2);
}

// Three Affine branches joined by Add2, for the graph-level rows.
constexpr const char* kTwoInputs = R"(["set", "/network", {
  "nodes": [{"id": "x", "type": "Input", "params": {"shape": [4]}},
            {"id": "x2", "type": "Input", "params": {"shape": [4]}},
            {"id": "a1", "type": "Affine", "params": {"n_outmaps": [10]}},
            {"id": "a2", "type": "Affine", "params": {"n_outmaps": [10]}},
            {"id": "add", "type": "Add2"},
            {"id": "loss", "type": "SoftmaxCrossEntropy"}],
  "links": [{"from": "x", "to": "a1"}, {"from": "x2", "to": "a2"}, {"from": "a1", "to": "add"},
            {"from": "a2", "to": "add"}, {"from": "add", "to": "loss"}]}])";

constexpr const char* kAddMismatch = R"(["set", "/network", {
  "nodes": [{"id": "x", "type": "Input", "params": {"shape": [1, 28, 28]}},
            {"id": "conv", "type": "Convolution", "params": {"outmaps": 4, "kernel": [3, 3], "pad": [1, 1]}},
            {"id": "add", "type": "Add2"},
            {"id": "fc", "type": "Affine", "params": {"n_outmaps": [10]}},
            {"id": "loss", "type": "SoftmaxCrossEntropy"}],
  "links": [{"from": "x", "to": "conv"}, {"from": "conv", "to": "add"}, {"from": "x", "to": "add"},
            {"from": "add", "to": "fc"}, {"from": "fc", "to": "loss"}]}])";

}  // namespace

class TestProjectErrors : public QObject {
  Q_OBJECT

 private slots:
  void baseIsValid() {
    try {
      const Project p = parseProjectText(kBase, kFile);
      QCOMPARE(p.network.nodes.size(), size_t(5));
    } catch (const Error& e) {
      QFAIL(e.what());
    }
  }

  void broken_data() {
    QTest::addColumn<QString>("mutations");
    QTest::addColumn<QString>("path");    // the JSON path the message must name ("" for the file as a whole)
    QTest::addColumn<QString>("phrase");  // a phrase the message must contain

    const auto row = [](const char* name, const QString& mutations, const QString& path, const QString& phrase) {
      QTest::newRow(name) << mutations << path << phrase;
    };
    const auto set = [](const char* pointer, const char* value) {
      return QString("[[\"set\", \"%1\", %2]]").arg(QString(pointer), QString(value));
    };
    const auto remove = [](const char* pointer) { return QString("[[\"remove\", \"%1\"]]").arg(QString(pointer)); };
    const auto raw = [](const char* text) { return QString::fromStdString(Json::array({Json::array({"raw", text})}).dump()); };

    // Not a project file at all.
    row("not JSON", raw("{\n  \"format\": \"netsmith-project\",\n  \"version\": 1,\n  \"name\": }\n"), "",
        "not valid JSON at line 4, column");
    row("trailing comma", raw("{\"format\": \"netsmith-project\",\n\"version\": 1,\n}"), "", "not valid JSON at line 3, column 1");
    row("empty file", raw(""), "", "not valid JSON at line 1, column 1");
    row("number overflow", raw("{\"format\": \"netsmith-project\", \"version\": 1e400}"), "", "not valid JSON: number overflow");
    row("deep nesting", raw((std::string(200, '[') + std::string(200, ']')).c_str()), "", "nested more than 64 levels");
    row("top level array", raw("[1, 2]"), "", "expected a JSON object starting with \"format\"");
    row("wrong format", set("/format", "\"nnc-project\""), "format", "expected \"netsmith-project\", got \"nnc-project\"");
    row("missing format", remove("/format"), "format", "required key is missing");
    row("version 2", set("/version", "2"), "version",
        "written by a newer Netsmith (project format version 2); this build reads version 1");
    row("version string", set("/version", "\"1\""), "version", "expected 1, got \"1\"");
    row("version 0", set("/version", "0"), "version", "expected 1, got 0");
    row("unknown top-level key", set("/netwrok", "{}"), "netwrok", "unknown key; did you mean network?");
    row("unknown top-level key, no suggestion", set("/comments", "\"x\""), "comments", "unknown key (known keys here: format, version");
    row("name not a string", set("/name", "5"), "name", "expected a string, got 5");

    // config
    row("unknown config key", set("/config/max_epochs", "5"), "config.max_epochs", "unknown key; did you mean max_epoch?");
    row("batch_size 0", set("/config/batch_size", "0"), "config.batch_size", "expected an integer >= 1, got 0");
    row("batch_size string", set("/config/batch_size", "\"64\""), "config.batch_size", "expected an integer >= 1, got \"64\"");
    row("batch_size huge", set("/config/batch_size", "1e30"), "config.batch_size", "expected an integer >= 1, got 1e+30");
    row("max_epoch -1", set("/config/max_epoch", "-1"), "config.max_epoch", "expected an integer >= 1, got -1");
    row("monitor_interval 0.5", set("/config/monitor_interval", "0.5"), "config.monitor_interval", "expected an integer >= 1, got 0.5");
    row("seed 1.5", set("/config/seed", "1.5"), "config.seed", "expected a non-negative integer, got 1.5");
    row("seed -3", set("/config/seed", "-3"), "config.seed", "expected a non-negative integer, got -3");
    row("precision double", set("/config/precision", "\"double\""), "config.precision", "expected one of \"float\", \"half\", \"bfloat16\", got \"double\"");
    row("deterministic string", set("/config/deterministic", "\"yes\""), "config.deterministic", "expected true or false, got \"yes\"");
    row("config not an object", set("/config", "[]"), "config", "expected an object, got []");

    // optimizer
    row("unknown solver", set("/optimizer/solver", "\"adam\""), "optimizer.solver", "got \"adam\"; did you mean \"Adam\"?");
    row("solver in capitals", set("/optimizer/solver", "\"SGD\""), "optimizer.solver", "did you mean \"Sgd\"?");
    row("lr negative", set("/optimizer/lr", "-0.1"), "optimizer.lr", "expected a number > 0, got -0.1");
    row("lr NaN as a string", set("/optimizer/alpha", "\"NaN\""), "optimizer.alpha", "expected a number > 0, got \"NaN\"");
    row("momentum bool", set("/optimizer/momentum", "true"), "optimizer.momentum", "expected a number >= 0, got true");
    row("weight_decay -1", set("/optimizer/weight_decay", "-1"), "optimizer.weight_decay", "expected a number >= 0, got -1");
    row("lr_multiplier 0", set("/optimizer/lr_multiplier", "0"), "optimizer.lr_multiplier", "expected a number > 0, got 0");
    row("lr_update_interval 0", set("/optimizer/lr_update_interval", "0"), "optimizer.lr_update_interval",
        "expected an integer >= 1, got 0");
    row("warmup negative", set("/optimizer/warmup_epochs", "-2"), "optimizer.warmup_epochs", "expected a number >= 0, got -2");
    row("lr_schedule linear", set("/optimizer/lr_schedule", "\"linear\""), "optimizer.lr_schedule",
        "expected one of \"none\", \"cosine\", \"step\", \"exponential\", got \"linear\"");
    row("step_epochs 0", set("/optimizer/step_epochs", "0"), "optimizer.step_epochs", "expected an integer >= 1, got 0");
    row("gamma negative", set("/optimizer/gamma", "-0.5"), "optimizer.gamma", "expected a number > 0, got -0.5");
    row("unknown optimizer key", set("/optimizer/learning_rate", "0.1"), "optimizer.learning_rate", "unknown key");
    row("optimizer key typo", set("/optimizer/momentun", "0.9"), "optimizer.momentun", "did you mean momentum?");

    // parallel
    row("devices empty", set("/parallel/devices", "[]"), "parallel.devices", "expected a non-empty list of devices");
    row("devices gpu0", set("/parallel/devices", "[\"gpu0\"]"), "parallel.devices[0]",
        "expected a device such as \"cpu:0\" or \"cuda:1\" (or, under mpirun, \"rank1/cpu:0\"), got \"gpu0\"");
    row("device not a string", set("/parallel/devices", "[\"cpu:0\", 1]"), "parallel.devices[1]", "expected a device such as");
    row("duplicate devices", set("/parallel/devices", "[\"cuda:0\", \"cuda:0\"]"), "parallel.devices[1]",
        "device \"cuda:0\" is listed twice (also at parallel.devices[0])");
    row("worker_load length", set("/parallel/worker_load", "[1, 1, 1]"), "parallel.worker_load",
        "expected 2 number(s), one per device in parallel.devices, got [1,1,1]");
    row("worker_load all zero", set("/parallel/worker_load", "[0, 0]"), "parallel.worker_load", "every load is 0");
    row("worker_load negative", set("/parallel/worker_load", "[1, -1]"), "parallel.worker_load[1]", "expected a number >= 0, got -1");
    row("lr_policy bad", set("/parallel/lr_policy", "\"scale\""), "parallel.lr_policy", "did you mean \"scale_lr\"?");
    row("threads_per_device -1", set("/parallel/threads_per_device", "-1"), "parallel.threads_per_device",
        "expected an integer in [0, 4096], got -1");
    row("timeout 0", set("/parallel/timeout_s", "0"), "parallel.timeout_s", "expected a number > 0, got 0");

    // network structure
    row("network missing", remove("/network"), "network", "required key is missing");
    row("nodes not an array", set("/network/nodes", "{}"), "network.nodes", "expected an array of nodes, got {}");
    row("links not an array", set("/network/links", "\"x\""), "network.links", "expected an array of links");
    row("node not an object", set("/network/nodes/2", "\"relu\""), "network.nodes[2]", "expected a node object");
    row("node without id", remove("/network/nodes/2/id"), "network.nodes[2].id", "required key is missing");
    row("node id empty", set("/network/nodes/2/id", "\"\""), "network.nodes[2].id", "expected a non-empty string naming the node");
    row("duplicate node id", set("/network/nodes/2/id", "\"conv\""), "network.nodes[2].id",
        "duplicate node id 'conv': network.nodes[1] and network.nodes[2] both use it");
    row("node type not a string", set("/network/nodes/2/type", "5"), "network.nodes[2].type", "expected a layer type name");
    row("node without type", remove("/network/nodes/3/type"), "network.nodes[3].type", "required key is missing");
    row("params not an object", set("/network/nodes/1/params", "[16]"), "network.nodes[1].params",
        "expected an object of layer parameters");
    row("pos one number", set("/network/nodes/0/pos", "[0]"), "network.nodes[0].pos", "expected two numbers [x, y], got [0]");
    row("pos strings", set("/network/nodes/0/pos", "[\"a\", \"b\"]"), "network.nodes[0].pos", "expected two numbers");
    row("unknown node key", set("/network/nodes/1/paramz", "{}"), "network.nodes[1].paramz", "unknown key; did you mean params?");
    row("link to unknown node", set("/network/links/3/to", "\"los\""), "network.links[3].to", "unknown node 'los'; did you mean 'loss'?");
    row("link from unknown node", set("/network/links/0/from", "\"input_layer\""), "network.links[0].from", "unknown node 'input_layer'");
    row("link without from", remove("/network/links/0/from"), "network.links[0].from", "required key is missing");
    row("link port negative", set("/network/links/0/port", "-1"), "network.links[0].port", "expected an integer in [0, 64], got -1");
    row("link not an object", set("/network/links/1", "[\"conv\", \"relu\"]"), "network.links[1]", "expected a link object");

    // dataset
    row("dataset missing", remove("/dataset"), "dataset", "required key is missing");
    row("training missing", remove("/dataset/training"), "dataset.training", "required key is missing");
    row("idx without labels", remove("/dataset/training/labels"), "dataset.training.labels", "the idx format needs images and labels");
    row("unknown dataset format", set("/dataset/training/format", "\"npy\""), "dataset.training.format",
        "expected \"idx\" or \"csv\", got \"npy\"");
    row("source format missing", remove("/dataset/validation/format"), "dataset.validation.format", "required key is missing");
    row("csv with images", set("/dataset/validation/format", "\"csv\""), "dataset.validation.images", "not used by the csv format");
    row("idx with csv", set("/dataset/training/csv", "\"a.csv\""), "dataset.training.csv", "not used by the idx format");
    row("empty path", set("/dataset/training/images", "\"\""), "dataset.training.images", "expected a file path, got \"\"");
    row("unknown variable", set("/dataset/training/images", "\"${DATA}/x.gz\""), "dataset.training.images",
        "only ${DATASETS} can be used");
    row("on_error bad", set("/dataset/on_error", "\"ignore\""), "dataset.on_error", "expected \"error\" or \"skip\", got \"ignore\"");
    row("scale 0", set("/dataset/scale", "0"), "dataset.scale", "expected a number > 0, got 0");
    row("shuffle number", set("/dataset/shuffle", "1"), "dataset.shuffle", "expected true or false, got 1");
    row("unknown dataset key", set("/dataset/shufle", "true"), "dataset.shufle", "did you mean shuffle?");

    // The network against the op registry (graph.cpp).
    row("unknown layer type", set("/network/nodes/1/type", "\"Conv\""), "network.nodes[1].type", "did you mean 'Convolution'?");
    row("kernel one number", set("/network/nodes/1/params/kernel", "[5]"), "network.nodes[1].params.kernel",
        "expected 2 positive integers, got [5]");
    row("unknown layer parameter", set("/network/nodes/1/params/outmap", "4"), "network.nodes[1].params.outmap",
        "unknown parameter of Convolution");
    row("cycle",
        "[[\"set\", \"/network/nodes/-\", {\"id\": \"r1\", \"type\": \"ReLU\"}],"
        " [\"set\", \"/network/nodes/-\", {\"id\": \"r2\", \"type\": \"ReLU\"}],"
        " [\"set\", \"/network/links/-\", {\"from\": \"r1\", \"to\": \"r2\"}],"
        " [\"set\", \"/network/links/-\", {\"from\": \"r2\", \"to\": \"r1\"}]]",
        "network.links", "cycle");
    row("no loss", "[[\"remove\", \"/network/links/3\"], [\"remove\", \"/network/nodes/4\"]]", "network.nodes", "no loss layer");
    row("two inputs", QString("[%1]").arg(kTwoInputs), "network.nodes[1]", "2 Input layers");
    row("Add2 shape mismatch", QString("[%1]").arg(kAddMismatch), "network.nodes[2]", "Add2 'add' (input 4,28,28 and 1,28,28): the inputs have different shapes");
    row("empty network", set("/network", "{\"nodes\": [], \"links\": []}"), "network.nodes", "the network is empty");
    row("unlinked layer", "[[\"set\", \"/network/nodes/-\", {\"id\": \"extra\", \"type\": \"ReLU\"}]]", "network.nodes[5]",
        "has no input");
  }

  void broken() {
    QFETCH(QString, mutations);
    QFETCH(QString, path);
    QFETCH(QString, phrase);
    const std::string text = mutated(mutations);
    QString message;
    try {
      parseProjectText(text, kFile);
      QFAIL(qPrintable("no error for:\n" + QString::fromStdString(text.substr(0, 2000))));
    } catch (const Error& e) {
      message = QString::fromStdString(e.what());
    }
    const QString prefix = QString(kFile) + ": " + (path.isEmpty() ? QString() : path + ": ");
    QVERIFY2(message.startsWith(prefix), qPrintable("expected the prefix '" + prefix + "' in: " + message));
    if (path.isEmpty())  // about the file as a whole: no JSON path follows the file name
      QVERIFY2(!message.mid(prefix.size()).startsWith("network") && !message.mid(prefix.size()).startsWith("config"),
               qPrintable(message));
    QVERIFY2(message.contains(phrase), qPrintable("expected '" + phrase + "' in: " + message));
  }

  // The same problems through a Json value (no text): same messages, no file name when none is given.
  void withoutFileName() {
    Json doc = Json::parse(kBase);
    doc["config"]["batch_size"] = 0;
    try {
      parseProject(doc, "");
      QFAIL("no error");
    } catch (const Error& e) {
      QCOMPARE(QString(e.what()), QString("config.batch_size: expected an integer >= 1, got 0"));
    }
  }
};

QTEST_GUILESS_MAIN(TestProjectErrors)
#include "tst_project_errors.moc"
