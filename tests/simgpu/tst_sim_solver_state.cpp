// A GPU replica's optimizer state as the trainer hands it out (Replica::optimizer, Note [Fused
// solver step]): a resume restores the state on the host, and until the next step pushes it to
// the device, the host copy is the newer one. Asking for the state again in between (the
// checkpoint at an epoch's end, when a run stopped at the epoch's last iteration resumes straight
// into that end) must give the restored state back, not the device's empty one — which, on one
// replica only, made the replicas differ after the next epoch on 2 simulated GPUs.
#include <QtTest>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/backend/cuda/cuda_device.h"
#include "engine/comm/communicator.h"
#include "engine/op_interface/op_registry.h"
#include "engine/optim/optimizer.h"
#include "engine/project/graph.h"
#include "engine/project/project_io.h"
#include "engine/train/parallel_plan.h"
#include "engine/train/replica.h"

using namespace netsmith;

class TestSimSolverState : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY2(qgetenv("NETSMITH_SIMULATED_GPUS") == "4", "run through CTest, which sets NETSMITH_SIMULATED_GPUS=4");
  }

  void restoredStateSurvivesASecondLookBeforeTheStep() {
    Project project = loadProject(std::string(NETSMITH_SOURCE_DIR) + "/projects/fashion_mnist_mlp.nsproj");
    QCOMPARE(project.optimizer.solver, std::string("Momentum"));  // a solver with state
    project.parallel.devices = {"cuda:0"};
    const Graph graph = buildGraph(project.network, OpRegistry::builtin());
    const TrainingPlan plan = planTraining(project, 1024, 1, 1, false);
    InProcessGroup group(1, project.parallel.devices, 30.0);
    cuda::CudaDeviceContext device("cuda:0");
    Replica replica(graph, plan, plan.devices[0], device, group.communicator(0), 7);

    // The checkpoint's state: every parameter's momentum buffer, each value its own.
    std::vector<std::pair<std::string, Tensor>> saved;
    Optimizer& optimizer = replica.optimizer();
    for (const ParameterRef& p : replica.network().parameters()) {
      if (!p.grad) continue;
      Tensor t(p.value->shape());
      for (int64_t i = 0; i < t.size(); ++i) t[i] = 0.001f * static_cast<float>(i % 97) + 0.5f;
      for (const std::string& buffer : optimizer.bufferNames()) saved.emplace_back(p.name + "/" + buffer, t.clone());
    }
    QVERIFY(!saved.empty());
    Optimizer::StateList list;
    for (const auto& [name, t] : saved) list.emplace_back(name, &t);
    optimizer.restoreState(list, 20);

    // The second look, before any step (a checkpoint of replica 0).
    const Optimizer& again = replica.optimizer();
    QCOMPARE(again.steps(), int64_t{20});
    const Optimizer::StateList state = again.stateTensors();
    QCOMPARE(state.size(), saved.size());
    for (const auto& [name, tensor] : state) {
      const auto it = std::find_if(saved.begin(), saved.end(), [&](const auto& s) { return s.first == name; });
      QVERIFY2(it != saved.end(), name.c_str());
      QCOMPARE(tensor->size(), it->second.size());
      for (int64_t i = 0; i < tensor->size(); ++i)
        QVERIFY2((*tensor)[i] == it->second[i], qPrintable(QString("%1[%2]").arg(QString::fromStdString(name)).arg(i)));
    }
  }
};

QTEST_GUILESS_MAIN(TestSimSolverState)
#include "tst_sim_solver_state.moc"
