// Numbers typed by people (command-line options, settings): the value std::stod reads at the
// start of a text and how many characters it took, without its exceptions ("abc", an overflow).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace netsmith {

struct LeadingNumber {
  double value = 0;
  size_t used = 0;  // 0: no number at the start
  // The whole text is one finite number (x - x is 0 for finite x, NaN for inf and NaN).
  bool whole(const std::string& text) const { return used > 0 && used == text.size() && value - value == 0; }
};

inline LeadingNumber leadingNumber(const std::string& text) {
  LeadingNumber n;
  try {
    n.value = std::stod(text, &n.used);
  } catch (const std::exception&) {
    n = {};
  }
  return n;
}

}  // namespace netsmith
