// Error type and checks of the engine: netsmith::Error, format(), NS_CHECK, NS_THROW.
#pragma once

#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace netsmith {

// Every failure the engine reports to a user. The message says what was wrong and, where it can,
// what to do about it; it never ends with a newline.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

namespace detail {
inline void formatInto(std::ostringstream& out, std::string_view fmt) { out << fmt; }

template <typename T, typename... Rest>
void formatInto(std::ostringstream& out, std::string_view fmt, const T& value, const Rest&... rest) {
  const auto pos = fmt.find("{}");
  if (pos == std::string_view::npos) {
    out << fmt;
    return;
  }
  out << fmt.substr(0, pos) << value;
  formatInto(out, fmt.substr(pos + 2), rest...);
}
}  // namespace detail

// format("expected {} got {}", a, b): each "{}" is replaced by the next argument via operator<<.
// (GCC 12 has no <format>.)
template <typename... Args>
std::string format(std::string_view fmt, const Args&... args) {
  std::ostringstream out;
  out << std::setprecision(9);
  detail::formatInto(out, fmt, args...);
  return out.str();
}

}  // namespace netsmith

#define NS_THROW(...) throw ::netsmith::Error(::netsmith::format(__VA_ARGS__))
#define NS_CHECK(cond, ...)          \
  do {                               \
    if (!(cond)) NS_THROW(__VA_ARGS__); \
  } while (false)
