// Writing an Image (Note [Image layout]) as an 8-bit PNG file with libpng.
#pragma once

#include <filesystem>
#include <string>

#include "engine/data/image/image.h"

namespace netsmith {

// Writes `image` (1 channel: 8-bit gray; 3: 8-bit RGB) to `path`, creating or replacing the file
// (not atomically: callers build inside a folder of their own). zlib `compressionLevel` 0..9.
// Returns false with a one-line reason naming the file in `error` ("cannot write PNG '<path>':
// No space left on device"); a half-written file is removed. Safe to call from several threads
// at once for different files (no shared state).
bool writePngImage(const std::filesystem::path& path, const Image& image, std::string& error, int compressionLevel = 6);

}  // namespace netsmith
