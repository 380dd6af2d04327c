// The examples of a registered op (Note [Op examples]) as the tests that walk the registry use
// them: the main example (the op's unnamed one, or one derived from its default parameters on the
// first candidate shape that its shape inference accepts) followed by its named examples.
// Qt-free, so netsmith-gpu-check can use it on a machine without Qt.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/op_interface/op_schema.h"
#include "support/param_synthesis.h"

namespace netsmith::test {

// Per-sample shapes tried in order for the derived example; (C,H,W) first so image ops see an image.
inline const std::vector<Shape>& defaultCandidateShapes() {
  static const std::vector<Shape> shapes = {{3, 5, 5}, {6}, {2, 6, 6}};
  return shapes;
}

inline int exampleInputCount(const OpSchema& schema) {
  return static_cast<int>(schema.inputs.size()) + (schema.variadic ? 2 : 0);
}

// The example derived from the defaults (parameters without one synthesized), or nullopt with
// the reasons each candidate failed in `why`.
inline std::optional<OpExample> deriveExample(const OpSchema& schema, const std::vector<Shape>& candidates,
                                              std::string& why) {
  Json given = Json::object();
  for (const auto& spec : schema.params)
    if (spec.defaultValue.is_null()) given[spec.name] = synthesizeParam(spec);
  Json params;
  try {
    params = validateParams(schema, given, "params");
  } catch (const Error& e) {
    why = format("synthesized parameters {} are invalid: {}", given.dump(), e.what());
    return std::nullopt;
  }
  const OpParams p(params);
  for (const Shape& shape : candidates) {
    std::vector<Shape> inputs(static_cast<size_t>(exampleInputCount(schema)), shape);
    try {
      schema.inferShape(inputs, p);
      if (schema.parameterBlobs) schema.parameterBlobs(inputs, p);
      return OpExample{"", inputs, given, 1.0f};
    } catch (const Error& e) {
      why += format("({}): {}; ", shapeToString(shape), e.what());
    }
  }
  return std::nullopt;
}

// The main example, if the op declares one or one can be derived.
inline std::optional<OpExample> mainExample(const OpSchema& schema, std::string& why,
                                            const std::vector<Shape>& candidates = defaultCandidateShapes()) {
  for (const OpExample& e : schema.examples)
    if (e.name.empty()) return e;
  return deriveExample(schema, candidates, why);
}

// The example named `name` ("" is the main one); nullopt when there is none (`why` says why).
inline std::optional<OpExample> findExample(const OpSchema& schema, const std::string& name, std::string& why,
                                            const std::vector<Shape>& candidates = defaultCandidateShapes()) {
  if (name.empty()) return mainExample(schema, why, candidates);
  for (const OpExample& e : schema.examples)
    if (e.name == name) return e;
  why = format("{} declares no example named '{}'", schema.name, name);
  return std::nullopt;
}

// The names of an op's examples in order: "" (the main one) first, then the named ones.
inline std::vector<std::string> exampleNames(const OpSchema& schema) {
  std::vector<std::string> names{""};
  for (const OpExample& e : schema.examples)
    if (!e.name.empty()) names.push_back(e.name);
  return names;
}

}  // namespace netsmith::test
