// Note [Studies]
// `netsmith-cli sweep` runs a study: trials of one project with other settings, each trial a
// whole training with its own run folder, on its own device or group of devices
// (--devices-per-trial), as many at once as there are groups. The values come from a sampler
// (samplers.h: every combination of a grid, random draws, or TPE); a trial whose validation
// curve is already worse than its peers' is stopped early (trial_stopping.h) and its devices take
// the next trial. A study ends when its trial budget is used, its time budget has run out (the
// running trials stop, keeping their checkpoints), or it is stopped (Ctrl-C, or the console's
// Stop).
// Everything the study decides is logged before it acts (study_folder.h): a trial's values
// before it trains, an epoch's error before the rule judges it. So after kill -9 or Ctrl-C,
// `sweep --resume FOLDER` replays the log — the same trials with the same values, the rungs as
// they were — continues each unfinished trial from its newest checkpoint (a training resume
// of its run folder), and suggests new trials from the same outcomes and seed.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "engine/study/study_folder.h"
#include "engine/train/run_control.h"

namespace netsmith::study {

struct StudyEvents {
  // Called from the trials' threads, one at a time.
  std::function<void(const TrialRecord&)> trialStarted;
  std::function<void(const TrialRecord&, const EpochRecord&)> trialEpoch;
  std::function<void(const TrialRecord&)> trialEnded;
};

struct StudyOutcome {
  bool anyFailed = false;
  bool interrupted = false;   // stopped before its budgets were used: `sweep --resume` continues it
  bool timeBudgetSpent = false;
};

// The number of trials the study holds when it ends: its trial budget, a grid's size at most,
// plus the queued projects.
int64_t plannedTrials(const StudyDefinition& definition);

// Writes the trial's project into the study folder and checks it loads; throws Error naming the
// trial's settings when it does not. `index`: 0-based.
TrialRecord prepareTrial(StudyFolder& folder, int64_t index, const TrialValues& values);

// Checks that the project loads with each range's low and high end (the other settings as in
// `values`); throws Error naming the range and the end the project refuses.
void checkRangeEnds(StudyFolder& folder, const TrialValues& values);

class StudyRunner {
 public:
  StudyRunner(StudyFolder& folder, StudyEvents events) : m_folder(folder), m_events(std::move(events)) {}
  // Trains the study's trials until its budgets are used or `stop` is requested (the trials
  // themselves stop on SIGINT/SIGTERM through RunControl's signal flag).
  StudyOutcome run(const RunControl& stop);

 private:
  StudyFolder& m_folder;
  StudyEvents m_events;
};

}  // namespace netsmith::study
