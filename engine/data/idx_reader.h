// IDX files (the MNIST / Fashion-MNIST format), gzip-compressed or raw.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/data/dataset.h"

namespace netsmith {

// The bytes of a file, inflated when it starts with the gzip magic (1f 8b).
struct FileBytes {
  std::vector<uint8_t> data;
  bool gzip = false;
  bool gzipTruncated = false;  // the gzip stream ended before its end marker
};
// `what` names the file in messages ("IDX images file").
FileBytes readFileBytes(const std::string& path, const std::string& what);

// Images: magic 0x00000803 (N,H,W) gives samples {1,H,W}; 2-D (N,D) gives {D}; 1-D (N) gives {1}.
// Labels: 1-D (N) class indices, or 2-D (N,K) vectors. Element types: unsigned/signed byte,
// int16, int32, float32, float64 (big-endian, as the format says).
Dataset readIdxDataset(const std::string& imagesPath, const std::string& labelsPath, double scale);

}  // namespace netsmith
