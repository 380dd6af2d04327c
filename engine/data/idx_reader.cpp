#include "engine/data/idx_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "engine/core/error.h"

namespace netsmith {

namespace {

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  return buf;
}

// Why a file cannot be opened, in the words a user needs ("does not exist" rather than ENOENT).
[[noreturn]] void throwOpenError(const std::string& path, const std::string& what, int err) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) NS_THROW("{} '{}' does not exist", what, path);
  NS_THROW("cannot open {} '{}': {}", what, path, std::strerror(err));
}

void readRaw(const std::string& path, const std::string& what, ByteBuffer& data) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throwOpenError(path, what, errno);
  const std::streamoff size = in.tellg();
  NS_CHECK(size >= 0, "cannot read {} '{}'", what, path);
  data.resize(static_cast<size_t>(size));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(data.data()), size);
  NS_CHECK(in.gcount() == size, "cannot read {} '{}': read {} of {} bytes", what, path, in.gcount(), size);
}

void inflateGzip(const std::string& path, const std::string& what, uint64_t compressedSize, FileBytes& out) {
  gzFile gz = gzopen(path.c_str(), "rb");
  if (!gz) throwOpenError(path, what, errno);
  gzbuffer(gz, 1u << 20);
  // IDX images compress about 2:1; start near that and double, so a large file is copied at most once.
  size_t capacity = static_cast<size_t>(std::clamp<uint64_t>(compressedSize * 4, 1u << 16, 1ull << 30));
  ByteBuffer& data = out.data;
  data.resize(capacity);
  size_t got = 0;
  for (;;) {
    if (got == data.size()) data.resize(data.size() * 2);
    const size_t want = std::min<size_t>(data.size() - got, 1u << 30);
    const int n = gzread(gz, data.data() + got, static_cast<unsigned>(want));
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  int errnum = Z_OK;
  const char* message = gzerror(gz, &errnum);
  std::string reason = message ? message : "";
  if (reason.starts_with(path + ": ")) reason.erase(0, path.size() + 2);  // zlib prefixes the path
  gzclose(gz);
  data.resize(got);
  if (errnum == Z_BUF_ERROR) {
    out.gzipTruncated = true;  // the caller knows how many bytes were expected
  } else if (errnum != Z_OK) {
    NS_THROW("{} '{}' is not valid gzip data ({}): the file is damaged; download it again", what, path, reason);
  }
}

// Element types of the IDX format (third byte of the magic number).
struct IdxType {
  uint8_t code;
  const char* name;
  int bytes;
  bool integer;
};
constexpr IdxType kIdxTypes[] = {{0x08, "unsigned byte", 1, true}, {0x09, "signed byte", 1, true},
                                 {0x0B, "int16", 2, true},         {0x0C, "int32", 4, true},
                                 {0x0D, "float32", 4, false},      {0x0E, "float64", 8, false}};

uint32_t bigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

struct IdxFile {
  std::string path;
  FileBytes bytes;  // the whole file, or only its head when `headOnly`
  bool headOnly = false;
  uint64_t size = 0;  // bytes of the (inflated) file
  const IdxType* type = nullptr;
  std::vector<int64_t> dims;  // dims[0] = number of samples
  size_t headerBytes = 0;
  int64_t perSample = 0;  // elements per sample
};

std::string dimsToString(const std::vector<int64_t>& dims) {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
  return s;
}

// What one sample of an IDX images file with these dims (dims[0] = N) is: Note on readIdxDataset.
Shape idxSampleShape(const std::vector<int64_t>& dims, const std::string& imagesPath) {
  switch (dims.size()) {
    case 1:
      return {1};
    case 2:
      return {dims[1]};
    case 3:
      return {1, dims[1], dims[2]};
    default:
      NS_THROW("IDX images file '{}' has {} dimensions ({}): expected N x height x width (magic 0x00000803)",
               imagesPath, dims.size(), dimsToString(dims));
  }
}

// Reads and checks the header and the size of one IDX file. `expectedMagic` is for messages.
// The first bytes of a raw file (enough for any IDX header), or all of a gzip one.
FileBytes readHead(const std::string& path, const std::string& what, bool& headOnly, uint64_t& size) {
  std::error_code ec;
  NS_CHECK(!std::filesystem::is_directory(path, ec), "{} '{}' is a folder, not a file", what, path);
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throwOpenError(path, what, errno);
  const std::streamoff fileSize = in.tellg();
  NS_CHECK(fileSize >= 0, "cannot read {} '{}'", what, path);
  in.seekg(0);
  FileBytes out;
  out.data.resize(static_cast<size_t>(std::min<std::streamoff>(fileSize, 4 + 4 * 255)));
  in.read(reinterpret_cast<char*>(out.data.data()), static_cast<std::streamsize>(out.data.size()));
  NS_CHECK(in.gcount() == static_cast<std::streamsize>(out.data.size()), "cannot read {} '{}'", what, path);
  if (out.data.size() >= 2 && out.data[0] == 0x1f && out.data[1] == 0x8b) {
    headOnly = false;
    out = readFileBytes(path, what);
    size = out.data.size();
    return out;
  }
  headOnly = true;
  size = static_cast<uint64_t>(fileSize);
  return out;
}

// Reads and checks the header and the size of one IDX file. `expectedMagic` is for messages.
// mayStream: a raw (not gzip) file of unsigned bytes is not read beyond its header; its samples
// are read when batches are assembled (Note [Sample storage]).
IdxFile openIdx(const std::string& path, const std::string& what, const char* expectedMagic, bool mayStream = false) {
  IdxFile f;
  f.path = path;
  if (mayStream) {
    f.bytes = readHead(path, what, f.headOnly, f.size);
  } else {
    f.bytes = readFileBytes(path, what);
    f.size = f.bytes.data.size();
  }
  const ByteBuffer& d = f.bytes.data;
  const char* gzNote = f.bytes.gzipTruncated ? " (its gzip stream also ends early: the file was cut short)" : "";
  NS_CHECK(f.size >= 4, "{} '{}' is too short to be an IDX file: {} bytes{}", what, path, f.size, gzNote);
  const uint32_t magic = bigEndian32(d.data());
  for (const IdxType& t : kIdxTypes)
    if (t.code == d[2]) f.type = &t;
  const int ndims = d[3];
  NS_CHECK(d[0] == 0 && d[1] == 0 && f.type && ndims >= 1,
           "{} '{}' has a bad magic number {}: expected {}; is it an IDX file?", what, path, hex32(magic),
           expectedMagic);
  f.headerBytes = 4 + 4 * static_cast<size_t>(ndims);
  NS_CHECK(f.size >= f.headerBytes,
           "{} '{}' is truncated: its header needs {} bytes for {} dimensions, found {} bytes{}", what, path,
           f.headerBytes, ndims, f.size, gzNote);
  for (int i = 0; i < ndims; ++i) f.dims.push_back(bigEndian32(d.data() + 4 + 4 * i));
  // 64-bit dims (each < 2^32): the product can only overflow for absurd headers, caught here.
  unsigned __int128 expected = f.type->bytes;
  f.perSample = 1;
  for (size_t i = 0; i < f.dims.size(); ++i) {
    expected *= static_cast<uint64_t>(f.dims[i]);
    if (i > 0) f.perSample *= f.dims[i];
    NS_CHECK(expected < (static_cast<unsigned __int128>(1) << 50), "{} '{}': header dimensions {} are too large", what,
             path, dimsToString(f.dims));
  }
  expected += f.headerBytes;
  const auto expectedBytes = static_cast<uint64_t>(expected);
  NS_CHECK(f.size >= expectedBytes,
           "{} '{}' is truncated: expected {} bytes ({}-byte header + {} samples of {} {}), found {}{}", what, path,
           expectedBytes, f.headerBytes, f.dims[0],
           f.dims.size() > 1 ? dimsToString({f.dims.begin() + 1, f.dims.end()}) : "1", f.type->name, f.size, gzNote);
  NS_CHECK(!f.bytes.gzipTruncated,
           "{} '{}' is truncated: its gzip stream ends early (the {} bytes of data arrived but not the end marker); "
           "download it again",
           what, path, expectedBytes);
  NS_CHECK(
      f.size == expectedBytes,
      "{} '{}' has {} bytes after the data: expected {} bytes from its header ({}), found {}; is it the right file?",
      what, path, f.size - expectedBytes, expectedBytes, dimsToString(f.dims), f.size);
  NS_CHECK(f.dims[0] > 0, "{} '{}' holds no samples", what, path);
  if (f.headOnly && f.type->code != 0x08) {  // only bytes are streamed: read the rest now
    f.bytes = readFileBytes(path, what);
    f.headOnly = false;
    NS_CHECK(f.bytes.data.size() == expectedBytes, "{} '{}' changed while it was read", what, path);
  }
  return f;
}

// Element i of the data part as a double (the format is big-endian).
double idxValue(const IdxFile& f, int64_t i) {
  const uint8_t* p = f.bytes.data.data() + f.headerBytes + static_cast<size_t>(i) * f.type->bytes;
  switch (f.type->code) {
    case 0x08:
      return p[0];
    case 0x09:
      return static_cast<int8_t>(p[0]);
    case 0x0B:
      return static_cast<int16_t>((p[0] << 8) | p[1]);
    case 0x0C:
      return static_cast<int32_t>(bigEndian32(p));
    case 0x0D: {
      const uint32_t bits = bigEndian32(p);
      float v;
      std::memcpy(&v, &bits, 4);
      return v;
    }
    default: {
      const uint64_t bits = (uint64_t{bigEndian32(p)} << 32) | bigEndian32(p + 4);
      double v;
      std::memcpy(&v, &bits, 8);
      return v;
    }
  }
}

}  // namespace

