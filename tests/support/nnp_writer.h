// Builds Neural Network Console .nnp archives for the nnabla import tests: a ZIP archive (members
// stored or deflated with zlib, CRC-32 and sizes filled in) and nnabla's parameter.protobuf
// (NNablaProtoBuf.parameter = 200: Parameter { variable_name = 1; Shape shape = 20 { repeated
// int64 dim = 1 [packed] }; repeated float data = 100 [packed]; bool need_grad = 101 }).
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace netsmith::test {

struct NnpParameter {
  std::string name;
  std::vector<int64_t> dims;
  std::vector<float> values;
};

struct ZipMember {
  std::string name;
  std::string bytes;
  bool deflate = true;
  // A member given already deflated (a stream too large to hold inflated): its raw deflate
  // data, inflated size and CRC-32; `bytes` is then unused.
  std::string deflated;
  uint64_t inflatedSize = 0;
  uint32_t inflatedCrc = 0;
};

inline void putVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

inline void putLengthDelimited(std::string& out, int field, const std::string& bytes) {
  putVarint(out, static_cast<uint64_t>(field) << 3 | 2);
  putVarint(out, bytes.size());
  out += bytes;
}

inline std::string parameterProtobuf(const std::vector<NnpParameter>& parameters) {
  std::string file;
  for (const NnpParameter& p : parameters) {
    std::string m, shape, dims, data;
    putLengthDelimited(m, 1, p.name);
    for (int64_t d : p.dims) putVarint(dims, static_cast<uint64_t>(d));
    putLengthDelimited(shape, 1, dims);
    putLengthDelimited(m, 20, shape);
    data.resize(p.values.size() * 4);
    for (size_t i = 0; i < p.values.size(); ++i) {
      uint32_t bits;
      std::memcpy(&bits, &p.values[i], 4);
      for (int k = 0; k < 4; ++k) data[4 * i + k] = static_cast<char>(bits >> (8 * k));
    }
    putLengthDelimited(m, 100, data);
    putVarint(m, 101 << 3 | 0);
    putVarint(m, 1);
    putLengthDelimited(file, 200, m);
  }
  return file;
}

inline void putLittle(std::string& out, uint64_t v, int bytes) {
  for (int k = 0; k < bytes; ++k) out += static_cast<char>(v >> (8 * k));
}

inline std::string rawDeflate(const std::string& in) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, static_cast<uLong>(in.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

inline std::string zipArchive(const std::vector<ZipMember>& members) {
  std::string file, directory;
  for (const ZipMember& m : members) {
    const bool given = !m.deflated.empty();
    const std::string data = given ? m.deflated : m.deflate ? rawDeflate(m.bytes) : m.bytes;
    const uint32_t crc = given ? m.inflatedCrc
                               : static_cast<uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(m.bytes.data()),
                                                             static_cast<uInt>(m.bytes.size())));
    const uint64_t size = given ? m.inflatedSize : m.bytes.size();
    const uint16_t method = given || m.deflate ? 8 : 0;
    const size_t offset = file.size();
    putLittle(file, 0x04034b50, 4);
    putLittle(file, 20, 2);
    putLittle(file, 0, 2);
    putLittle(file, method, 2);
    putLittle(file, 0, 2);
    putLittle(file, 0x21, 2);
    putLittle(file, crc, 4);
    putLittle(file, data.size(), 4);
    putLittle(file, size, 4);
    putLittle(file, m.name.size(), 2);
    putLittle(file, 0, 2);
    file += m.name + data;
    putLittle(directory, 0x02014b50, 4);
    putLittle(directory, 20, 2);
    putLittle(directory, 20, 2);
    putLittle(directory, 0, 2);
    putLittle(directory, method, 2);
    putLittle(directory, 0, 2);
    putLittle(directory, 0x21, 2);
    putLittle(directory, crc, 4);
    putLittle(directory, data.size(), 4);
    putLittle(directory, size, 4);
    putLittle(directory, m.name.size(), 2);
    putLittle(directory, 0, 2);
    putLittle(directory, 0, 2);
    putLittle(directory, 0, 2);
    putLittle(directory, 0, 2);
    putLittle(directory, 0, 4);
    putLittle(directory, offset, 4);
    directory += m.name;
  }
  const size_t directoryOffset = file.size();
  file += directory;
  putLittle(file, 0x06054b50, 4);
  putLittle(file, 0, 2);
  putLittle(file, 0, 2);
  putLittle(file, members.size(), 2);
  putLittle(file, members.size(), 2);
  putLittle(file, directory.size(), 4);
  putLittle(file, directoryOffset, 4);
  putLittle(file, 0, 2);
  return file;
}

// An .nnp as nnabla writes one: nnp_version.txt, network.nntxt, parameter.protobuf.
inline std::string nnpArchive(const std::string& nntxt, const std::vector<NnpParameter>& parameters) {
  return zipArchive({{"nnp_version.txt", "0.1\n", false}, {"network.nntxt", nntxt, true}, {"parameter.protobuf", parameterProtobuf(parameters), true}});
}

inline void writeBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

inline std::string readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace netsmith::test
