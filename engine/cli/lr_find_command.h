// netsmith-cli lr-find: the learning-rate range test (Note [Learning-rate range test]).
#pragma once

#include "engine/cli/args.h"

namespace netsmith::cli {

extern const CommandSpec kLrFind;
int runLrFind(const ParsedArgs& args);

}  // namespace netsmith::cli
