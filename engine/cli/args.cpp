#include "engine/cli/args.h"

#include <algorithm>

#include "engine/core/error.h"

namespace netsmith::cli {

std::optional<long long> ParsedArgs::positiveInteger(const std::string& option) const {
  if (!has(option)) return std::nullopt;
  const std::string v = value(option);
  size_t used = 0;
  long long n = 0;
  try {
    n = std::stoll(v, &used);
  } catch (...) {
    used = 0;
  }
  if (used != v.size() || v.empty() || n < 1) throw UsageError{format("{}: expected a positive integer, got '{}'", option, v)};
  return n;
}

std::optional<long long> ParsedArgs::nonNegativeInteger(const std::string& option) const {
  if (!has(option)) return std::nullopt;
  const std::string v = value(option);
  size_t used = 0;
  long long n = -1;
  try {
    n = std::stoll(v, &used);
  } catch (...) {
    used = 0;
  }
  if (used != v.size() || v.empty() || n < 0) throw UsageError{format("{}: expected an integer >= 0, got '{}'", option, v)};
  return n;
}

ParsedArgs parseArgs(const CommandSpec& spec, const std::vector<std::string>& args) {
  ParsedArgs out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      out.help = true;
      continue;
    }
    if (a.size() > 1 && a[0] == '-' && a != "-") {
      std::string name = a, inlineValue;
      bool hasInline = false;
      if (const auto eq = a.find('='); eq != std::string::npos) {
        name = a.substr(0, eq);
        inlineValue = a.substr(eq + 1);
        hasInline = true;
      }
      const auto it = std::find_if(spec.options.begin(), spec.options.end(), [&](const OptionSpec& o) { return o.name == name; });
      if (it == spec.options.end()) {
        std::string known;
        for (const auto& o : spec.options) known += " " + o.name;
        throw UsageError{format("unknown option '{}' for '{}' (options:{} --help)", name, spec.name, known)};
      }
      std::string value;
      if (it->valueName.empty()) {
        if (hasInline) throw UsageError{format("{} takes no value, got '{}'", name, inlineValue)};
      } else if (hasInline) {
        value = inlineValue;
      } else {
        if (i + 1 >= args.size()) throw UsageError{format("{} needs a value ({})", name, it->valueName)};
        value = args[++i];
      }
      if (out.has(name) && !it->repeatable) throw UsageError{format("{} is given twice", name)};
      out.values[name] = out.has(name) ? out.values[name] + "\n" + value : value;
      continue;
    }
    out.positional.push_back(a);
  }
  if (out.help) return out;
  const int n = static_cast<int>(out.positional.size());
  if (n < spec.minPositional)
    throw UsageError{format("'{}' needs {} (usage: netsmith-cli {} {})", spec.name, spec.usage.substr(0, spec.usage.find(' ')),
                            spec.name, spec.usage)};
  if (n > spec.maxPositional)
    throw UsageError{format("'{}' got an unexpected argument '{}' (usage: netsmith-cli {} {})", spec.name,
                            out.positional[spec.maxPositional], spec.name, spec.usage)};
  return out;
}

std::string helpText(const CommandSpec& spec) {
  std::string s = format("Usage: netsmith-cli {} {}\n\n{}\n", spec.name, spec.usage, spec.summary);
  if (!spec.options.empty()) {
    s += "\nOptions:\n";
    for (const auto& o : spec.options) {
      std::string left = "  " + o.name + (o.valueName.empty() ? "" : " " + o.valueName);
      if (left.size() < 28) left += std::string(28 - left.size(), ' ');
      else left += "\n" + std::string(28, ' ');
      s += left + o.help + "\n";
    }
    s += "  --help                    show this help\n";
  }
  if (!spec.details.empty()) s += "\n" + spec.details + "\n";
  return s;
}

}  // namespace netsmith::cli
