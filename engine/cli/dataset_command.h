// netsmith-cli dataset create: a training dataset from a folder of images (dataset_command.cpp).
#pragma once

#include "engine/cli/args.h"

namespace netsmith::cli {

extern const CommandSpec kDataset;
int runDataset(const ParsedArgs& args);

}  // namespace netsmith::cli
