// decodeParameterProtobuf (parameter_protobuf.h): a bounds-checked protobuf wire-format reader.
#include "engine/import/nnabla/parameter_protobuf.h"

#include <cstring>

#include "engine/core/error.h"

namespace netsmith::nnabla_import {

namespace {

constexpr int kMaxDims = 16;

class WireReader {
 public:
  WireReader(std::string_view bytes, const std::string& where) : m_bytes(bytes), m_where(where) {}

  bool atEnd() const { return m_pos >= m_bytes.size(); }
  size_t position() const { return m_pos; }

  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      NS_CHECK(m_pos < m_bytes.size(), "{}: a number is cut off at byte {}: the file is damaged or cut off", m_where, m_pos);
      const unsigned char c = static_cast<unsigned char>(m_bytes[m_pos++]);
      v |= static_cast<uint64_t>(c & 0x7f) << shift;
      if (!(c & 0x80)) return v;
    }
    NS_THROW("{}: a number longer than 10 bytes at byte {}: the file is damaged", m_where, m_pos);
  }

  std::string_view bytes(uint64_t n) {
    NS_CHECK(n <= m_bytes.size() - m_pos, "{}: a field of {} bytes at byte {} runs past the end ({} bytes left): the file is damaged or cut off",
             m_where, n, m_pos, m_bytes.size() - m_pos);
    std::string_view s = m_bytes.substr(m_pos, n);
    m_pos += n;
    return s;
  }

  // Skips a field of `wireType`.
  void skip(uint32_t wireType, uint64_t field) {
    switch (wireType) {
      case 0: varint(); break;
      case 1: bytes(8); break;
      case 2: bytes(varint()); break;
      case 5: bytes(4); break;
      default: NS_THROW("{}: field {} has wire type {} at byte {}, which no nnabla file uses: the file is damaged", m_where, field, wireType, m_pos);
    }
  }

 private:
  std::string_view m_bytes;
  const std::string& m_where;
  size_t m_pos = 0;
};

float floatAt(std::string_view b, size_t at) {
  uint32_t bits = 0;
  for (int k = 3; k >= 0; --k) bits = bits << 8 | static_cast<unsigned char>(b[at + k]);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

std::vector<int64_t> decodeShape(std::string_view bytes, const std::string& where) {
  WireReader r(bytes, where);
  std::vector<int64_t> dims;
  while (!r.atEnd()) {
    const uint64_t key = r.varint();
    const uint64_t field = key >> 3;
    const uint32_t type = key & 7;
    if (field == 1 && type == 0) {
      dims.push_back(static_cast<int64_t>(r.varint()));
    } else if (field == 1 && type == 2) {
      WireReader packed(r.bytes(r.varint()), where);
      while (!packed.atEnd()) {
        dims.push_back(static_cast<int64_t>(packed.varint()));
        NS_CHECK(dims.size() <= kMaxDims, "{}: a shape of more than {} axes: the file is damaged", where, kMaxDims);
      }
    } else {
      r.skip(type, field);
    }
    NS_CHECK(dims.size() <= kMaxDims, "{}: a shape of more than {} axes: the file is damaged", where, kMaxDims);
  }
  return dims;
}

NnablaParameter decodeParameter(std::string_view bytes, const std::string& origin, size_t index) {
  const std::string where = format("{}: parameter {}", origin, index + 1);
  WireReader r(bytes, where);
  NnablaParameter p;
  p.origin = origin;
  while (!r.atEnd()) {
    const uint64_t key = r.varint();
    const uint64_t field = key >> 3;
    const uint32_t type = key & 7;
    if (field == 1 && type == 2) {
      p.name = std::string(r.bytes(r.varint()));
    } else if (field == 20 && type == 2) {
      p.dims = decodeShape(r.bytes(r.varint()), where);
    } else if (field == 100 && type == 2) {
      const std::string_view packed = r.bytes(r.varint());
      NS_CHECK(packed.size() % 4 == 0, "{}{}: its packed data has {} bytes, not a multiple of 4: the file is damaged", where,
               p.name.empty() ? "" : " ('" + p.name + "')", packed.size());
      const size_t first = p.values.size();
      p.values.resize(first + packed.size() / 4);
      for (size_t k = 0; k < packed.size() / 4; ++k) p.values[first + k] = floatAt(packed, 4 * k);
    } else if (field == 100 && type == 5) {
      p.values.push_back(floatAt(r.bytes(4), 0));
    } else if (field == 101 && type == 0) {
      p.needGrad = r.varint() != 0;
    } else {
      r.skip(type, field);
    }
  }
  NS_CHECK(!p.name.empty(), "{}: has no variable_name: the file is damaged", where);
  int64_t count = 1;
  for (int64_t d : p.dims) {
    NS_CHECK(d >= 0 && d <= (int64_t{1} << 40) && (d == 0 || count <= (int64_t{1} << 40) / d),
             "{} ('{}'): dimension {} is not a size: the file is damaged", where, p.name, d);
    count *= d;
  }
  NS_CHECK(count == static_cast<int64_t>(p.values.size()),
           "{} ('{}'): its shape has {} values but the file holds {}: the file is damaged", where, p.name, count, p.values.size());
  return p;
}

}  // namespace

std::vector<NnablaParameter> decodeParameterProtobuf(std::string_view bytes, const std::string& origin) {
  WireReader r(bytes, origin);
  std::vector<NnablaParameter> parameters;
  while (!r.atEnd()) {
    const size_t at = r.position();
    const uint64_t key = r.varint();
    const uint64_t field = key >> 3;
    const uint32_t type = key & 7;
    NS_CHECK(field != 0, "{}: field number 0 at byte {}: not an nnabla parameter file, or damaged", origin, at);
    if (field == 200 && type == 2) parameters.push_back(decodeParameter(r.bytes(r.varint()), origin, parameters.size()));
    else r.skip(type, field);
  }
  return parameters;
}

}  // namespace netsmith::nnabla_import
