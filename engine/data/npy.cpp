#include "engine/data/npy.h"

#include <bit>
#include <cctype>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>

#include "engine/core/atomic_file.h"
#include "engine/core/error.h"

namespace netsmith {

namespace {

constexpr unsigned char kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr size_t kMaxHeaderBytes = 1 << 20;  // NumPy itself refuses headers over 10,000 bytes by default
constexpr int64_t kMaxValues = int64_t{1} << 34;

static_assert(std::endian::native == std::endian::little, "the .npy reader assumes a little-endian host");

// A tiny reader of the header's dict literal: only what NumPy writes (strings, True/False,
// tuples of integers), with the position in the header for messages.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& path) : m_text(text), m_path(path) {}

  void skipSpace() {
    while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos]))) ++m_pos;
  }
  bool accept(char c) {
    skipSpace();
    if (m_pos < m_text.size() && m_text[m_pos] == c) return ++m_pos, true;
    return false;
  }
  void expect(char c, const char* what) {
    if (!accept(c)) fail(format("expected {} ('{}')", what, c));
  }
  std::string string() {
    skipSpace();
    if (m_pos >= m_text.size() || (m_text[m_pos] != '\'' && m_text[m_pos] != '"')) fail("expected a quoted string");
    const char quote = m_text[m_pos++];
    const size_t end = m_text.find(quote, m_pos);
    if (end == std::string_view::npos) fail("a string is not closed");
    std::string s(m_text.substr(m_pos, end - m_pos));
    m_pos = end + 1;
    return s;
  }
  bool boolean() {
    skipSpace();
    for (const auto& [word, value] : {std::pair{"True", true}, std::pair{"False", false}})
      if (m_text.substr(m_pos).starts_with(word)) {
        m_pos += std::strlen(word);
        return value;
      }
    fail("expected True or False");
  }
  int64_t integer() {
    skipSpace();
    const size_t start = m_pos;
    int64_t v = 0;
    while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos]))) {
      if (v > (std::numeric_limits<int64_t>::max() - 9) / 10) fail("a dimension is too large");
      v = v * 10 + (m_text[m_pos++] - '0');
    }
    if (m_pos == start) fail("expected a non-negative integer dimension");
    accept('L');  // Python 2's long suffix, as old NumPy wrote it
    return v;
  }
  std::vector<int64_t> shape() {
    expect('(', "a tuple for 'shape'");
    std::vector<int64_t> dims;
    while (!accept(')')) {
      dims.push_back(integer());
      if (dims.size() > 32) fail("more than 32 dimensions");
      if (!accept(',')) {
        expect(')', "',' or ')' in 'shape'");
        break;
      }
    }
    return dims;
  }
  bool atEnd() {
    skipSpace();
    return m_pos >= m_text.size();
  }
  [[noreturn]] void fail(const std::string& what) const {
    NS_THROW("{}: the .npy header {} at character {}: {}", m_path, what, m_pos + 1, excerpt());
  }

 private:
  std::string excerpt() const {
    std::string s(m_text.substr(0, 120));
    for (char& c : s)
      if (!std::isprint(static_cast<unsigned char>(c))) c = '?';
    return "\"" + s + (m_text.size() > 120 ? "...\"" : "\"");
  }
  std::string_view m_text;
  const std::string& m_path;
  size_t m_pos = 0;
};

struct ElementType {
  const char* descr;
  size_t bytes;
  float (*read)(const unsigned char*);
};

template <typename T>
float readAs(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return static_cast<float>(v);
}

constexpr ElementType kTypes[] = {
    {"<f4", 4, readAs<float>},   {"<f8", 8, readAs<double>}, {"<i4", 4, readAs<int32_t>},
    {"<i8", 8, readAs<int64_t>}, {"|u1", 1, readAs<uint8_t>}, {"<u1", 1, readAs<uint8_t>},
    {"|i1", 1, readAs<int8_t>},
};

