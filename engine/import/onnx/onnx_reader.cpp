#include "engine/import/onnx/onnx_reader.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/core/error.h"

#ifdef NETSMITH_HAVE_ONNX
#include <google/protobuf/io/coded_stream.h>
#include <onnx/onnx_pb.h>
#endif

namespace netsmith::onnx_import {

#ifdef NETSMITH_HAVE_ONNX

namespace {

namespace fs = std::filesystem;

// Files beyond this are refused before they are read (protobuf itself stops at 2 GiB; models
// that large keep their weights in external data files, which this importer does not read).
constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{2} << 30;
// No tensor of a model that fits in 2 GiB holds more values than this; a dims list that claims
// more is damaged (and would overflow a product).
constexpr int64_t kMaxElements = int64_t{1} << 31;

// Half-precision bits to float.
float halfToFloat(uint16_t h) {
  const int sign = (h >> 15) & 1, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  float v;
  if (exponent == 0) v = std::ldexp(static_cast<float>(mantissa), -24);
  else if (exponent == 31) v = mantissa ? NAN : INFINITY;
  else v = std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  return sign ? -v : v;
}

class Reader {
 public:
  explicit Reader(std::string path) : m_path(std::move(path)) {}

  [[noreturn]] void fail(const std::string& what) const { throw Error(format("{}: {}", m_path, what)); }

  OnnxTensor tensor(const onnx::TensorProto& t, const std::string& where) const {
    OnnxTensor out;
    out.name = t.name();
    int64_t count = 1;
    for (int64_t d : t.dims()) {
      if (d < 0 || d > kMaxElements) fail(format("{} '{}' has a dimension of {}: the file is damaged", where, t.name(), d));
      count *= d;
      if (count > kMaxElements) fail(format("{} '{}' claims more than {} values: the file is damaged", where, t.name(), kMaxElements));
      out.dims.push_back(d);
    }
    if (t.has_data_location() && t.data_location() == onnx::TensorProto::EXTERNAL)
      fail(format("{} '{}' keeps its values in an external data file, which this importer does not read; save the "
                  "model with its weights inside (onnx.save_model(model, path, save_as_external_data=False))",
                  where, t.name()));
    const std::string& raw = t.raw_data();
    const bool hasRaw = t.has_raw_data();
    const auto need = [&](size_t have, size_t bytesPer) {
      if (have != static_cast<size_t>(count) * (hasRaw ? bytesPer : 1))
        fail(format("{} '{}' has dims ({}) = {} values but holds {} {}: the file is damaged", where, t.name(),
                    dimsText(out.dims), count, hasRaw ? have / bytesPer : have, hasRaw ? "values of raw data" : "values"));
    };
    switch (t.data_type()) {
      case onnx::TensorProto::FLOAT:
        out.isFloat = true;
        if (hasRaw) {
          need(raw.size(), 4);
          out.floats.resize(static_cast<size_t>(count));
          std::memcpy(out.floats.data(), raw.data(), raw.size());
        } else {
          need(static_cast<size_t>(t.float_data_size()), 1);
          out.floats.assign(t.float_data().begin(), t.float_data().end());
        }
        break;
      case onnx::TensorProto::DOUBLE:
        out.isFloat = true;
        if (hasRaw) {
          need(raw.size(), 8);
          for (int64_t i = 0; i < count; ++i) {
            double d;
            std::memcpy(&d, raw.data() + 8 * i, 8);
            out.floats.push_back(static_cast<float>(d));
          }
        } else {
          need(static_cast<size_t>(t.double_data_size()), 1);
          for (double d : t.double_data()) out.floats.push_back(static_cast<float>(d));
        }
        break;
      case onnx::TensorProto::FLOAT16:
        out.isFloat = true;
        if (hasRaw) {
          need(raw.size(), 2);
          for (int64_t i = 0; i < count; ++i) {
            uint16_t h;
            std::memcpy(&h, raw.data() + 2 * i, 2);
            out.floats.push_back(halfToFloat(h));
          }
        } else {
          need(static_cast<size_t>(t.int32_data_size()), 1);
          for (int32_t h : t.int32_data()) out.floats.push_back(halfToFloat(static_cast<uint16_t>(h)));
        }
        break;
      case onnx::TensorProto::INT64:
        out.isFloat = false;
        if (hasRaw) {
          need(raw.size(), 8);
          out.ints.resize(static_cast<size_t>(count));
          std::memcpy(out.ints.data(), raw.data(), raw.size());
        } else {
          need(static_cast<size_t>(t.int64_data_size()), 1);
          out.ints.assign(t.int64_data().begin(), t.int64_data().end());
        }
        break;
      case onnx::TensorProto::INT32:
      case onnx::TensorProto::INT8:
      case onnx::TensorProto::UINT8:
      case onnx::TensorProto::BOOL: {
        out.isFloat = false;
        const size_t width = t.data_type() == onnx::TensorProto::INT32 ? 4 : 1;
        if (hasRaw) {
          need(raw.size(), width);
          for (int64_t i = 0; i < count; ++i) {
            int64_t v = 0;
            if (width == 4) {
              int32_t x;
              std::memcpy(&x, raw.data() + 4 * i, 4);
              v = x;
            } else if (t.data_type() == onnx::TensorProto::INT8) {
              v = static_cast<int8_t>(raw[static_cast<size_t>(i)]);
            } else {
              v = static_cast<uint8_t>(raw[static_cast<size_t>(i)]);
            }
            out.ints.push_back(v);
          }
        } else {
          need(static_cast<size_t>(t.int32_data_size()), 1);
          out.ints.assign(t.int32_data().begin(), t.int32_data().end());
        }
        break;
      }
      default:
        fail(format("{} '{}' has ONNX data type {}, which the importer does not read (it reads float, float16, double "
                    "and integer tensors)",
                    where, t.name(), static_cast<int>(t.data_type())));
    }
    return out;
  }

