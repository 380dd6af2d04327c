// netsmith-cli diff RUN_A RUN_B: what changed between two runs or projects (diff_command.cpp).
#pragma once

#include "engine/cli/args.h"

namespace netsmith::cli {

extern const CommandSpec kDiff;
int runDiff(const ParsedArgs& args);

}  // namespace netsmith::cli
