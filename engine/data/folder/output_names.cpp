// assignOutputNames.
#include "engine/data/folder/output_names.h"

#include <cctype>
#include <set>
#include <string>
#include <utility>

#include "engine/core/utf8.h"

namespace netsmith {

namespace {

// `name` with the characters a dataset CSV cannot give back as written ('\\', line breaks) as '_'.
std::string readsBack(std::string name) {
  for (char& ch : name)
    if (ch == '\\' || ch == '\n' || ch == '\r') ch = '_';
  return name;
}

}  // namespace

void assignOutputNames(std::vector<SourceImage>& images, const FolderScan& scan) {
  std::set<std::string> used;
  auto base = [&](const SourceImage& it) {
    const ImageCandidate& c = *it.candidate;
    // Output names are UTF-8 (they reach the CSVs, and from there JSON): a source name that is not
    // keeps its odd bytes read as Latin-1; a name taken twice that way gets a suffix below.
    // They must also read back as written: the CSV reader takes '\\' for '/' (datasets made on
    // Windows), and a line break would split the row for many tools, so both become '_'.
    const std::string inClass = readsBack(utf8ReadingStrayBytesAsLatin1(c.inClass));
    std::string prefix = "images/";
    if (scan.layout == FolderLayout::GivenSplit)
      prefix += (c.split == DataSplit::Training ? scan.trainingFolder : scan.validationFolder) + "/";
    prefix += readsBack(scan.classNames[c.label]) + "/";
    const auto slash = inClass.rfind('/');
    const auto dot = inClass.rfind('.');
    const std::string stem = dot == std::string::npos || (slash != std::string::npos && dot < slash) ? inClass
                                                                                                     : inClass.substr(0, dot);
    const std::string ext = dot == std::string::npos ? "" : inClass.substr(dot + 1);
    return std::make_pair(prefix + stem, ext);
  };
  auto lowerExt = [](std::string e) {
    for (char& ch : e) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return e;
  };
  // .png sources first keep their own names, then the others.
  for (int round = 0; round < 2; ++round)
    for (SourceImage& it : images) {
      if (it.duplicateOf >= 0 || !it.readError.empty()) continue;
      const auto [stem, ext] = base(it);
      const bool png = lowerExt(ext) == "png";
      if ((round == 0) != png) continue;
      std::string name = stem + ".png";
      if (used.count(name)) name = stem + "_" + lowerExt(ext) + ".png";
      for (int k = 2; used.count(name); ++k) name = stem + "_" + lowerExt(ext) + "_" + std::to_string(k) + ".png";
      used.insert(name);
      it.output = name;
    }
}

}  // namespace netsmith
