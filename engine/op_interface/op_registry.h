// OpRegistry: every layer type by name (Note [Op folders]).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/op_interface/op_schema.h"

namespace netsmith {

class OpRegistry {
 public:
  void add(OpSchema schema);  // throws on a duplicate name
  const OpSchema* find(std::string_view name) const;
  OpSchema* findMutable(std::string_view name);  // for backends that add kernels after start-up
  // Throws Error "unknown layer type 'Conv'; did you mean 'Convolution'?" when absent.
  const OpSchema& get(std::string_view name) const;
  // All schemas, sorted by category then name.
  std::vector<const OpSchema*> all() const;

  // The registry with every built-in op and the kernels of every backend compiled in.
  // Built once, on first use, thread-safe; read-only afterwards.
  static const OpRegistry& builtin();

 private:
  std::vector<std::unique_ptr<OpSchema>> m_schemas;
};

// Registers the op of every folder under engine/ops/ (generated; Note [Op folders]).
void registerBuiltinOps(OpRegistry& registry);

}  // namespace netsmith