void ByteBuffer::resize(size_t n) {
  if (n > m_size) {
    auto* p = static_cast<uint8_t*>(std::realloc(m_data.get(), n));
    if (!p) throw std::bad_alloc();
    m_data.release();
    m_data.reset(p);
  }
  m_size = n;
}

FileBytes readFileBytes(const std::string& path, const std::string& what) {
  FileBytes out;
  std::error_code ec;
  NS_CHECK(!std::filesystem::is_directory(path, ec), "{} '{}' is a folder, not a file", what, path);
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) throwOpenError(path, what, errno);
  uint8_t magic[2] = {0, 0};
  const size_t n = std::fread(magic, 1, 2, file);
  std::fseek(file, 0, SEEK_END);
  const long size = std::ftell(file);
  std::fclose(file);
  out.gzip = n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  if (out.gzip)
    inflateGzip(path, what, size > 0 ? static_cast<uint64_t>(size) : 0, out);
  else
    readRaw(path, what, out.data);
  return out;
}

Dataset readIdxDataset(const std::string& imagesPath, const std::string& labelsPath, double scale, bool skipBadRows) {
  const IdxFile images =
      openIdx(imagesPath, "IDX images file", "0x00000803 (unsigned bytes, N x height x width)", /*mayStream=*/true);
  const IdxFile labels = openIdx(labelsPath, "IDX labels file", "0x00000801 (unsigned bytes, one label per sample)");

  Dataset ds;
  ds.source = imagesPath;
  ds.labelSource = labelsPath;
  ds.sampleShape = idxSampleShape(images.dims, imagesPath);
  NS_CHECK(labels.dims.size() <= 2,
           "IDX labels file '{}' has {} dimensions ({}, magic {}): expected one label per sample (magic "
           "0x00000801); are the images and labels files swapped?",
           labelsPath, labels.dims.size(), dimsToString(labels.dims), hex32(bigEndian32(labels.bytes.data.data())));
  NS_CHECK(images.dims[0] == labels.dims[0],
           "IDX images file '{}' has {} samples but labels file '{}' has {}: they must describe the same samples",
           imagesPath, images.dims[0], labelsPath, labels.dims[0]);
  ds.size = images.dims[0];

  const int64_t total = ds.size * images.perSample;
  ds.diskBytes = static_cast<int64_t>(std::filesystem::file_size(imagesPath) + std::filesystem::file_size(labelsPath));
  ds.setByteScale(scale);
  if (images.type->code == 0x08 && images.headOnly) {
    // Raw bytes: read when batches are assembled (Note [Sample storage]).
    ds.file = std::make_shared<SampleFile>(imagesPath, "IDX images file", static_cast<int64_t>(images.headerBytes),
                                           images.perSample, ds.size);
  } else if (images.type->code == 0x08) {
    const uint8_t* src = images.bytes.data.data() + images.headerBytes;
    ds.pixels.assign(src, src + total);
  } else {
    ds.features.resize(static_cast<size_t>(total));
    for (int64_t i = 0; i < total; ++i) ds.features[i] = static_cast<float>(idxValue(images, i) * scale);
  }

  ds.labelWidth = labels.dims.size() == 2 ? labels.dims[1] : 1;
  NS_CHECK(ds.labelWidth > 0, "IDX labels file '{}' has 0 values per sample", labelsPath);
  ds.labels.resize(static_cast<size_t>(ds.size * ds.labelWidth));
  for (int64_t i = 0; i < ds.size * ds.labelWidth; ++i) ds.labels[i] = static_cast<float>(idxValue(labels, i));
  if (labels.dims.size() == 1) {
    double maxLabel = 0;
    std::vector<bool> drop;
    std::vector<SkippedRow> why;
    for (int64_t i = 0; i < ds.size; ++i) {
      const double v = idxValue(labels, i);
      if (v >= 0 && v == std::floor(v) && v < (1 << 24)) {
        maxLabel = std::max(maxLabel, v);
        continue;
      }
      const std::string reason = format("index {} (0-based): label {} is not a class index (an integer >= 0)", i, v);
      NS_CHECK(skipBadRows, "IDX labels file '{}': {}", labelsPath, reason);
      if (drop.empty()) drop.assign(static_cast<size_t>(ds.size), false);
      drop[i] = true;
      why.push_back({i, reason});
    }
    ds.numClasses = static_cast<int64_t>(maxLabel) + 1;
    if (!why.empty()) skipSamples(ds, drop, std::move(why));
  }
  return ds;
}

