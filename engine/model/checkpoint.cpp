#include "engine/protocol/json_fields.h"
#include "engine/model/checkpoint.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>

#include "engine/core/atomic_file.h"
#include "engine/core/error.h"
#include "engine/core/sha256.h"

namespace netsmith {
namespace {

// Tensors are written as the bytes in memory; the format is little-endian.
static_assert(std::endian::native == std::endian::little, "checkpoint I/O assumes a little-endian host");

constexpr char kCheckpointMagic[8] = {'N', 'S', 'C', 'K', 'P', 'T', '0', '1'};
constexpr size_t kDigestBytes = 32;
constexpr size_t kIoBuffer = size_t(1) << 20;
constexpr uint32_t kMaxRank = 32;

std::string systemError() { return std::strerror(errno); }

// ---------------------------------------------------------------------------------------------
// Writing

// Buffers writes to the atomic file and hashes every byte that goes through it.
class HashingWriter {
 public:
  explicit HashingWriter(AtomicFileWriter& out) : m_out(out) { m_buffer.reserve(kIoBuffer); }

  void write(const void* data, size_t bytes) {
    m_hash.update(data, bytes);
    writeRaw(data, bytes);
  }
  template <typename T>
  void writeValue(T value) {
    write(&value, sizeof(T));
  }
  void writeRaw(const void* data, size_t bytes) {
    const auto* p = static_cast<const uint8_t*>(data);
    if (bytes >= kIoBuffer) {  // big tensors go straight to the file
      flush();
      m_out.write(p, bytes);
      return;
    }
    if (m_buffer.size() + bytes > kIoBuffer) flush();
    m_buffer.insert(m_buffer.end(), p, p + bytes);
  }
  void finish() {
    const auto digest = m_hash.digest();
    writeRaw(digest.data(), digest.size());
    flush();
  }

 private:
  void flush() {
    m_out.write(m_buffer.data(), m_buffer.size());
    m_buffer.clear();
  }

  AtomicFileWriter& m_out;
  Sha256 m_hash;
  std::vector<uint8_t> m_buffer;
};

void writeBody(HashingWriter& out, const CheckpointData& data) {
  out.write(kCheckpointMagic, sizeof(kCheckpointMagic));
  const std::string meta = protocol::jsonText(data.meta);
  out.writeValue<uint64_t>(meta.size());
  out.write(meta.data(), meta.size());
  out.writeValue<uint64_t>(data.tensors.size());
  for (const auto& [name, tensor] : data.tensors) {
    NS_CHECK(name.size() <= std::numeric_limits<uint32_t>::max() && tensor.rank() <= kMaxRank,
             "checkpoint: tensor '{}' cannot be stored (name or rank too large)", name.substr(0, 80));
    out.writeValue<uint32_t>(uint32_t(name.size()));
    out.write(name.data(), name.size());
    out.writeValue<uint32_t>(uint32_t(tensor.rank()));
    for (int64_t d : tensor.shape()) out.writeValue<int64_t>(d);
    if (tensor.size() > 0) out.write(tensor.data(), size_t(tensor.size()) * sizeof(float));
  }
  out.finish();
}

// ---------------------------------------------------------------------------------------------
// Reading

// Reads a verified file's body with bounds checks against the end of the body (the digest is
// not part of it), so a malformed length is an Error, never a huge allocation.
class BodyReader {
 public:
  BodyReader(std::FILE* file, const std::string& path, uint64_t bodyBytes)
      : m_file(file), m_path(path), m_end(bodyBytes) {}

  uint64_t remaining() const { return m_end - m_pos; }
  void read(void* dst, uint64_t bytes, const char* what) {
    NS_CHECK(bytes <= remaining(), "checkpoint {}: {} runs past the end of the data ({} bytes needed, {} left)",
             m_path, what, bytes, remaining());
    NS_CHECK(bytes == 0 || std::fread(dst, 1, bytes, m_file) == bytes, "checkpoint {}: cannot read {}: {}", m_path,
             what, systemError());
    m_pos += bytes;
  }
  template <typename T>
  T readValue(const char* what) {
    T v;
    read(&v, sizeof(T), what);
    return v;
  }

