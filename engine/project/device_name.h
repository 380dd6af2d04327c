// Device names as users write them: "cpu:0", "cuda:1", and under mpirun optionally with the
// process rank in front, "rank1/cpu:0" (Note [Devices of an mpirun job]).
#pragma once

#include <algorithm>
#include <string>

namespace netsmith {

inline bool isDecimalIndex(const std::string& s) {
  if (s.empty() || s.size() > 4 || (s.size() > 1 && s[0] == '0')) return false;
  return std::all_of(s.begin(), s.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
}

// "rank1/cpu:0" -> "cpu:0"; a name without a rank is returned as it is.
inline std::string localDeviceId(const std::string& id) {
  const auto slash = id.find('/');
  return slash == std::string::npos ? id : id.substr(slash + 1);
}

inline bool isDeviceName(const std::string& s) {
  const auto slash = s.find('/');
  if (slash != std::string::npos && (s.rfind("rank", 0) != 0 || !isDecimalIndex(s.substr(4, slash - 4)))) return false;
  const std::string local = localDeviceId(s);
  const auto colon = local.find(':');
  if (colon == std::string::npos) return false;
  const std::string kind = local.substr(0, colon);
  return (kind == "cpu" || kind == "cuda") && isDecimalIndex(local.substr(colon + 1));
}

}  // namespace netsmith
