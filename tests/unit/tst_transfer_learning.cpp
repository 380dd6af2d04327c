// Transfer learning in the engine (issue 18 item 5): a node's "frozen" and "lr_mult" in the
// project file (read, checked, written only when set); partial initial parameters by layer name
// (Note [Initial parameters]: loaded, new, re-initialised with both shapes, unused; a run folder as
// the source) and their report's protocol round trip; a frozen layer's blobs have no gradients and
// backward skips frozen layers with nothing learning before them (Note [Frozen layers]); the
// optimizer's per-blob learning-rate multiplier.
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <filesystem>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/core/error.h"
#include "engine/core/rng.h"
#include "engine/op_interface/op_registry.h"
#include "engine/optim/optimizer.h"
#include "engine/project/classifier_head.h"
#include "engine/project/graph.h"
#include "engine/project/project_io.h"
#include "engine/protocol/events.h"
#include "engine/train/initial_parameters.h"
#include "engine/model/network.h"

using namespace netsmith;
namespace fs = std::filesystem;

namespace {

// Input 1x8x8 -> conv (4 maps) -> bn -> relu -> fc (16) -> relu -> head (3) -> loss.
Json smallProject(const Json& conv = Json::object(), const Json& head = Json::object()) {
  Json nodes = Json::array();
  nodes.push_back({{"id", "x"}, {"type", "Input"}, {"params", {{"shape", {1, 8, 8}}}}});
  Json c = {{"id", "conv"}, {"type", "Convolution"}, {"params", {{"outmaps", 4}, {"kernel", {3, 3}}}}};
  if (conv.is_object()) c.update(conv);
  nodes.push_back(c);
  nodes.push_back({{"id", "bn"}, {"type", "BatchNormalization"}});
  nodes.push_back({{"id", "relu"}, {"type", "ReLU"}});
  nodes.push_back({{"id", "fc"}, {"type", "Affine"}, {"params", {{"n_outmaps", {16}}}}});
  nodes.push_back({{"id", "relu2"}, {"type", "ReLU"}});
  Json h = {{"id", "head"}, {"type", "Affine"}, {"params", {{"n_outmaps", {3}}}}};
  if (head.is_object()) h.update(head);
  nodes.push_back(h);
  nodes.push_back({{"id", "loss"}, {"type", "SoftmaxCrossEntropy"}});
  Json links = Json::array();
  const char* chain[] = {"x", "conv", "bn", "relu", "fc", "relu2", "head", "loss"};
  for (int i = 0; i + 1 < 8; ++i) links.push_back({{"from", chain[i]}, {"to", chain[i + 1]}});
  return {{"format", "netsmith-project"},
          {"version", 1},
          {"name", "small"},
          {"network", {{"nodes", nodes}, {"links", links}}},
          {"dataset", {{"training", {{"format", "csv"}, {"csv", "train.csv"}}}}}};
}

Graph graphOf(const Json& project) { return buildGraph(parseProject(project, "").network, OpRegistry::builtin()); }

std::string loadError(const Json& project) {
  try {
    parseProject(project, "p.nsproj");
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

bool sameBits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && std::memcmp(a.data(), b.data(), static_cast<size_t>(a.size()) * sizeof(float)) == 0;
}

Tensor filled(const Shape& shape, float start) {
  Tensor t(shape);
  for (int64_t i = 0; i < t.size(); ++i) t[i] = start + 0.001f * static_cast<float>(i);
  return t;
}

const Tensor& blobOf(std::vector<ParameterRef>& params, const std::string& name) {
  for (const ParameterRef& p : params)
    if (p.name == name) return *p.value;
  throw Error("no blob " + name);
}

}  // namespace

class TransferLearningTest : public QObject {
  Q_OBJECT