 private:
  std::FILE* m_file;
  const std::string& m_path;
  uint64_t m_end;
  uint64_t m_pos = 0;
};

struct CheckpointFileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, CheckpointFileCloser>;

// Opens `path`, checks size and magic and verifies the SHA-256 of the body. Returns the file
// positioned at the start and the body's size.
FilePtr openVerified(const std::string& path, uint64_t& bodyBytes) {
  FilePtr file(std::fopen(path.c_str(), "rb"));
  NS_CHECK(file, "checkpoint {}: cannot open: {}", path, systemError());
  struct stat st {};
  NS_CHECK(::fstat(::fileno(file.get()), &st) == 0, "checkpoint {}: cannot stat: {}", path, systemError());
  NS_CHECK(S_ISREG(st.st_mode), "checkpoint {}: not a regular file", path);
  const uint64_t size = uint64_t(st.st_size);
  NS_CHECK(size > 0, "checkpoint {}: the file is empty", path);

  char magic[sizeof(kCheckpointMagic)] = {};
  const size_t got = std::fread(magic, 1, sizeof(magic), file.get());
  NS_CHECK(got == sizeof(magic) || size < sizeof(magic), "checkpoint {}: cannot read: {}", path, systemError());
  const size_t compared = std::min<size_t>(got, sizeof(kCheckpointMagic));
  NS_CHECK(std::memcmp(magic, kCheckpointMagic, compared) == 0,
           "checkpoint {}: not a Netsmith checkpoint (the file does not start with \"NSCKPT01\")", path);
  constexpr uint64_t kMinBytes = sizeof(kCheckpointMagic) + 8 + 8 + kDigestBytes;  // empty meta, no tensors
  NS_CHECK(size >= kMinBytes, "checkpoint {}: the file is truncated ({} bytes, a checkpoint has at least {})", path,
           size, kMinBytes);

  bodyBytes = size - kDigestBytes;
  std::rewind(file.get());
  Sha256 hash;
  std::vector<uint8_t> buffer(kIoBuffer);
  for (uint64_t left = bodyBytes; left > 0;) {
    const size_t want = size_t(std::min<uint64_t>(left, buffer.size()));
    NS_CHECK(std::fread(buffer.data(), 1, want, file.get()) == want, "checkpoint {}: cannot read: {}", path,
             systemError());
    hash.update(buffer.data(), want);
    left -= want;
  }
  std::array<uint8_t, kDigestBytes> stored{};
  NS_CHECK(std::fread(stored.data(), 1, stored.size(), file.get()) == stored.size(), "checkpoint {}: cannot read: {}",
           path, systemError());
  NS_CHECK(hash.digest() == stored,
           "checkpoint {}: checksum mismatch: the file is damaged or truncated (resume from an older checkpoint)",
           path);
  std::rewind(file.get());
  return file;
}

CheckpointData readVerified(const std::string& path, bool withTensors) {
  uint64_t bodyBytes = 0;
  FilePtr file = openVerified(path, bodyBytes);
  BodyReader in(file.get(), path, bodyBytes);

  char magic[sizeof(kCheckpointMagic)];
  in.read(magic, sizeof(magic), "the magic");
  CheckpointData data;
  const uint64_t metaBytes = in.readValue<uint64_t>("the meta length");
  NS_CHECK(metaBytes <= in.remaining(), "checkpoint {}: the meta length {} exceeds the file", path, metaBytes);
  std::string meta(size_t(metaBytes), '\0');
  in.read(meta.data(), metaBytes, "the meta");
  try {
    data.meta = Json::parse(meta);
  } catch (const Json::exception& e) {
    NS_THROW("checkpoint {}: the meta is not valid JSON: {}", path, e.what());
  }
  if (!withTensors) return data;

  const uint64_t count = in.readValue<uint64_t>("the tensor count");
  NS_CHECK(count <= in.remaining() / 8, "checkpoint {}: the tensor count {} exceeds the file", path, count);
  data.tensors.reserve(size_t(count));
  for (uint64_t t = 0; t < count; ++t) {
    const uint32_t nameBytes = in.readValue<uint32_t>("a tensor name length");
    std::string name(nameBytes, '\0');
    in.read(name.data(), nameBytes, "a tensor name");
    const uint32_t rank = in.readValue<uint32_t>("a tensor rank");
    NS_CHECK(rank <= kMaxRank, "checkpoint {}: tensor '{}' has rank {} (at most {})", path, name, rank, kMaxRank);
    Shape shape(rank);
    uint64_t elements = 1;
    for (auto& d : shape) {
      d = in.readValue<int64_t>("a tensor dimension");
      NS_CHECK(d >= 0, "checkpoint {}: tensor '{}' has a negative dimension {}", path, name, d);
      NS_CHECK(d == 0 || elements <= in.remaining() / uint64_t(d),
               "checkpoint {}: tensor '{}' is larger than the file", path, name);
      elements *= uint64_t(d);
    }
    NS_CHECK(elements <= in.remaining() / sizeof(float), "checkpoint {}: tensor '{}' ({}) is larger than the file",
             path, name, shapeToString(shape));
    Tensor tensor(shape);
    in.read(tensor.data(), elements * sizeof(float), "tensor data");
    data.tensors.emplace_back(std::move(name), std::move(tensor));
  }
  NS_CHECK(in.remaining() == 0, "checkpoint {}: {} unexpected bytes after the last tensor", path, in.remaining());
  return data;
}

}  // namespace

void writeCheckpoint(const std::string& path, const CheckpointData& data) {
  AtomicFileWriter file(path, "checkpoint");
  HashingWriter out(file);
  writeBody(out, data);
  file.commit();
}

Json peekCheckpointMeta(const std::string& path) {
  FilePtr file(std::fopen(path.c_str(), "rb"));
  NS_CHECK(file, "checkpoint {}: cannot open: {}", path, systemError());
  char magic[sizeof(kCheckpointMagic)] = {};
  uint64_t metaBytes = 0;
  NS_CHECK(std::fread(magic, 1, sizeof(magic), file.get()) == sizeof(magic) &&
               std::memcmp(magic, kCheckpointMagic, sizeof(kCheckpointMagic)) == 0 &&
               std::fread(&metaBytes, sizeof(metaBytes), 1, file.get()) == 1 && metaBytes < (uint64_t(1) << 30),
           "checkpoint {}: not a Netsmith checkpoint, or its header is damaged", path);
  std::string meta(size_t(metaBytes), '\0');
  NS_CHECK(std::fread(meta.data(), 1, meta.size(), file.get()) == meta.size(), "checkpoint {}: the file is truncated",
           path);
  try {
    return Json::parse(meta);
  } catch (const Json::exception&) {
    NS_THROW("checkpoint {}: the meta is not valid JSON: the file is damaged", path);
  }
}

std::pair<double, double> checkpointPosition(const Json& meta) {
  const double iteration = meta.at("iteration").get<double>();
  const double batch = meta.contains("logical_batch") && meta["logical_batch"].is_number() ? meta["logical_batch"].get<double>() : 1.0;
  return {meta.at("epoch").get<double>(), iteration * batch};
}

CheckpointData readCheckpoint(const std::string& path) { return readVerified(path, true); }

Json readCheckpointMeta(const std::string& path) { return readVerified(path, false).meta; }

std::optional<std::string> newestValidCheckpoint(const std::string& dir, std::vector<std::string>* rejected,
                                                 const std::string& runId) {
  namespace fs = std::filesystem;
  struct Candidate {
    std::pair<double, double> position;
    std::string path;
  };
  std::vector<Candidate> candidates;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    const std::string name = p.filename().string();
    if (p.extension() != ".ckpt" || name.front() == '.' || !it->is_regular_file(ec)) continue;
    try {
      const Json meta = peekCheckpointMeta(p.string());
      NS_CHECK(meta.is_object() && meta.contains("epoch") && meta["epoch"].is_number() &&
                   meta.contains("iteration") && meta["iteration"].is_number(),
               "checkpoint {}: the meta has no numeric epoch and iteration", p.string());
      const std::string owner = meta.value("run_id", std::string());
      NS_CHECK(runId.empty() || owner == runId, "checkpoint {}: it belongs to {}, not to this folder's run {}",
               p.string(), owner.empty() ? std::string("no run (it has no run id)") : "run " + owner, runId);
      candidates.push_back({checkpointPosition(meta), p.string()});
    } catch (const Error& e) {
      if (rejected) rejected->push_back(e.what());
    }
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    if (a.position != b.position) return a.position > b.position;
    return a.path > b.path;
  });
  for (const auto& c : candidates) {
    try {
      readVerified(c.path, true);
      return c.path;
    } catch (const Error& e) {
      if (rejected) rejected->push_back(e.what());
    }
  }
  return std::nullopt;
}

}  // namespace netsmith