int64_t readIdxClassCount(const std::string& labelsPath) {
  const IdxFile labels = openIdx(labelsPath, "IDX labels file", "0x00000801 (unsigned bytes, one label per sample)");
  if (labels.dims.size() != 1) return 0;  // vectors, not class indices
  double maxLabel = 0;
  for (int64_t i = 0; i < labels.dims[0]; ++i) {
    const double v = idxValue(labels, i);
    if (v >= 0 && v == std::floor(v) && v < (1 << 24)) maxLabel = std::max(maxLabel, v);
  }
  return static_cast<int64_t>(maxLabel) + 1;
}

}  // namespace netsmith

namespace netsmith {

Shape readIdxSampleShape(const std::string& imagesPath) {
  const std::string what = "IDX images file";
  std::error_code ec;
  NS_CHECK(!std::filesystem::is_directory(imagesPath, ec), "{} '{}' is a folder, not a file", what, imagesPath);
  // gzread reads a raw file as it is and inflates a gzip one: only the header is read either way.
  gzFile gz = gzopen(imagesPath.c_str(), "rb");
  if (!gz) throwOpenError(imagesPath, what, errno);
  std::unique_ptr<gzFile_s, int (*)(gzFile)> closer(gz, gzclose);
  unsigned char head[4 + 4 * 3];
  const int got = gzread(gz, head, 4);
  NS_CHECK(got == 4, "{} '{}' is too short to be an IDX file", what, imagesPath);
  const int ndims = head[3];
  NS_CHECK(head[0] == 0 && head[1] == 0 && ndims >= 1 && ndims <= 3,
           "{} '{}' has a bad magic number {}: expected 0x00000803 (N x height x width); is it an IDX file?", what,
           imagesPath, hex32(bigEndian32(head)));
  NS_CHECK(gzread(gz, head + 4, static_cast<unsigned>(4 * ndims)) == 4 * ndims, "{} '{}' ends inside its header", what,
           imagesPath);
  std::vector<int64_t> dims;
  for (int i = 0; i < ndims; ++i) dims.push_back(bigEndian32(head + 4 + 4 * i));
  return idxSampleShape(dims, imagesPath);
}

}  // namespace netsmith