 private slots:
  // "frozen" and "lr_mult" are read, checked with their JSON path, and written only when set.
  void nodeFieldsReadCheckedAndWrittenWhenSet() {
    Json p = smallProject({{"frozen", true}}, {{"lr_mult", 2.5}});
    const Project project = parseProject(p, "");
    QVERIFY(project.network.nodes[1].frozen);
    QCOMPARE(project.network.nodes[1].lrMult, 1.0);
    QCOMPARE(project.network.nodes[6].lrMult, 2.5);
    QVERIFY(!project.network.nodes[4].frozen);
    const std::string text = projectToText(project);
    const Json written = Json::parse(text);
    QCOMPARE(written["network"]["nodes"][1]["frozen"], Json(true));
    QVERIFY(!written["network"]["nodes"][1].contains("lr_mult"));
    QCOMPARE(written["network"]["nodes"][6]["lr_mult"], Json(2.5));
    QVERIFY(!written["network"]["nodes"][6].contains("frozen"));
    QVERIFY(!written["network"]["nodes"][4].contains("frozen") && !written["network"]["nodes"][4].contains("lr_mult"));
    // A file without them is written as it was.
    QVERIFY(projectToText(parseProject(smallProject(), "")).find("frozen") == std::string::npos);

    const Graph g = graphOf(p);
    QVERIFY(g.nodes[1].frozen && !g.nodes[1].learns());
    QCOMPARE(g.nodes[6].lrMult, 2.5);

    const std::string notFlag = loadError(smallProject({{"frozen", "yes"}}));
    QVERIFY2(notFlag.find("network.nodes[1].frozen") != std::string::npos && notFlag.find("true or false") != std::string::npos,
             notFlag.c_str());
    const std::string negative = loadError(smallProject({}, {{"lr_mult", -1}}));
    QVERIFY2(negative.find("network.nodes[6].lr_mult") != std::string::npos && negative.find(">= 0") != std::string::npos,
             negative.c_str());
    // Only layers with parameters can be frozen.
    Json relu = smallProject();
    relu["network"]["nodes"][3]["frozen"] = true;
    const auto problems = checkNetwork(parseProject(relu, "", {.checkNetwork = false}).network, OpRegistry::builtin());
    QCOMPARE(problems.size(), size_t{1});
    QCOMPARE(QString::fromStdString(problems[0].jsonPath), QString("network.nodes[3].frozen"));
    QVERIFY2(problems[0].message.find("has no parameters to freeze") != std::string::npos, problems[0].message.c_str());
  }

  // Note [Frozen layers]: a frozen layer's blobs have no gradient and are held; backward skips a
  // frozen first block and still runs through a frozen layer that has a learning layer before it.
  void frozenLayersHaveNoGradientsAndBackwardSkipsThem() {
    CpuDeviceContext device("cpu:0", 1, Precision::Float);
    device.bindToCurrentThread();
    {
      Json p = smallProject({{"frozen", true}});
      p["network"]["nodes"][2]["frozen"] = true;  // bn
      const Graph g = graphOf(p);
      Network net(g, device);
      for (const ParameterRef& r : net.kernelParameters()) {
        const bool early = r.name.rfind("conv/", 0) == 0 || r.name.rfind("bn/", 0) == 0;
        QVERIFY2(early ? !r.grad && r.held : (r.grad != nullptr) == !r.held, r.name.c_str());
      }
      QVERIFY(!net.runsBackward(1) && !net.runsBackward(2) && !net.runsBackward(3));  // conv, bn, relu
      QVERIFY(net.runsBackward(4) && net.runsBackward(6));
      // A training forward leaves the frozen BatchNormalization's running statistics as they were.
      net.initializeParameters(3);
      auto params = net.parameters();
      const Tensor mean = blobOf(params, "bn/mean").clone(), var = blobOf(params, "bn/var").clone();
      Tensor x(Shape{4, 1, 8, 8}), y(Shape{4, 1});
      Rng rng(5);
      for (int64_t i = 0; i < x.size(); ++i) x[i] = rng.uniform(0.0f, 3.0f);
      for (int64_t i = 0; i < 4; ++i) y[i] = static_cast<float>(i % 3);
      net.forward(x, y, true, RandomKey{1, 0, 0, nullptr});
      net.backward(0.25f);
      params = net.parameters();
      QVERIFY(sameBits(blobOf(params, "bn/mean"), mean) && sameBits(blobOf(params, "bn/var"), var));
    }
    {
      // Only the BatchNormalization frozen: the convolution before it learns, so backward runs
      // through the frozen layer (its input gradient is needed).
      Json p = smallProject();
      p["network"]["nodes"][2]["frozen"] = true;
      const Graph g = graphOf(p);
      Network net(g, device);
      QVERIFY(net.runsBackward(1) && net.runsBackward(2));
      net.initializeParameters(3);
      auto params = net.parameters();
      const Tensor mean = blobOf(params, "bn/mean").clone();
      Tensor x(Shape{4, 1, 8, 8}), y(Shape{4, 1});
      for (int64_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7);
      for (int64_t i = 0; i < 4; ++i) y[i] = static_cast<float>(i % 3);
      net.forward(x, y, true, RandomKey{1, 0, 0, nullptr});
      net.backward(0.25f);
      params = net.parameters();
      QVERIFY(sameBits(blobOf(params, "bn/mean"), mean));
      for (const ParameterRef& r : net.parameters())
        if (r.name == "conv/W") {
          double sum = 0;
          for (int64_t i = 0; i < r.grad->size(); ++i) sum += std::fabs((*r.grad)[i]);
          QVERIFY2(sum > 0, "the convolution before the frozen BatchNormalization gets a gradient");
        }
    }
    {
      // lr_mult 0: no gradient for the weights, but the running statistics still follow the batch.
      Json p = smallProject();
      p["network"]["nodes"][2]["lr_mult"] = 0;
      const Graph g = graphOf(p);
      Network net(g, device);
      for (const ParameterRef& r : net.kernelParameters())
        if (r.name.rfind("bn/", 0) == 0) {
          const bool stat = r.name == "bn/mean" || r.name == "bn/var";
          QVERIFY2(!r.grad && r.held == !stat, r.name.c_str());
        }
    }
  }

