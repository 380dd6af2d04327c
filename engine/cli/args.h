// Command-line options of one netsmith-cli command: declared once, parsed strictly, and the
// same declaration prints the command's --help.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace netsmith::cli {

struct OptionSpec {
  std::string name;     // "--max-epoch"
  std::string valueName;  // "N"; empty for a flag
  std::string help;
  bool repeatable = false;  // may be given several times: the values are joined with '\n'
};

struct CommandSpec {
  std::string name;        // "train"
  std::string usage;       // "PROJECT.nsproj [options]"
  std::string summary;     // one line
  std::string details;     // paragraphs after the options
  std::vector<OptionSpec> options;
  int minPositional = 0;
  int maxPositional = 0;
};

struct ParsedArgs {
  std::vector<std::string> positional;
  std::map<std::string, std::string> values;  // option -> value ("" for flags)
  bool help = false;
  bool has(const std::string& option) const { return values.count(option) > 0; }
  std::string value(const std::string& option) const {
    const auto it = values.find(option);
    return it == values.end() ? std::string() : it->second;
  }
  // Positive integer option, or nullopt when absent; throws UsageError naming the option.
  std::optional<long long> positiveInteger(const std::string& option) const;
  // Same, 0 allowed.
  std::optional<long long> nonNegativeInteger(const std::string& option) const;
};

// A mistake on the command line: printed with a pointer to --help, exit code 2.
struct UsageError {
  std::string message;
};

ParsedArgs parseArgs(const CommandSpec& spec, const std::vector<std::string>& args);
std::string helpText(const CommandSpec& spec);

}  // namespace netsmith::cli
