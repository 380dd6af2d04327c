#include "engine/core/precision.h"

#include <cstdlib>
#include <cstring>

#include "engine/core/error.h"

namespace netsmith {

Precision parsePrecision(const std::string& name) {
  if (name == "float") return Precision::Float;
  if (name == "half") return Precision::Half;
  if (name == "bfloat16") return Precision::BFloat16;
  NS_THROW("config.precision: \"{}\" is not a precision; choose float, half or bfloat16", name);
}

Storage gpuActivationStorage(Precision p) {
  const char* keep = std::getenv("NETSMITH_ACTIVATIONS");
  if (p == Precision::Float || (keep && std::strcmp(keep, "float32") == 0)) return Storage::Float32;
  return p == Precision::Half ? Storage::Float16 : Storage::BFloat16;
}

bool gpuChannelsLast(Storage storage) {
  const char* v = std::getenv("NETSMITH_CHANNELS_LAST");
  return storage != Storage::Float32 && !(v && std::strcmp(v, "off") == 0);
}

const char* precisionName(Precision p) {
  switch (p) {
    case Precision::Float: return "float";
    case Precision::Half: return "half";
    case Precision::BFloat16: return "bfloat16";
  }
  return "?";
}

}  // namespace netsmith