  // Note [Initial parameters]: each category, with the network's initialisers' values kept for
  // what is not loaded.
  void partialLoadingReportsEveryCategory() {
    QTemporaryDir dir;
    // The network: head outputs 3 (the file's 5), a layer 'extra' the file lacks.
    Json p = smallProject();
    p["network"]["nodes"][4]["id"] = "extra";  // fc renamed: new
    p["network"]["links"][3]["to"] = "extra";
    p["network"]["links"][4]["from"] = "extra";
    const Graph g = graphOf(p);
    CheckpointData file;
    file.tensors.emplace_back("conv/W", filled({4, 1, 3, 3}, 0.5f));
    file.tensors.emplace_back("conv/b", filled({4}, -0.5f));
    file.tensors.emplace_back("bn/beta", filled({4}, 0.1f));
    file.tensors.emplace_back("bn/gamma", filled({4}, 1.1f));
    file.tensors.emplace_back("bn/mean", filled({4}, 0.2f));
    // bn/var missing: new within a partly loaded layer
    file.tensors.emplace_back("fc/W", filled({144, 16}, 0.0f));   // unused: no layer 'fc'
    file.tensors.emplace_back("head/W", filled({16, 5}, 0.3f));   // another shape: re-initialised
    file.tensors.emplace_back("head/b", filled({3}, 0.7f));       // loaded
    const std::string path = dir.filePath("model.nsparams").toStdString();
    writeCheckpoint(path, file);
    QVERIFY(g.nodes[1].blobs.size() == 2 && g.nodes[2].blobs.size() == 4);

    const InitialParameters ip = readInitialParameters(path, g);
    const auto& r = ip.report;
    QCOMPARE(QString::fromStdString(r.file), QString::fromStdString(path));
    QCOMPARE(r.layers.size(), size_t{4});  // conv, bn, extra, head
    QCOMPARE(QString::fromStdString(r.layers[0].status()), QString("loaded"));
    QCOMPARE(QString::fromStdString(r.layers[1].status()), QString("partial"));
    QCOMPARE(r.layers[1].fresh, std::vector<std::string>{"var"});
    QCOMPARE(QString::fromStdString(r.layers[2].id), QString("extra"));
    QCOMPARE(QString::fromStdString(r.layers[2].status()), QString("new"));
    QCOMPARE(QString::fromStdString(r.layers[3].status()), QString("reinitialized"));
    QCOMPARE(r.layers[3].reshaped.size(), size_t{1});
    QCOMPARE(r.layers[3].reshaped[0].shape, (std::vector<int64_t>{16, 3}));
    QCOMPARE(r.layers[3].reshaped[0].fileShape, (std::vector<int64_t>{16, 5}));
    QCOMPARE(r.layers[3].loaded, std::vector<std::string>{"b"});
    QCOMPARE(r.unused.size(), size_t{1});
    QCOMPARE(QString::fromStdString(r.unused[0].name), QString("fc/W"));
    QCOMPARE(r.loadedBlobs(), int64_t{6});
    QCOMPARE(r.newBlobs(), int64_t{3});  // bn/var, extra/W, extra/b
    QCOMPARE(r.reshapedBlobs(), int64_t{1});
    std::string text;
    for (const auto& line : r.lines()) text += line + "\n";
    QVERIFY2(text.find("head (Affine): loaded b; W re-initialized: the network's shape is (16,3), the file's (16,5)") !=
                     std::string::npos &&
                 text.find("extra (Affine): new") != std::string::npos &&
                 text.find("fc/W (144,16): in the file, but no layer of the network has it (unused)") != std::string::npos &&
                 text.find("6 blob(s) loaded, 3 new") != std::string::npos,
             text.c_str());

    // Applied: loaded blobs take the file's values; the rest keep the initialisers' values.
    CpuDeviceContext device("cpu:0", 1, Precision::Float);
    device.bindToCurrentThread();
    Network fresh(g, device), net(g, device);
    fresh.initializeParameters(9);
    net.initializeParameters(9);
    applyInitialParameters(ip, net);
    auto a = net.parameters(), b = fresh.parameters();
    for (size_t i = 0; i < a.size(); ++i) {
      const auto it = std::find_if(file.tensors.begin(), file.tensors.end(), [&](const auto& t) { return t.first == a[i].name; });
      const bool loaded = it != file.tensors.end() && it->second.shape() == a[i].value->shape();
      QVERIFY2(sameBits(*a[i].value, loaded ? it->second : *b[i].value), a[i].name.c_str());
    }

    // The report through the event's writer and reader.
    const Json line = protocol::InitialParametersEvent{r}.toJson();
    QCOMPARE(line["event"], Json("initial_parameters"));
    QCOMPARE(line["layers"][3]["reinitialized"][0]["file_shape"], Json({16, 5}));
    const protocol::Event back = protocol::eventFromJson(line);
    const auto* e = std::get_if<protocol::InitialParametersEvent>(&back);
    QVERIFY(e);
    QCOMPARE(e->report.toJson(), r.toJson());
    Json damaged = line;
    damaged["layers"][0]["loaded"] = 3;
    QVERIFY_THROWS_EXCEPTION(protocol::ReadError, protocol::eventFromJson(damaged));
  }

