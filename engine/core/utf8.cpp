// isUtf8, utf8ReadingStrayBytesAsLatin1, utf8ShowingStrayBytes.
#include "engine/core/utf8.h"

#include <cstdio>

namespace netsmith {

namespace {

// The length of the well-formed UTF-8 sequence at s[i], or 0 when there is none (RFC 3629).
size_t sequenceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = byte(i);
  if (b < 0x80) return 1;
  size_t n = 0;
  unsigned char low = 0x80, high = 0xBF;  // the second byte's range
  if (b >= 0xC2 && b <= 0xDF) n = 2;
  else if (b == 0xE0) n = 3, low = 0xA0;
  else if (b == 0xED) n = 3, high = 0x9F;  // no surrogates
  else if (b >= 0xE1 && b <= 0xEF) n = 3;
  else if (b == 0xF0) n = 4, low = 0x90;
  else if (b >= 0xF1 && b <= 0xF3) n = 4;
  else if (b == 0xF4) n = 4, high = 0x8F;  // up to U+10FFFF
  else return 0;
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return n;
}

}  // namespace

bool isUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = sequenceLength(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

namespace {

// `s` with its well-formed sequences copied and each stray byte given to onStray(byte, out).
template <class OnStray>
std::string mapStrayBytes(std::string_view s, OnStray onStray) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t n = sequenceLength(s, i);
    if (n > 0) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      onStray(static_cast<unsigned char>(s[i++]), out);
    }
  }
  return out;
}

}  // namespace

std::string utf8ReadingStrayBytesAsLatin1(std::string_view s) {
  return mapStrayBytes(s, [](unsigned char b, std::string& out) {
    out += static_cast<char>(0xC0 | (b >> 6));
    out += static_cast<char>(0x80 | (b & 0x3F));
  });
}

std::string utf8ShowingStrayBytes(std::string_view s) {
  return mapStrayBytes(s, [](unsigned char b, std::string& out) {
    char hex[5];
    std::snprintf(hex, sizeof hex, "\\x%02X", b);
    out += hex;
  });
}

}  // namespace netsmith
