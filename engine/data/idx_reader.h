// IDX files (the MNIST / Fashion-MNIST format), gzip-compressed or raw.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "engine/data/dataset.h"

namespace netsmith {

// A growable byte array that does not zero what it allocates (a decompressed training set is
// tens of MB, written once right after allocation) and grows with realloc, which large blocks
// do by remapping pages rather than copying.
class ByteBuffer {
 public:
  void resize(size_t n);
  size_t size() const { return m_size; }
  uint8_t* data() { return m_data.get(); }
  const uint8_t* data() const { return m_data.get(); }
  uint8_t operator[](size_t i) const { return m_data.get()[i]; }

 private:
  struct FreeDeleter {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, FreeDeleter> m_data;
  size_t m_size = 0;
};

// The bytes of a file, inflated when it starts with the gzip magic (1f 8b).
struct FileBytes {
  ByteBuffer data;
  bool gzip = false;
  bool gzipTruncated = false;  // the gzip stream ended before its end marker
};
// `what` names the file in messages ("IDX images file").
FileBytes readFileBytes(const std::string& path, const std::string& what);

// Images: magic 0x00000803 (N,H,W) gives samples {1,H,W}; 2-D (N,D) gives {D}; 1-D (N) gives {1}.
// Labels: 1-D (N) class indices, or 2-D (N,K) vectors. Element types: unsigned/signed byte,
// int16, int32, float32, float64 (big-endian, as the format says).
// skipBadRows: samples whose 1-D label is not a class index are left out and listed in one
// warning instead of stopping the load.
Dataset readIdxDataset(const std::string& imagesPath, const std::string& labelsPath, double scale,
                       bool skipBadRows = false);

// The classes of an IDX labels file as readIdxDataset counts them (the largest class label + 1;
// labels that are not class indices are passed over, as on_error "skip" leaves them out), without
// the images; 0 for a 2-D labels file (vectors). Throws Error as readIdxDataset does.
int64_t readIdxClassCount(const std::string& labelsPath);

// The sample shape of an IDX images file (gzip or raw) from its header alone, as readIdxDataset
// would give it: for a quick check of a project's Input shape without reading the data.
Shape readIdxSampleShape(const std::string& imagesPath);

}  // namespace netsmith