  // A run folder as the source: its parameters.nsparams, else best.nsparams; neither is an error.
  void aRunFolderIsASource() {
    QTemporaryDir dir;
    const fs::path run = dir.filePath("run").toStdString();
    fs::create_directories(run);
    const std::string missing = [&] {
      try {
        initialParametersFile(run.string());
      } catch (const Error& e) {
        return std::string(e.what());
      }
      return std::string();
    }();
    QVERIFY2(missing.find("no parameters.nsparams or best.nsparams") != std::string::npos, missing.c_str());
    CheckpointData data;
    data.tensors.emplace_back("conv/W", filled({4, 1, 3, 3}, 0.5f));
    writeCheckpoint((run / "best.nsparams").string(), data);
    QCOMPARE(QString::fromStdString(initialParametersFile(run.string())), QString::fromStdString((run / "best.nsparams").string()));
    writeCheckpoint((run / "parameters.nsparams").string(), data);
    QCOMPARE(QString::fromStdString(initialParametersFile(run.string())),
             QString::fromStdString((run / "parameters.nsparams").string()));
    const InitialParameters ip = readInitialParameters(run.string(), graphOf(smallProject()));
    QCOMPARE(QString::fromStdString(ip.report.source), QString::fromStdString(run.string()));
    QCOMPARE(ip.report.loadedBlobs(), int64_t{1});
  }