  OnnxAttr attribute(const onnx::AttributeProto& a, const std::string& node) const {
    OnnxAttr out;
    switch (a.type()) {
      case onnx::AttributeProto::INT: out.kind = OnnxAttr::Kind::Int; out.i = a.i(); break;
      case onnx::AttributeProto::FLOAT: out.kind = OnnxAttr::Kind::Float; out.f = a.f(); break;
      case onnx::AttributeProto::STRING: out.kind = OnnxAttr::Kind::String; out.s = a.s(); break;
      case onnx::AttributeProto::INTS:
        out.kind = OnnxAttr::Kind::Ints;
        out.ints.assign(a.ints().begin(), a.ints().end());
        break;
      case onnx::AttributeProto::FLOATS:
        out.kind = OnnxAttr::Kind::Floats;
        out.floats.assign(a.floats().begin(), a.floats().end());
        break;
      case onnx::AttributeProto::TENSOR:
        out.kind = OnnxAttr::Kind::Tensor;
        out.tensor.push_back(tensor(a.t(), format("node '{}': attribute '{}': tensor", node, a.name())));
        break;
      default: out.kind = OnnxAttr::Kind::Other; break;
    }
    return out;
  }

  OnnxValueInfo valueInfo(const onnx::ValueInfoProto& v) const {
    OnnxValueInfo out;
    out.name = v.name();
    if (v.type().has_tensor_type()) {
      const auto& tt = v.type().tensor_type();
      out.elementType = tt.elem_type();
      if (tt.has_shape()) {
        out.hasShape = true;
        for (const auto& d : tt.shape().dim()) {
          if (d.has_dim_value() && d.dim_value() >= 0 && d.dim_value() <= kMaxElements) {
            out.dims.push_back(d.dim_value());
            out.dimNames.emplace_back();
          } else if (d.has_dim_value()) {
            fail(format("input or output '{}' has a dimension of {}: the file is damaged", v.name(), d.dim_value()));
          } else {
            out.dims.push_back(-1);
            out.dimNames.push_back(d.has_dim_param() ? d.dim_param() : "?");
          }
        }
      }
    }
    return out;
  }

