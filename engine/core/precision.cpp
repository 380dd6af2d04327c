#include "engine/core/precision.h"

#include "engine/core/error.h"

namespace netsmith {

Precision parsePrecision(const std::string& name) {
  if (name == "float") return Precision::Float;
  if (name == "half") return Precision::Half;
  if (name == "bfloat16") return Precision::BFloat16;
  NS_THROW("config.precision: \"{}\" is not a precision; choose float, half or bfloat16", name);
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