  // Note [Classifier head]: found through Softmax/pooling, set to N classes, and the messages
  // training gives when the dataset's classes differ.
  void classifierHeadIsFoundAndSet() {
    Project p = parseProject(smallProject(), "");
    auto head = findClassifierHead(buildGraph(p.network, OpRegistry::builtin()));
    QVERIFY(head);
    QCOMPARE(QString::fromStdString(head->nodeId), QString("head"));
    QCOMPARE(head->outputs, int64_t{3});
    const ClassifierHead was = setClassCount(p, 5);
    QCOMPARE(was.outputs, int64_t{3});
    QCOMPARE(p.network.nodes[6].params["n_outmaps"], Json({5}));
    QCOMPARE(findClassifierHead(buildGraph(p.network, OpRegistry::builtin()))->outputs, int64_t{5});

    // A convolution head read through GlobalAveragePooling and Flatten (SqueezeNet's form).
    Json conv = smallProject();
    Json& nodes = conv["network"]["nodes"];
    nodes[4] = {{"id", "cls"}, {"type", "Convolution"}, {"params", {{"outmaps", 10}, {"kernel", {1, 1}}}}};
    nodes[5] = {{"id", "gap"}, {"type", "GlobalAveragePooling"}};
    nodes[6] = {{"id", "sm"}, {"type", "Flatten"}};
    for (Json& l : conv["network"]["links"])
      for (const char* k : {"from", "to"}) {
        if (l[k] == "fc") l[k] = "cls";
        if (l[k] == "relu2") l[k] = "gap";
        if (l[k] == "head") l[k] = "sm";
      }
    Project c = parseProject(conv, "");
    const auto convHead = findClassifierHead(buildGraph(c.network, OpRegistry::builtin()));
    QVERIFY(convHead);
    QCOMPARE(QString::fromStdString(convHead->type), QString("Convolution"));
    QCOMPARE(convHead->outputs, int64_t{10});
    setClassCount(c, 4);
    QCOMPARE(c.network.nodes[4].params["outmaps"], Json(4));

    // A regression loss has no head; setClassCount says so.
    Json regression = smallProject();
    regression["network"]["nodes"][7]["type"] = "SquaredError";
    regression["network"]["nodes"][6]["params"]["n_outmaps"] = {1};
    Project r = parseProject(regression, "");
    QVERIFY(!findClassifierHead(buildGraph(r.network, OpRegistry::builtin())));
    QVERIFY_THROWS_EXCEPTION(Error, setClassCount(r, 3));

    const Graph g = graphOf(smallProject());
    QVERIFY(checkClassCount(g, 3, "p.nsproj").message.empty());
    const ClassCountCheck more = checkClassCount(g, 7, "p.nsproj");
    QVERIFY(more.fatal);
    QVERIFY2(more.message.find("The dataset has 7 classes but the network outputs 3 (head 'head', Affine)") == 0 &&
                 more.message.find("netsmith-cli project set-classes p.nsproj 7") != std::string::npos,
             more.message.c_str());
    const ClassCountCheck fewer = checkClassCount(g, 2, "p.nsproj");
    QVERIFY(!fewer.fatal && fewer.message.find("has 2 classes") != std::string::npos);
  }

  // The optimizer's per-slot multiplier: lr × 2 is the step of twice the learning rate, bit for
  // bit (Sgd and Adam), 1 is the plain step, 0 changes nothing.
  void optimizerAppliesTheMultiplierPerSlot() {
    for (const char* solver : {"Sgd", "Adam", "Momentum"}) {
      OptimizerConfig cfg;
      cfg.solver = solver;
      auto once = [&](float mult, double lr) {
        Tensor w = filled({37}, 0.25f), g = filled({37}, -0.4f);
        auto opt = Optimizer::create(cfg);
        const ParamSlot slot{"l/W", &w, &g, mult};
        opt->step(std::span(&slot, 1), lr);
        return w;
      };
      QVERIFY2(sameBits(once(2.0f, 0.01), once(1.0f, 0.02)), solver);
      QVERIFY2(!sameBits(once(1.0f, 0.01), once(1.0f, 0.02)), solver);
      QVERIFY2(sameBits(once(0.0f, 0.01), filled({37}, 0.25f)), solver);
    }
  }
};

QTEST_GUILESS_MAIN(TransferLearningTest)
#include "tst_transfer_learning.moc"
