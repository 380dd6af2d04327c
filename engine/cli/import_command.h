// netsmith-cli import MODEL.onnx --output DIR/NAME.nsproj (import_command.cpp).
#pragma once

#include "engine/cli/args.h"

namespace netsmith::cli {

extern const CommandSpec kImport;
int runImport(const ParsedArgs& args);

}  // namespace netsmith::cli
