#include "engine/export/onnx_writer.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "engine/core/error.h"

#ifdef NETSMITH_HAVE_ONNX
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#endif

namespace netsmith {

#ifdef NETSMITH_HAVE_ONNX

namespace {

// ONNX's IR version for the model's opset: 7 for opset 13 (ONNX 1.8), 8 for opsets 14 to 17
// (ONNX 1.9 to 1.12), so a reader that knows the opset reads the file (Note [Opset per model]).
int64_t irVersionFor(int64_t opset) { return opset <= 13 ? 7 : 8; }

void setShape(onnx::ValueInfoProto& v, const std::string& name, const Shape& perSample) {
  v.set_name(name);
  auto* type = v.mutable_type()->mutable_tensor_type();
  type->set_elem_type(onnx::TensorProto::FLOAT);
  auto* shape = type->mutable_shape();
  shape->add_dim()->set_dim_param("N");
  for (int64_t d : perSample) shape->add_dim()->set_dim_value(d);
}

void fillAttribute(onnx::AttributeProto& a, const OnnxAttribute& src) {
  a.set_name(src.name);
  switch (src.kind) {
    case OnnxAttribute::Kind::Int:
      a.set_type(onnx::AttributeProto::INT);
      a.set_i(src.i);
      break;
    case OnnxAttribute::Kind::Float:
      a.set_type(onnx::AttributeProto::FLOAT);
      a.set_f(src.f);
      break;
    case OnnxAttribute::Kind::Ints:
      a.set_type(onnx::AttributeProto::INTS);
      for (int64_t v : src.ints) a.add_ints(v);
      break;
    case OnnxAttribute::Kind::String:
      a.set_type(onnx::AttributeProto::STRING);
      a.set_s(src.s);
      break;
  }
}

void fillTensor(onnx::TensorProto& t, const OnnxInitializer& src) {
  t.set_name(src.name);
  for (int64_t d : src.dims) t.add_dims(d);
  // raw_data is little-endian, as the engine's floats are on the machines it builds for.
  if (src.isInt64) {
    t.set_data_type(onnx::TensorProto::INT64);
    t.set_raw_data(std::string(reinterpret_cast<const char*>(src.int64s.data()), src.int64s.size() * sizeof(int64_t)));
  } else {
    t.set_data_type(onnx::TensorProto::FLOAT);
    t.set_raw_data(std::string(reinterpret_cast<const char*>(src.floats.data()), src.floats.size() * sizeof(float)));
  }
}

}  // namespace

bool onnxExportAvailable() { return true; }

void writeOnnxModel(const OnnxGraph& graph, const std::string& path) {
  onnx::ModelProto model;
  model.set_ir_version(irVersionFor(graph.opset));
  model.set_producer_name("netsmith");
  model.set_producer_version(NETSMITH_VERSION);
  model.set_model_version(1);
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(graph.opset);
  for (const auto& [key, value] : graph.metadata) {
    auto* m = model.add_metadata_props();
    m->set_key(key);
    m->set_value(value);
  }
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name(graph.name);
  setShape(*g->add_input(), graph.inputName, graph.inputShape);
  setShape(*g->add_output(), graph.outputName, graph.outputShape);
  for (const auto& init : graph.initializers) fillTensor(*g->add_initializer(), init);
  for (const auto& n : graph.nodes) {
    onnx::NodeProto* node = g->add_node();
    node->set_name(n.name);
    node->set_op_type(n.opType);
    for (const auto& i : n.inputs) node->add_input(i);
    for (const auto& o : n.outputs) node->add_output(o);
    for (const auto& a : n.attributes) fillAttribute(*node->add_attribute(), a);
  }
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    NS_THROW("{}: the exported model fails ONNX's checker ({}); this is a bug in Netsmith's ONNX mapping", path, e.what());
  }
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    NS_CHECK(out.good(), "{}: cannot write", tmp);
    NS_CHECK(model.SerializeToOstream(&out), "{}: cannot serialise the model", tmp);
    out.close();
    NS_CHECK(out.good(), "{}: write failed", tmp);
  }
  std::filesystem::rename(tmp, path);
}

#else

bool onnxExportAvailable() { return false; }

void writeOnnxModel(const OnnxGraph&, const std::string& path) {
  NS_THROW("{}: this netsmith-cli was built without ONNX support: install Debian's libonnx-dev and libprotobuf-dev "
           "and rebuild", path);
}

#endif

}  // namespace netsmith
