// StepTeam (engine/train/step_team.h, Note [Worker team loop]): the leader's step() returns only
// once every worker's share of that step has run, and the shares' writes are visible to it
// (ThreadSanitizer checks the ordering); a share that throws leaves the team — the leader's next
// return is TeammateFailed and nobody waits forever — and a leader that throws, or finishes,
// releases the others.
// netsmith-test-labels: tsan
#include <QtTest>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "engine/train/step_team.h"

using namespace netsmith;

namespace {

constexpr int kWorkers = 4;

// Runs `leader` on this thread as worker 0 and serve() on kWorkers - 1 threads; returns how many
// teammates' serve() threw.
template <typename Leader>
int runTeam(StepTeam& team, Leader leader) {
  std::vector<std::thread> threads;
  std::vector<int> threw(kWorkers, 0);
  for (int w = 1; w < kWorkers; ++w)
    threads.emplace_back([&, w] {
      try {
        team.serve(w);
      } catch (const std::runtime_error&) {
        threw[w] = 1;
      }
    });
  leader();
  for (auto& t : threads) t.join();
  int n = 0;
  for (int t : threw) n += t;
  return n;
}

}  // namespace

class StepTeamTest : public QObject {
  Q_OBJECT

 private slots:
  void everyShareRunsBeforeTheStepReturns() {
    StepTeam team(kWorkers, {});
    std::vector<int> done(kWorkers, 0);  // written by worker w in its share, read by the leader
    int steps = 0;
    const int threw = runTeam(team, [&] {
      for (int s = 1; s <= 500; ++s) {
        team.step([&](int w) { done[static_cast<size_t>(w)] = s; });
        for (int w = 0; w < kWorkers; ++w) QCOMPARE(done[static_cast<size_t>(w)], s);
        ++steps;
      }
      team.finish();
    });
    QCOMPARE(threw, 0);
    QCOMPARE(steps, 500);
  }

  void aTeammateThatThrowsLeavesTheTeam() {
    StepTeam team(kWorkers, {});
    int completed = 0;
    bool stopped = false;
    const int threw = runTeam(team, [&] {
      try {
        for (int s = 0; s < 100; ++s) {
          team.step([&](int w) {
            if (w == 2 && s == 37) throw std::runtime_error("worker 2 failed");
          });
          ++completed;
        }
      } catch (const StepTeam::TeammateFailed&) {
        stopped = true;
      }
      team.finish();
    });
    QVERIFY(stopped);
    QCOMPARE(completed, 37);
    QCOMPARE(threw, 1);
  }

  // The leader's failure is reported first (the pool cancels the others), and its step() throws
  // only once the others' shares of that step have ended: they may use what the step refers to.
  void aLeaderThatThrowsWaitsForTheOthersThenReleasesThem() {
    std::atomic<bool> cancelled{false};
    StepTeam team(kWorkers, [&](const std::exception_ptr&) { cancelled = true; });
    std::vector<int> ended(kWorkers, 0);
    bool leaderThrew = false, othersEnded = false;
    const int threw = runTeam(team, [&] {
      try {
        for (int s = 0; s < 10; ++s)
          team.step([&](int w) {
            if (s != 5) return;
            if (w == 0) throw std::logic_error("the leader's share failed");
            while (!cancelled) std::this_thread::yield();  // a share that waits until cancelled
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            ended[static_cast<size_t>(w)] = 1;
          });
      } catch (const std::logic_error&) {
        leaderThrew = true;
        othersEnded = ended[1] && ended[2] && ended[3];
      }
      team.finish();  // after step() threw: nothing more to release
    });
    QVERIFY(leaderThrew);
    QVERIFY(othersEnded);
    QCOMPARE(threw, 0);
  }

  void finishingBeforeAnyStep() {
    StepTeam team(kWorkers, {});
    QCOMPARE(runTeam(team, [&] { team.finish(); }), 0);
  }
};

QTEST_GUILESS_MAIN(StepTeamTest)
#include "tst_step_team.moc"
