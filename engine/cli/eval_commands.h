// The commands that use a trained run: evaluate, infer, export (evaluate_command.cpp,
// infer_command.cpp, export_command.cpp). main.cpp lists them with the others.
#pragma once

#include <string>

#include "engine/cli/args.h"

namespace netsmith::cli {

extern const CommandSpec kEvaluate;
extern const CommandSpec kInfer;
extern const CommandSpec kExport;

int runEvaluate(const ParsedArgs& args);
int runInfer(const ParsedArgs& args);
int runExport(const ParsedArgs& args);

// Shared by the three: --devices LIST as a device list (UsageError on a bad list), --parameters.
std::vector<std::string> devicesOption(const ParsedArgs& args);
std::string parametersOption(const ParsedArgs& args);
// A number as "%.9g" prints it: enough digits to tell floats apart, none to spare.
std::string nineDigits(double v);

}  // namespace netsmith::cli
