// Class names of a dataset: classes.txt, one name per line in label order.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace netsmith {

// DIR/training.csv -> DIR/classes.txt (the file `netsmith-cli dataset create` writes).
std::filesystem::path classNamesPathFor(const std::filesystem::path& csvPath);

// Reads classes.txt: one name per line (surrounding spaces and a trailing '\r' removed, a UTF-8
// byte order mark ignored, blank lines at the end ignored). Throws Error naming the file and
// line for an empty name in the middle, a repeated name, or a file that is not text.
std::vector<std::string> readClassNames(const std::filesystem::path& path);

// Writes `names` one per line, atomically.
void writeClassNames(const std::filesystem::path& path, const std::vector<std::string>& names);

}  // namespace netsmith
