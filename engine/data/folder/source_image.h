// One image file of the source as a dataset build sees it, and the work done on each on a worker
// thread: reading (SHA-256 and header) and converting (decode, resize, PNG, CHW sample).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>

#include "engine/data/folder/folder_scan.h"
#include "engine/data/image/resize.h"

namespace netsmith {

struct SourceImage {
  const ImageCandidate* candidate = nullptr;
  // Reading
  std::array<uint8_t, 32> sha{};
  bool read = false;        // bytes read (sha valid)
  bool headerOk = false;
  ImageHeader header;
  std::string readError;    // the file could not be read at all
  int duplicateOf = -1;     // index of the kept item with the same bytes
  // Converting
  std::string output;       // "images/cat/a.png"; empty: not converted (unreadable or a duplicate)
  bool usable = false;
  int64_t sample = -1;      // index in the raw samples file
  std::string decodeError;
  DataSplit split = DataSplit::Training;
};

// Reads the whole file (up to kMaxImageFileBytes), hashes it and reads its header: sets read,
// sha, headerOk and header, or readError with the reason. Never throws (it runs on a worker).
void readSourceImage(SourceImage& image);

// Decodes the file, converts and resizes it to `target`, writes it as a PNG to `pngPath` and its
// samples as CHW bytes to `chw` (target's channels x height x width): sets usable, or decodeError
// when the file does not decode, or `writeError` (cleared first) when the PNG cannot be written:
// the first fails one image, the second the build. Never throws (it runs on a worker).
void convertSourceImage(SourceImage& image, const ImageTarget& target, const std::filesystem::path& pngPath, uint8_t* chw,
                        std::string& writeError);

}  // namespace netsmith
