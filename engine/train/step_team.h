// StepTeam: the workers of one process stepping together without going back to the pool between
// steps (Note [Worker team loop], trainer.cpp). Worker 0 leads: it runs the training loop and,
// for each step, hands the step to the others and runs its own share; the others serve steps
// until the leader finishes.
#pragma once

#include <atomic>
#include <barrier>
#include <exception>
#include <functional>
#include <utility>

namespace netsmith {

class StepTeam {
 public:
  using Task = std::function<void(int worker)>;
  // Thrown on the leader by step() when a teammate's task threw: the loop ends there, and the
  // pool reports the teammate's failure.
  struct TeammateFailed {};

  // onLeaderFailure: called on the leader with its share's exception before it waits for the
  // others' shares to end; it must make them end (the pool's failure cancels and aborts them).
  StepTeam(int workers, std::function<void(const std::exception_ptr&)> onLeaderFailure)
      : m_start(workers), m_end(workers), m_onLeaderFailure(std::move(onLeaderFailure)) {}

  // On the leader (worker 0): task(w) on every worker, its own share inline; returns when every
  // worker's share has returned. Throws what the leader's share throws — once the others' shares
  // have ended, since they may use what the task refers to — or TeammateFailed.
  void step(const Task& task) {
    m_task = &task;
    m_start.arrive_and_wait();  // the others start
    try {
      task(0);
    } catch (...) {
      if (m_onLeaderFailure) m_onLeaderFailure(std::current_exception());
      m_end.arrive_and_wait();
      leave();
      throw;
    }
    m_end.arrive_and_wait();
    if (m_teammateFailed.load()) {
      leave();
      throw TeammateFailed{};
    }
  }

  // On the leader, once: the others stop serving. Safe after step() threw.
  void finish() {
    if (!m_left) leave();
  }

  // On worker w > 0: runs the steps the leader hands out until it finishes; rethrows what the
  // worker's share throws (after leaving the team, so that nobody waits for it).
  void serve(int w) {
    for (;;) {
      m_start.arrive_and_wait();
      if (m_finished.load()) return;
      try {
        (*m_task)(w);
      } catch (...) {
        m_teammateFailed = true;
        (void)m_end.arrive_and_drop();
        (void)m_start.arrive_and_drop();
        throw;
      }
      m_end.arrive_and_wait();
    }
  }

 private:
  // The leader leaves: the others, waiting to start a step, see m_finished and return. Once it
  // has arrived at the start of a phase it never waits for, the phase ends with the others.
  void leave() {
    m_finished = true;
    m_left = true;
    (void)m_end.arrive_and_drop();
    (void)m_start.arrive_and_drop();
  }

  std::barrier<> m_start;
  std::barrier<> m_end;
  std::function<void(const std::exception_ptr&)> m_onLeaderFailure;
  const Task* m_task = nullptr;  // written by the leader before it arrives at m_start
  std::atomic<bool> m_finished{false};
  std::atomic<bool> m_teammateFailed{false};
  bool m_left = false;  // the leader's own
};

}  // namespace netsmith
