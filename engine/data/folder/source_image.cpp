// readSourceImage and convertSourceImage: the per-image work of buildFolderDataset.
#include "engine/data/folder/source_image.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <vector>

#include "engine/core/sha256.h"
#include "engine/data/image/png_writer.h"

namespace fs = std::filesystem;

namespace netsmith {

namespace {

constexpr int kPngCompression = 6;

// Reads a whole file (up to kMaxImageFileBytes) hashing it; false with the reason.
bool readAndHash(const fs::path& path, std::vector<unsigned char>& bytes, std::array<uint8_t, 32>& sha, std::string& why) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    why = "cannot open image file '" + path.string() + "': " + std::strerror(errno);
    return false;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    why = "cannot read image file '" + path.string() + "': not a regular file";
    ::close(fd);
    return false;
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxImageFileBytes) {
    why = "image file '" + path.string() + "' is " + std::to_string(st.st_size >> 20) + " MiB, too large for a dataset image";
    ::close(fd);
    return false;
  }
  bytes.resize(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      why = "cannot read image file '" + path.string() + "': " + std::strerror(errno);
      ::close(fd);
      return false;
    }
    if (n == 0) break;  // shorter than stat said: it changed; hash what is there
    got += static_cast<size_t>(n);
  }
  bytes.resize(got);
  ::close(fd);
  Sha256 h;
  h.update(bytes.data(), bytes.size());
  sha = h.digest();
  return true;
}

// The sample stores hold planes (CHW); images are interleaved (HWC).
void hwcToChw(const Image& image, uint8_t* chw) {
  const size_t plane = static_cast<size_t>(image.width) * image.height;
  const int c = image.channels;
  if (c == 1) {
    std::memcpy(chw, image.pixels.data(), plane);
    return;
  }
  for (size_t i = 0; i < plane; ++i)
    for (int k = 0; k < c; ++k) chw[k * plane + i] = image.pixels[i * c + k];
}

}  // namespace

void readSourceImage(SourceImage& image) {
  std::vector<unsigned char> bytes;
  try {
    image.read = readAndHash(image.candidate->path, bytes, image.sha, image.readError);
    if (image.read) image.headerOk = readImageHeader(bytes.data(), bytes.size(), image.header);
  } catch (const std::exception& e) {
    image.read = false;
    image.readError = "cannot read image file '" + image.candidate->path.string() + "': " + e.what();
  }
}

void convertSourceImage(SourceImage& image, const ImageTarget& target, const fs::path& pngPath, uint8_t* chw,
                        std::string& writeError) {
  writeError.clear();
  try {
    Image decoded;
    ImageDecodeOptions decodeOptions;
    decodeOptions.minWidth = target.width;
    decodeOptions.minHeight = target.height;
    if (!decodeImage(image.candidate->path.string(), decoded, image.decodeError, nullptr, decodeOptions)) return;
    const Image prepared = prepareImage(decoded, target);
    if (!writePngImage(pngPath, prepared, writeError, kPngCompression)) return;
    hwcToChw(prepared, chw);
    image.usable = true;
  } catch (const std::exception& e) {
    image.decodeError = "cannot convert image file '" + image.candidate->path.string() + "': " + e.what();
  }
}

}  // namespace netsmith
