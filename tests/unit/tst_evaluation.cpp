// Evaluation numbers against a confusion matrix worked out by hand, the binary reading, label
// errors, the output head (Note [Output head]) and class names in the JSON and the report
// (Note [Run class names]).
#include <QtTest>
#include <cmath>
#include <fstream>

#include "engine/core/error.h"
#include "engine/eval/evaluation.h"
#include "engine/eval/output_head.h"
#include "engine/project/project_io.h"
#include "engine/train/metrics.h"

using namespace netsmith;

class EvaluationTest : public QObject {
  Q_OBJECT

 private slots:
  // 8 samples, 3 classes. Predicted (arg-max, the first of equal values) vs true:
  //   s0 0→0  s1 1→1  s2 1→0  s3 2→2  s4 2→0  s5 0→2  s6 1→1  s7 1→0 (0.4 = 0.4: class 0)
  // Confusion [true][predicted] = [[1,0,1],[2,2,0],[1,0,1]]; 4 correct.
  // class 0: tp 1, predicted 4, support 2: P 1/4, R 1/2, F 1/3
  // class 1: tp 2, predicted 2, support 4: P 1,   R 1/2, F 2/3
  // class 2: tp 1, predicted 2, support 2: P 1/2, R 1/2, F 1/2
  // macro: P 7/12, R 1/2, F 1/2. Worst by P(true): s5 0.1, s2 0.3, s4 0.4, s7 0.4 (index order).
  void handComputedConfusionMatrix() {
    const std::vector<float> rows{0.7f, 0.2f, 0.1f, 0.1f, 0.8f, 0.1f, 0.6f, 0.3f, 0.1f, 0.2f, 0.2f, 0.6f,
                                  0.5f, 0.1f, 0.4f, 0.1f, 0.1f, 0.8f, 0.3f, 0.6f, 0.1f, 0.4f, 0.4f, 0.2f};
    const std::vector<float> labels{0, 1, 1, 2, 2, 0, 1, 1};
    const ClassReading reading{true, 3, false, ""};
    const Evaluation e = evaluateClassifier(reading, rows, 3, labels, 3);
    QCOMPARE(e.samples, int64_t{8});
    QCOMPARE(e.correct, int64_t{4});
    QCOMPARE(e.accuracy, 0.5);
    const std::vector<std::vector<int64_t>> confusion{{1, 0, 1}, {2, 2, 0}, {1, 0, 1}};
    QVERIFY(e.confusion == confusion);
    const double p[] = {0.25, 1.0, 0.5}, r[] = {0.5, 0.5, 0.5}, f[] = {1.0 / 3, 2.0 / 3, 0.5};
    const int64_t support[] = {2, 4, 2}, predicted[] = {4, 2, 2};
    for (int c = 0; c < 3; ++c) {
      QCOMPARE(e.perClass[c].support, support[c]);
      QCOMPARE(e.perClass[c].predicted, predicted[c]);
      QVERIFY(std::abs(e.perClass[c].precision - p[c]) < 1e-12);
      QVERIFY(std::abs(e.perClass[c].recall - r[c]) < 1e-12);
      QVERIFY(std::abs(e.perClass[c].fMeasure - f[c]) < 1e-12);
    }
    QVERIFY(std::abs(e.macroPrecision - 7.0 / 12) < 1e-12);
    QVERIFY(std::abs(e.macroRecall - 0.5) < 1e-12);
    QVERIFY(std::abs(e.macroFMeasure - 0.5) < 1e-12);
    QCOMPARE(e.worst.size(), size_t{3});
    QCOMPARE(e.worst[0].index, int64_t{5});
    QCOMPARE(e.worst[1].index, int64_t{2});
    QCOMPARE(e.worst[2].index, int64_t{4});
    QCOMPARE(e.worst[0].predictedClass, int64_t{2});
    QVERIFY(std::abs(e.worst[0].trueLikelihood - 0.1) < 1e-6);
    QVERIFY(std::abs(e.worst[0].predictedLikelihood - 0.8) < 1e-6);

    const Json j = evaluationToJson(e, {});
    QCOMPARE(j.at("confusion_matrix").dump(), std::string("[[1,0,1],[2,2,0],[1,0,1]]"));
    QCOMPARE(j.at("per_class").size(), size_t{3});
    QCOMPARE(j.at("worst")[0].at("index").get<int>(), 5);
    const std::string text = evaluationToText(e, {});
    QVERIFY2(text.find("Accuracy: 50.00% (4 of 8 samples)") != std::string::npos, text.c_str());
  }

