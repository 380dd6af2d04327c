// The state of one nnabla import (Note [NNabla import]) shared by the converters of
// nnabla_convert_*.cpp, inside engine/import/nnabla only.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/import/layer_ids.h"
#include "engine/import/nnabla/nnabla_importer.h"

namespace netsmith::nnabla_import {

struct NnMade {
  NodeSpec spec;
  std::vector<std::string> inputs;  // producer node ids, in port order
  Shape shape;                      // per-sample output
  std::vector<std::pair<std::string, std::string>> blobSources;  // Netsmith blob → nnabla parameter variable
};

struct NnLoss {
  const NnFunction* function = nullptr;
  std::string type;
  Json params = Json::object();
  std::string prediction;  // node id
};

class NnContext {
 public:
  NnContext(const NnablaFile& file, const NnNetwork& network, const OpRegistry& registry);

  const OpRegistry& registry() const { return m_registry; }
  [[noreturn]] void fail(const NnFunction& f, const std::string& what) const;
  [[noreturn]] void unsupported(const NnFunction& f, const std::string& why) const;
  ParamReader param(const NnFunction& f) const { return ParamReader(f, f.paramPlace.file.empty() ? f.place.file : f.paramPlace.file); }

  const NnVariable* variable(const std::string& name) const;
  bool hasInput(const NnFunction& f, size_t i) const { return i < f.inputs.size() && !f.inputs[i].empty(); }
  // Data input `i`: the node computing it and its per-sample shape.
  const std::string& layerInput(const NnFunction& f, size_t i) const;
  const Shape& inputShape(const NnFunction& f, size_t i) const;
  // Parameter input `i`: its shape as declared (or as its value has it). Error when missing or
  // not a parameter.
  std::vector<int64_t> parameterShape(const NnFunction& f, size_t i) const;
  // Checks the number of inputs and outputs.
  void expectInputs(const NnFunction& f, size_t least, size_t most) const;

  // Adds a layer named after f reading data inputs `data`, with `params` and blobs taken from
  // parameter inputs (blob name, input index); checks parameters and shapes against the op
  // registry and the declared output shape; f's output then names it.
  void addLayer(const NnFunction& f, const std::string& type, const std::vector<size_t>& data, Json params = Json::object(),
                const std::vector<std::pair<std::string, size_t>>& blobs = {});
  // f's output is its data input `i` (a function that changes nothing).
  void alias(const NnFunction& f, size_t i = 0);
  void addLoss(const NnFunction& f, const std::string& type, Json params = Json::object());

  // The import's steps (nnabla_importer.cpp).
  void addInput(const std::string& variable);
  void convert(const NnFunction& f);
  std::vector<NnMade>& nodes() { return m_nodes; }
  NnMade& made(const std::string& id);
  std::vector<NnLoss>& losses() { return m_losses; }
  const std::map<std::string, std::string>& values() const { return m_values; }
  std::vector<std::string>& notes() { return m_notes; }
  std::string uniqueId(const std::string& name) { return m_ids.unique(name); }

 private:
  const NnablaFile& m_file;
  const NnNetwork& m_network;
  const OpRegistry& m_registry;
  std::map<std::string, const NnVariable*> m_variables;
  std::map<std::string, const NnablaParameter*> m_parameterValues;
  std::map<std::string, std::string> m_values;  // variable → node id
  std::vector<NnMade> m_nodes;
  std::map<std::string, size_t> m_nodeIndex;
  LayerIds m_ids;
  std::vector<NnLoss> m_losses;
  std::vector<std::string> m_notes;
};

using NnConverter = std::function<void(NnContext&, const NnFunction&)>;
using NnConverterTable = std::map<std::string, NnConverter>;
void addNnablaLayerConverters(NnConverterTable& table);  // nnabla_convert_layers.cpp
void addNnablaOtherConverters(NnConverterTable& table);  // nnabla_convert_other.cpp
const NnConverterTable& nnablaConverters();

// nnabla's axis (counting the batch axis) as a per-sample axis; negative counts from the end of
// a rank-`rank` (per sample) shape. Error via ctx when it is the batch axis or out of range.
int64_t sampleAxis(const NnContext& ctx, const NnFunction& f, int64_t axis, size_t rank, const char* what);

}  // namespace netsmith::nnabla_import
