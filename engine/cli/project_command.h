// netsmith-cli project set-classes: edits of a project file from the command line
// (project_command.cpp).
#pragma once

#include "engine/cli/args.h"

namespace netsmith::cli {

extern const CommandSpec kProject;
int runProject(const ParsedArgs& args);

}  // namespace netsmith::cli