  OnnxModel read() const {
    std::error_code ec;
    const auto status = fs::status(m_path, ec);
    if (ec || !fs::exists(status)) fail("cannot open the model: it does not exist");
    if (fs::is_directory(status)) fail("is a folder, not an ONNX model file");
    const auto size = fs::file_size(m_path, ec);
    if (ec) fail(format("cannot read the model: {}", ec.message()));
    if (size > kMaxFileBytes)
      fail(format("is {} bytes; models over 2 GiB keep their weights in external data files, which this importer does not read", size));
    std::ifstream in(m_path, std::ios::binary);
    if (!in) fail(format("cannot open the model: {}", std::strerror(errno)));
    std::string bytes(static_cast<size_t>(size), '\0');
    in.read(bytes.data(), static_cast<std::streamsize>(size));
    if (!in) fail("cannot read the model: reading failed");

    onnx::ModelProto proto;
    google::protobuf::io::CodedInputStream stream(reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int>(bytes.size()));
    stream.SetRecursionLimit(64);
    if (!proto.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage())
      fail("not an ONNX model: the file is not a valid ONNX protobuf (truncated or damaged?)");
    if (!proto.has_graph() || proto.graph().node_size() == 0)
      fail("not an ONNX model: it has no graph nodes (truncated or damaged?)");

    OnnxModel m;
    m.path = m_path;
    m.irVersion = proto.ir_version();
    m.producer = proto.producer_name() + (proto.producer_version().empty() ? "" : " " + proto.producer_version());
    for (const auto& kv : proto.metadata_props()) m.metadata[kv.key()] = kv.value();
    bool haveDefault = false;
    for (const auto& o : proto.opset_import()) {
      if (o.domain().empty() || o.domain() == "ai.onnx") {
        m.opset = o.version();
        haveDefault = true;
      }
    }
    if (!haveDefault) fail("the model imports no opset of the standard ONNX domain: the file is damaged or not a standard model");
    if (m.opset < kMinImportOpset || m.opset > kMaxImportOpset)
      fail(format("the model uses ONNX opset {}; the importer reads opsets {} to {}: export it again with an opset in that "
                  "range (torch.onnx.export(..., opset_version=13))",
                  m.opset, kMinImportOpset, kMaxImportOpset));

    const auto& g = proto.graph();
    m.graphName = g.name();
    std::map<std::string, bool> isInitializer;
    for (const auto& t : g.initializer()) {
      m.initializers.push_back(tensor(t, "initializer"));
      isInitializer[t.name()] = true;
    }
    for (const auto& v : g.input())
      if (!isInitializer.count(v.name())) m.inputs.push_back(valueInfo(v));
    for (const auto& v : g.output()) m.outputs.push_back(valueInfo(v));
    int k = 0;
    for (const auto& n : g.node()) {
      OnnxNodeDef d;
      d.opType = n.op_type();
      d.name = n.name().empty() ? format("{}_{}", d.opType.empty() ? "node" : d.opType, k) : n.name();
      ++k;
      d.domain = n.domain();
      d.inputs.assign(n.input().begin(), n.input().end());
      d.outputs.assign(n.output().begin(), n.output().end());
      for (const auto& a : n.attribute()) d.attributes[a.name()] = attribute(a, d.name);
      m.nodes.push_back(std::move(d));
    }
    return m;
  }

 private:
  static std::string dimsText(const std::vector<int64_t>& dims) {
    std::string s;
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
    return s;
  }

  std::string m_path;
};

}  // namespace

bool onnxImportAvailable() { return true; }

OnnxModel readOnnxModel(const std::string& path) { return Reader(path).read(); }

#else

bool onnxImportAvailable() { return false; }

OnnxModel readOnnxModel(const std::string& path) {
  NS_THROW("{}: this netsmith-cli was built without ONNX support: install libonnx-dev and libprotobuf-dev "
           "(installer/install-deps.sh does) and build again",
           path);
}

#endif

}  // namespace netsmith::onnx_import
