// Note [Engine words]: the engine's terminal wording in the console's words.
#include <QtTest>

#include "gui/run/engine_text.h"

using namespace netsmith;
using namespace netsmith::gui;

class TestEngineText : public QObject {
  Q_OBJECT
 private slots:
  void programNameGoes() {
    QCOMPARE(withoutEngineName("netsmith-cli: error: the dataset is empty"), QString("the dataset is empty"));
    QCOMPARE(withoutEngineName("netsmith-cli train: /a.csv: row 3\nnetsmith-cli: error: stop"), QString("/a.csv: row 3\nstop"));
    QCOMPARE(withoutEngineName("a netsmith-cli: error: inside"), QString("a netsmith-cli: error: inside"));
  }

  void blocksByNameAndTheProjectByName() {
    NetworkSpec network;
    network.nodes.resize(16);
    network.nodes[2].id = "conv1";
    network.nodes[15].id = "fc";
    const QString text = "netsmith-cli: error: /tmp/x/plan.nsproj: network.nodes[15].params.out_features: expected an "
                         "integer >= 1; network.nodes[2] has no input; network.nodes[99] is out of range";
    QCOMPARE(engineTextForPeople(text, network, "/tmp/x/plan.nsproj"),
             QString("the project: block 'fc', out_features: expected an integer >= 1; block 'conv1' has no input; "
                     "network.nodes[99] is out of range"));
  }
};

QTEST_MAIN(TestEngineText)
#include "tst_engine_text.moc"
