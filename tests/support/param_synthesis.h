// A value for an op parameter that has no default, for checks that build every registered op
// from its schema alone (the CPU gradient check and the GPU checks): small, inside the range.
// Qt-free, so netsmith-gpu-check can use it on a machine without Qt.
#pragma once

#include <algorithm>

#include "engine/op_interface/op_schema.h"

namespace netsmith::test {

inline Json synthesizeParam(const ParamSpec& spec) {
  const auto clampToRange = [&](double v) {
    if (spec.min) v = std::max(v, *spec.min);
    if (spec.max) v = std::min(v, *spec.max);
    return v;
  };
  switch (spec.type) {
    case ParamType::Int: return static_cast<int64_t>(clampToRange(2));
    case ParamType::Float: return clampToRange(0.5);
    case ParamType::Bool: return false;
    case ParamType::String: return spec.choices.empty() ? std::string() : spec.choices.front();
    case ParamType::Ints: {
      Json values = Json::array();
      for (int i = 0; i < std::max(spec.length, 1); ++i) values.push_back(static_cast<int64_t>(clampToRange(2)));
      return values;
    }
  }
  return nullptr;
}

}  // namespace netsmith::test