  // The same evaluation with names (one with a non-ASCII letter, one too long for the table, and a
  // class without one): every class is called by its name, or by its number.
  void classNamesInTheJsonAndTheReport() {
    const std::vector<float> rows{0.7f, 0.2f, 0.1f, 0.1f, 0.8f, 0.1f, 0.6f, 0.3f, 0.1f, 0.2f, 0.2f, 0.6f,
                                  0.5f, 0.1f, 0.4f, 0.1f, 0.1f, 0.8f, 0.3f, 0.6f, 0.1f, 0.4f, 0.4f, 0.2f};
    const Evaluation e = evaluateClassifier({true, 3, false, ""}, rows, 3, {0, 1, 1, 2, 2, 0, 1, 1}, 3);
    const std::vector<std::string> names{"Sandale \xC3\xA9", "A very long class name"};
    QCOMPARE(classNameOf(names, 0), names[0]);
    QCOMPARE(classNameOf(names, 2), std::string("2"));
    QCOMPARE(classNameOf({"a", ""}, 1), std::string("1"));
    QCOMPARE(csvCell("T-shirt, top"), std::string("\"T-shirt, top\""));
    QCOMPARE(csvCell("Trouser \"wide\""), std::string("\"Trouser \"\"wide\"\"\""));
    QCOMPARE(csvCell("Bag"), std::string("Bag"));

    const Json j = evaluationToJson(e, names);
    QCOMPARE(j.at("class_names").get<std::vector<std::string>>(),
             (std::vector<std::string>{names[0], names[1], "2"}));
    QCOMPARE(j["per_class"][1]["name"].get<std::string>(), names[1]);
    QCOMPARE(j["worst"][0]["true_class_name"].get<std::string>(), names[0]);  // s5: 0 → 2
    QCOMPARE(j["worst"][0]["predicted_class_name"].get<std::string>(), std::string("2"));
    const Json unnamed = evaluationToJson(e, {});
    QCOMPARE(unnamed.at("class_names").get<std::vector<std::string>>(), (std::vector<std::string>{"0", "1", "2"}));
    QCOMPARE(unnamed["worst"][0]["true_class_name"].get<std::string>(), std::string("0"));

    const std::string text = evaluationToText(e, names);
    // Per-class rows and matrix rows: 14 characters (é is one); matrix columns: 10, right-aligned.
    QVERIFY2(text.find("\n  Sandale \xC3\xA9      ") != std::string::npos, text.c_str());
    QVERIFY2(text.find("\n  A very long cl ") != std::string::npos, text.c_str());
    QVERIFY2(text.find("  Sandale \xC3\xA9 A very lon          2\n") != std::string::npos, text.c_str());
    QVERIFY2(text.find("\n  A very long cl           2          2          0\n") != std::string::npos, text.c_str());
    // Unnamed: the narrow table of numbers.
    const std::string plain = evaluationToText(e, {});
    QVERIFY2(plain.find("             0      1      2\n     0       1      0      1\n") != std::string::npos, plain.c_str());
  }

  // One sigmoid output: class 1 when P > 0.5; class 0's likelihood is 1 - P.
  void binaryReading() {
    const ClassReading reading{true, 2, true, ""};
    const std::vector<float> rows{0.9f, 0.2f, 0.6f, 0.1f};
    const std::vector<float> labels{1, 1, 0, 0};
    const Evaluation e = evaluateClassifier(reading, rows, 1, labels, 10);
    const std::vector<std::vector<int64_t>> confusion{{1, 1}, {1, 1}};
    QVERIFY(e.confusion == confusion);
    QCOMPARE(e.worst.size(), size_t{2});
    QCOMPARE(e.worst[0].index, int64_t{1});  // P(true) 0.2
    QVERIFY(std::abs(e.worst[1].trueLikelihood - 0.4) < 1e-6);  // sample 2: 1 - 0.6
  }

