// Note [Regression loss on class labels]: the plan (`netsmith-cli train --dry-run --json`, what the
// console's Training page shows) warns when a regression loss meets class labels: the MLP sample
// with its SoftmaxCrossEntropy replaced by SquaredError, on Fashion-MNIST's IDX labels, is told
// what was seen (the loss, the labels file, 10 classes, 'fc3' with 10 outputs) and that
// SoftmaxCrossEntropy trains a classifier; the sample as it is is not. In process, the rule: class
// names are quoted, and vector labels, a single output or a classification loss say nothing.
#include <QTemporaryDir>
#include <QtTest>

#include "engine/data/label_check.h"
#include "support/cli_runner.h"
#include "support/train_runner.h"

using namespace netsmith;
using namespace netsmith::test;

namespace {

std::string planWarnings(const QTemporaryDir& dir, const std::string& name, const Json& project) {
  const CliRun plan = runCli({"train", QString::fromStdString(saveProject(dir, name, project)), "--dry-run", "--json"});
  if (plan.exitCode != 0) qWarning("%s", plan.stderrText.constData());
  return plan.exitCode == 0 ? plan.last("plan")["warnings"].dump() : std::string("(the plan failed)");
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

class PlanLossWarningTest : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

 private slots:
  void squaredErrorOnFashionMnistLabelsIsWarned() {
    QVERIFY(m_dir.isValid());
    Json project = sampleProject("fashion_mnist_mlp");
    const std::string untouched = planWarnings(m_dir, "classifier", project);
    QVERIFY2(!contains(untouched, "regression loss"), untouched.c_str());

    for (Json& n : project["network"]["nodes"])
      if (n["id"] == "loss") n["type"] = "SquaredError";
    const std::string warnings = planWarnings(m_dir, "regression", project);
    QVERIFY2(contains(warnings, "SquaredError 'loss' is a regression loss, but the labels of ") &&
                 contains(warnings, "train-labels-idx1-ubyte.gz are class indices (10 classes: 'T-shirt/top', 'Trouser', "
                                    "'Pullover', ...) and 'fc3' outputs 10 values per sample") &&
                 contains(warnings, "end the network in SoftmaxCrossEntropy"),
             warnings.c_str());
  }

  void theRule() {
    Dataset data;
    data.labelSource = "/data/pets.csv";
    data.labelWidth = 1;
    data.numClasses = 4;
    data.classNames = {"cat", "dog", "fox", "owl"};
    LabelRule rule{"HuberLoss 'loss'", "'fc'", 4, false, true};
    const std::string said = regressionLossOnClassLabels(data, rule);
    QVERIFY2(contains(said, "HuberLoss 'loss' is a regression loss, but the labels of /data/pets.csv are class indices (4 "
                            "classes: 'cat', 'dog', 'fox', ...) and 'fc' outputs 4 values per sample"),
             said.c_str());
    LabelRule classification = rule;
    classification.regression = false;
    QCOMPARE(regressionLossOnClassLabels(data, classification), std::string());
    LabelRule oneOutput = rule;
    oneOutput.predictionSize = 1;
    QCOMPARE(regressionLossOnClassLabels(data, oneOutput), std::string());
    Dataset vectors = data;  // several y columns: targets, not classes
    vectors.labelWidth = 4;
    vectors.numClasses = 0;
    QCOMPARE(regressionLossOnClassLabels(vectors, rule), std::string());
  }
};

QTEST_GUILESS_MAIN(PlanLossWarningTest)
#include "tst_plan_loss_warning.moc"