uint32_t littleEndian(const unsigned char* p, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

NpyArray parseNpy(std::span<const unsigned char> bytes, const std::string& path) {
  NS_CHECK(bytes.size() >= 10 && std::memcmp(bytes.data(), kMagic, sizeof kMagic) == 0,
           "{}: not a NumPy .npy file (it does not start with \"\\x93NUMPY\"; {} bytes)", path, bytes.size());
  const int major = bytes[6], minor = bytes[7];
  NS_CHECK((major == 1 || major == 2 || major == 3) && minor == 0,
           "{}: .npy format version {}.{} is not one we read (1.0, 2.0, 3.0)", path, major, minor);
  const int lengthBytes = major == 1 ? 2 : 4;
  NS_CHECK(bytes.size() >= static_cast<size_t>(8 + lengthBytes), "{}: the .npy file ends inside its header length", path);
  const size_t headerLength = littleEndian(bytes.data() + 8, lengthBytes);
  const size_t dataStart = 8 + static_cast<size_t>(lengthBytes) + headerLength;
  NS_CHECK(headerLength <= kMaxHeaderBytes, "{}: the .npy header says it is {} bytes long, more than {}", path,
           headerLength, kMaxHeaderBytes);
  NS_CHECK(bytes.size() >= dataStart, "{}: the .npy file ends inside its header ({} of {} bytes)", path, bytes.size(),
           dataStart);
  const std::string_view header(reinterpret_cast<const char*>(bytes.data()) + 8 + lengthBytes, headerLength);

  HeaderParser h(header, path);
  std::optional<std::string> descr;
  std::optional<bool> fortran;
  std::optional<std::vector<int64_t>> shape;
  h.expect('{', "a dict");
  while (!h.accept('}')) {
    const std::string key = h.string();
    h.expect(':', "':' after a key");
    if (key == "descr") descr = h.string();
    else if (key == "fortran_order") fortran = h.boolean();
    else if (key == "shape") shape = h.shape();
    else h.fail(format("has a key '{}' (expected 'descr', 'fortran_order' and 'shape')", key));
    if (!h.accept(',')) {
      h.expect('}', "',' or '}'");
      break;
    }
  }
  NS_CHECK(h.atEnd(), "{}: the .npy header has text after its dict", path);
  NS_CHECK(descr && fortran && shape, "{}: the .npy header lacks '{}'", path,
           !descr ? "descr" : !fortran ? "fortran_order" : "shape");
  const ElementType* type = nullptr;
  for (const ElementType& t : kTypes)
    if (*descr == t.descr) type = &t;
  NS_CHECK(type, "{}: the array's element type '{}' is not one we read: save it as float32 ('<f4'), float64, int32, "
           "int64 or uint8 (little-endian), e.g. numpy.save(path, x.astype(numpy.float32))", path, *descr);
  NS_CHECK(!*fortran, "{}: the array is in Fortran order: save it in C order (numpy.ascontiguousarray(x))", path);

  int64_t count = 1;
  for (int64_t d : *shape) {
    NS_CHECK(d == 0 || count <= kMaxValues / d, "{}: the array's shape is too large ({} values or more)", path, kMaxValues);
    count *= d;
  }
  const uint64_t expected = static_cast<uint64_t>(count) * type->bytes;
  const uint64_t have = bytes.size() - dataStart;
  NS_CHECK(have == expected, "{}: the array's shape and type need {} bytes of data, the file has {}{}", path, expected,
           have, have < expected ? " (the file was cut short)" : "");
  NpyArray out;
  out.shape = *shape;
  out.descr = *descr;
  out.values.resize(static_cast<size_t>(count));
  const unsigned char* p = bytes.data() + dataStart;
  for (size_t i = 0; i < out.values.size(); ++i) out.values[i] = type->read(p + i * type->bytes);
  return out;
}

NpyArray readNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  NS_CHECK(in.good(), "{}: cannot open the .npy file: {}", path, std::strerror(errno));
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  NS_CHECK(!in.bad(), "{}: cannot read the .npy file", path);
  return parseNpy(bytes, path);
}

std::string npyBytes(std::span<const int64_t> shape, std::span<const float> values) {
  std::string dims;
  for (int64_t d : shape) dims += std::to_string(d) + ",";
  if (shape.size() > 1) dims.pop_back();  // (3,) for one dimension, (2,3) for more, () for none
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
  // Magic (6) + version (2) + length (2) + header + '\n', padded to a multiple of 64.
  const size_t total = (10 + header.size() + 1 + 63) / 64 * 64;
  header.append(total - 10 - header.size() - 1, ' ');
  header += '\n';
  std::string out(reinterpret_cast<const char*>(kMagic), sizeof kMagic);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(reinterpret_cast<const char*>(values.data()), values.size_bytes());
  return out;
}

void writeNpy(const std::string& path, std::span<const int64_t> shape, std::span<const float> values) {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  NS_CHECK(count == static_cast<int64_t>(values.size()), "{}: {} values do not fill an array of {} values", path,
           values.size(), count);
  writeFileAtomically(path, npyBytes(shape, values));
}

}  // namespace netsmith
