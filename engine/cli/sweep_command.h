// netsmith-cli sweep: several trainings of one project at once, one per device, from a queue
// (MATLAB's parfor / Experiment Manager, DIGITS's one job per GPU).
#pragma once

#include "engine/cli/args.h"

namespace netsmith::cli {

extern const CommandSpec kSweep;
int runSweep(const ParsedArgs& args);

}  // namespace netsmith::cli