  void labelOutsideTheClassesNamesTheSample() {
    const ClassReading reading{true, 2, false, ""};
    try {
      evaluateClassifier(reading, {0.1f, 0.9f, 0.5f, 0.5f}, 2, {1, 2}, 5);
      QFAIL("expected an error");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("sample 1: label 2") != std::string::npos, e.what());
    }
  }

  void regressionIsNoClassifier() {
    const ClassReading reading{false, 0, false, "SquaredError is a regression loss"};
    QVERIFY_EXCEPTION_THROWN(evaluateClassifier(reading, {0.1f}, 1, {0}, 5), Error);
  }

  void outputHeads() {
    const std::vector<float> scores{1.0f, 2.0f, 3.0f};
    std::vector<float> out(3);
    applyOutputHead(OutputHead::Softmax, scores, out);
    const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
    for (int i = 0; i < 3; ++i) QVERIFY(std::abs(out[i] - std::exp(i + 1.0) / z) < 1e-7);
    applyOutputHead(OutputHead::Sigmoid, scores, out);
    QVERIFY(std::abs(out[0] - 1.0 / (1.0 + std::exp(-1.0))) < 1e-7);
    applyOutputHead(OutputHead::Identity, scores, out);
    QCOMPARE(out[2], 3.0f);
  }

  void sampleProjectsAreTenClassClassifiers() {
    for (const char* name : {"fashion_mnist_lenet", "fashion_mnist_mlp", "fashion_mnist_resnet"}) {
      const Project p = loadProject(std::string(NETSMITH_SOURCE_DIR) + "/projects/" + name + ".nsproj");
      const Graph g = buildGraph(p.network, OpRegistry::builtin());
      QVERIFY(outputHeadOf(g) == OutputHead::Softmax);
      const ClassReading r = classReadingOf(g);
      QVERIFY2(r.classification && !r.binary && r.classes == 10, name);
      QVERIFY(p.config.saveBest);  // the default
    }
  }

  // The sample MLP's loss swapped: AbsoluteError is a regression loss (no classes, the prediction
  // as it is), KLDivergence reads a distribution over 10 outputs as 10 classes.
  void lossesReadAsRegressionOrClasses() {
    Project p = loadProject(std::string(NETSMITH_SOURCE_DIR) + "/projects/fashion_mnist_mlp.nsproj");
    for (NodeSpec& n : p.network.nodes)
      if (n.type == "SoftmaxCrossEntropy") n.type = "AbsoluteError";
    const Graph regression = buildGraph(p.network, OpRegistry::builtin());
    QVERIFY(outputHeadOf(regression) == OutputHead::Identity);
    const ClassReading r = classReadingOf(regression);
    QVERIFY(!r.classification);
    QVERIFY2(r.why.find("AbsoluteError is a regression loss") != std::string::npos, r.why.c_str());
    for (NodeSpec& n : p.network.nodes)
      if (n.type == "AbsoluteError") n.type = "KLDivergence";
    const Graph kl = buildGraph(p.network, OpRegistry::builtin());
    QVERIFY(outputHeadOf(kl) == OutputHead::Identity);
    const ClassReading c = classReadingOf(kl);
    QVERIFY(c.classification && !c.binary && c.classes == 10);
  }

  // Note [Output head]: the head and the reading come from the loss's schema, not its name. The
  // MLP's loss as CategoricalCrossEntropy (probabilities: identity head, 10 classes), as
  // SigmoidCrossEntropy over 10 outputs (multi-label: no classes), and as a loss type unknown to
  // every name test, declared in a registry of its own with a sigmoid head and per-label logits.
  void lossReadingComesFromTheSchema() {
    Project p = loadProject(std::string(NETSMITH_SOURCE_DIR) + "/projects/fashion_mnist_mlp.nsproj");
    const auto lossTo = [&](const std::string& type) {
      for (NodeSpec& n : p.network.nodes)
        if (n.type == "Custom" || OpRegistry::builtin().get(n.type).isLoss()) n.type = type;
    };
    lossTo("CategoricalCrossEntropy");
    const Graph cce = buildGraph(p.network, OpRegistry::builtin());
    QVERIFY(outputHeadOf(cce) == OutputHead::Identity);
    const ClassReading c = classReadingOf(cce);
    QVERIFY(c.classification && !c.binary && c.classes == 10);
    lossTo("SigmoidCrossEntropy");
    const Graph multiLabel = buildGraph(p.network, OpRegistry::builtin());
    QVERIFY(outputHeadOf(multiLabel) == OutputHead::Sigmoid);
    const ClassReading m = classReadingOf(multiLabel);
    QVERIFY(!m.classification);
    QVERIFY2(m.why.find("multi-label") != std::string::npos, m.why.c_str());

    OpRegistry custom;
    for (const OpSchema* s : OpRegistry::builtin().all()) custom.add(*s);
    OpSchema logits = OpRegistry::builtin().get("SquaredError");
    logits.name = "Custom";
    logits.aliases.clear();
    logits.outputHead = OutputHead::Sigmoid;
    logits.prediction = LossPrediction::LabelLogits;
    custom.add(logits);
    lossTo("Custom");
    const Graph g = buildGraph(p.network, custom);
    QVERIFY(outputHeadOf(g) == OutputHead::Sigmoid);
    QVERIFY(!classReadingOf(g).classification);
    // countBatch reads per-label logits as yes when > 0, per-label probabilities when > 0.5.
    const Tensor perSample(Shape{1, 1});
    Tensor prediction(Shape{1, 3}), labels(Shape{1, 3});
    for (int i = 0; i < 3; ++i) prediction[i] = 0.25f * static_cast<float>(i);  // 0, 0.25, 0.5
    labels[0] = 1;
    labels[1] = 1;
    labels[2] = 0;
    const BatchCounts asLogits = countBatch(custom.get("Custom"), perSample, prediction, labels);
    QCOMPARE(asLogits.counted, int64_t{3});
    QCOMPARE(asLogits.errors, int64_t{2});  // 0 is no, 0.5 is yes
    logits.prediction = LossPrediction::LabelProbabilities;
    const BatchCounts asProbabilities = countBatch(logits, perSample, prediction, labels);
    QCOMPARE(asProbabilities.errors, int64_t{2});  // 0 and 0.25 are no, 0.5 is no
    logits.prediction = LossPrediction::Values;
    QCOMPARE(countBatch(logits, perSample, prediction, labels).counted, int64_t{0});

    // Every loss declares what its prediction means; a loss that does not is refused.
    for (const OpSchema* s : OpRegistry::builtin().all()) QCOMPARE(s->isLoss(), s->prediction != LossPrediction::None);
    OpSchema undeclared = OpRegistry::builtin().get("SquaredError");
    undeclared.name = "Undeclared";
    undeclared.aliases.clear();
    undeclared.prediction = LossPrediction::None;
    QVERIFY_EXCEPTION_THROWN(custom.add(undeclared), Error);
  }

  // usesBatchStatistics: BatchNormalization's statistics span the batch, the per-sample
  // normalizations' do not (the trainer's small-batch warning reads the flag).
  void batchStatisticsFlag() {
    QVERIFY(OpRegistry::builtin().get("BatchNormalization").usesBatchStatistics);
    for (const char* op : {"LayerNormalization", "InstanceNormalization", "GroupNormalization", "Dropout"})
      QVERIFY2(!OpRegistry::builtin().get(op).usesBatchStatistics, op);
  }

  // config.save_best: default true, read and written when false, a non-boolean named by path.
  void saveBestKey() {
    std::ifstream in(std::string(NETSMITH_SOURCE_DIR) + "/projects/fashion_mnist_mlp.nsproj");
    Json j = Json::parse(in);
    j["config"]["save_best"] = false;
    const Project off = parseProject(j, "/tmp/p.nsproj");
    QVERIFY(!off.config.saveBest);
    QCOMPARE(projectToJson(off).at("config").at("save_best").get<bool>(), false);
    j["config"]["save_best"] = "yes";
    try {
      parseProject(j, "/tmp/p.nsproj");
      QFAIL("expected an error");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("config.save_best") != std::string::npos, e.what());
    }
  }
};

QTEST_GUILESS_MAIN(EvaluationTest)
#include "tst_evaluation.moc"
