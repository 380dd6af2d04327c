#include "engine/data/class_names.h"

#include <fstream>
#include <iterator>
#include <set>

#include "engine/core/atomic_file.h"
#include "engine/core/error.h"

namespace netsmith {

namespace fs = std::filesystem;

fs::path classNamesPathFor(const fs::path& csvPath) { return csvPath.parent_path() / "classes.txt"; }

std::vector<std::string> readClassNames(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  NS_CHECK(in, "cannot open class names file '{}'", path.string());
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  NS_CHECK(!in.bad(), "cannot read class names file '{}'", path.string());
  NS_CHECK(text.size() <= (16u << 20), "class names file '{}' is {} bytes: expected one class name per line",
           path.string(), text.size());
  NS_CHECK(text.find('\0') == std::string::npos, "class names file '{}' is not text (it holds a zero byte)",
           path.string());
  if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
  std::vector<std::string> names;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t first = line.find_first_not_of(" \t");
    const size_t last = line.find_last_not_of(" \t");
    names.push_back(first == std::string::npos ? std::string() : line.substr(first, last - first + 1));
    pos = end + 1;
  }
  while (!names.empty() && names.back().empty()) names.pop_back();
  NS_CHECK(!names.empty(), "class names file '{}' is empty: expected one class name per line, in label order",
           path.string());
  std::set<std::string> seen;
  for (size_t i = 0; i < names.size(); ++i) {
    NS_CHECK(!names[i].empty(), "class names file '{}': line {} is empty: every label 0..{} needs a name",
             path.string(), i + 1, names.size() - 1);
    NS_CHECK(seen.insert(names[i]).second, "class names file '{}': line {}: the name '{}' is given twice",
             path.string(), i + 1, names[i]);
  }
  return names;
}

void writeClassNames(const fs::path& path, const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += n + "\n";
  writeFileAtomically(path, text);
}

}  // namespace netsmith
