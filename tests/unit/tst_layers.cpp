// Note [Layers] (docs/layers.md): every #include under engine/ and gui/ points to the file's own
// folder or to a folder on a lower floor, and every source folder has a floor. The checker is
// also run on small trees made here, so that an upward, a sideways and an unplaced include are
// each shown to fail it.
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

// Folder → floor, read from the ```layers block of docs/layers.md ("N: folder folder ...").
struct Layers {
  std::map<std::string, int> floorOf;
  std::string error;  // why the list could not be read; empty when it could
};

Layers readLayers(const fs::path& file) {
  Layers layers;
  std::ifstream in(file);
  if (!in) {
    layers.error = file.string() + ": cannot be read";
    return layers;
  }
  std::string line;
  bool inBlock = false;
  int lineNumber = 0;
  while (std::getline(in, line)) {
    ++lineNumber;
    if (!inBlock) {
      inBlock = line == "```layers";
      continue;
    }
    if (line == "```") return layers;
    const auto colon = line.find(':');
    int floor = 0;
    try {
      floor = colon == std::string::npos ? 0 : std::stoi(line.substr(0, colon));
    } catch (const std::exception&) {
      floor = 0;
    }
    if (floor < 1) {
      layers.error = file.string() + ":" + std::to_string(lineNumber) + ": expected 'N: folder folder ...', got '" + line + "'";
      return layers;
    }
    std::istringstream folders(line.substr(colon + 1));
    std::string folder;
    while (folders >> folder) layers.floorOf[folder] = floor;
  }
  layers.error = file.string() + ": no ```layers block closed by ```";
  return layers;
}

// The listed folder a path belongs to: the longest one that is the path or a folder above it.
std::string folderOf(const Layers& layers, const std::string& path) {
  std::string best;
  for (const auto& [folder, floor] : layers.floorOf)
    if ((path == folder || path.rfind(folder + "/", 0) == 0) && folder.size() > best.size()) best = folder;
  return best;
}

bool isSource(const fs::path& p) {
  static const std::vector<std::string> kinds = {".h", ".cpp", ".cu", ".cuh", ".in"};
  return std::find(kinds.begin(), kinds.end(), p.extension().string()) != kinds.end();
}

// Every include of a file under engine/ or gui/ of `root` that breaks the floors, one line each:
// "engine/core/a.h:3: includes engine/train/b.h: engine/core (floor 1) may not include
// engine/train (floor 10)".
std::vector<std::string> layerViolations(const fs::path& root, const Layers& layers) {
  static const std::regex include(R"(^\s*#\s*include\s+"((engine|gui)/[^"]+)\")");
  std::vector<std::string> out;
  for (const char* top : {"engine", "gui"}) {
    if (!fs::is_directory(root / top)) continue;
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(root / top))
      if (entry.is_regular_file() && isSource(entry.path())) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      const std::string path = fs::relative(file, root).generic_string();
      const std::string from = folderOf(layers, path);
      if (from.empty()) {
        out.push_back(path + ": its folder has no floor in docs/layers.md (place the folder there)");
        continue;
      }
      std::ifstream in(file);
      std::string line;
      int lineNumber = 0;
      std::smatch m;
      while (std::getline(in, line)) {
        ++lineNumber;
        if (!std::regex_search(line, m, include)) continue;
        const std::string target = m[1].str();
        const std::string to = folderOf(layers, target);
        const std::string where = path + ":" + std::to_string(lineNumber) + ": includes " + target + ": ";
        if (to.empty()) {
          out.push_back(where + "its folder has no floor in docs/layers.md");
          continue;
        }
        if (to == from) continue;
        const int fromFloor = layers.floorOf.at(from), toFloor = layers.floorOf.at(to);
        if (toFloor >= fromFloor)
          out.push_back(where + from + " (floor " + std::to_string(fromFloor) + ") may not include " + to + " (floor " +
                        std::to_string(toFloor) + (toFloor == fromFloor ? ", the same floor)" : ", above it)"));
      }
    }
  }
  return out;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += "\n  " + l;
  return s;
}

void writeFile(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

}  // namespace

class TestLayers : public QObject {
  Q_OBJECT

 private slots:
  void theSourceTreeKeepsItsFloors() {
    const fs::path root = NETSMITH_SOURCE_DIR;
    const Layers layers = readLayers(root / "docs" / "layers.md");
    QVERIFY2(layers.error.empty(), layers.error.c_str());
    const auto violations = layerViolations(root, layers);
    QVERIFY2(violations.empty(), ("includes against Note [Layers] (docs/layers.md):" + joined(violations)).c_str());
  }

  // A floor that names a folder that is gone would let the list rot.
  void everyListedFolderExists() {
    const fs::path root = NETSMITH_SOURCE_DIR;
    const Layers layers = readLayers(root / "docs" / "layers.md");
    QVERIFY2(layers.error.empty(), layers.error.c_str());
    QVERIFY(layers.floorOf.size() > 10);
    for (const auto& [folder, floor] : layers.floorOf)
      QVERIFY2(fs::is_directory(root / folder), ("docs/layers.md lists " + folder + ", which does not exist").c_str());
  }

  // The checker itself: a tree with one include of each kind.
  void upwardSidewaysAndUnplacedIncludesFail() {
    QTemporaryDir tmp;
    const fs::path root = tmp.path().toStdString();
    writeFile(root / "docs/layers.md",
              "# Layers\n\n```layers\n1: engine/core\n2: engine/data engine/optim\n3: engine/train\n```\n");
    writeFile(root / "engine/core/error.h", "#pragma once\n");
    writeFile(root / "engine/core/tensor.h", "#pragma once\n#include \"engine/core/error.h\"\n#include <vector>\n");
    writeFile(root / "engine/data/dataset.h", "#pragma once\n#include \"engine/core/tensor.h\"\n");
    writeFile(root / "engine/optim/solver.h", "#pragma once\n#include \"engine/core/tensor.h\"\n");
    writeFile(root / "engine/train/trainer.cpp",
              "#include \"engine/data/dataset.h\"\n#include \"engine/optim/solver.h\"\n");
    const Layers layers = readLayers(root / "docs/layers.md");
    QVERIFY2(layers.error.empty(), layers.error.c_str());
    QVERIFY2(layerViolations(root, layers).empty(), joined(layerViolations(root, layers)).c_str());

    // Up: the ground floor reaches for the trainer.
    writeFile(root / "engine/core/tensor.h",
              "#pragma once\n#include \"engine/core/error.h\"\n#include \"engine/train/trainer.h\"\n");
    writeFile(root / "engine/train/trainer.h", "#pragma once\n");
    // Sideways: two folders of one floor.
    writeFile(root / "engine/data/augment.cpp", "#include \"engine/optim/solver.h\"\n");
    // A folder without a floor.
    writeFile(root / "engine/studies/study.cpp", "#include \"engine/core/error.h\"\n");
    const auto violations = layerViolations(root, layers);
    QCOMPARE(violations.size(), size_t(3));
    QCOMPARE(QString::fromStdString(violations[0]),
             QString("engine/core/tensor.h:3: includes engine/train/trainer.h: engine/core (floor 1) may not include "
                     "engine/train (floor 3, above it)"));
    QCOMPARE(QString::fromStdString(violations[1]),
             QString("engine/data/augment.cpp:1: includes engine/optim/solver.h: engine/data (floor 2) may not include "
                     "engine/optim (floor 2, the same floor)"));
    QCOMPARE(QString::fromStdString(violations[2]),
             QString("engine/studies/study.cpp: its folder has no floor in docs/layers.md (place the folder there)"));
  }

  void aDamagedListIsAnErrorNamingItsLine() {
    QTemporaryDir tmp;
    const fs::path root = tmp.path().toStdString();
    writeFile(root / "docs/layers.md", "```layers\n1: engine/core\nengine/data\n```\n");
    QCOMPARE(QString::fromStdString(readLayers(root / "docs/layers.md").error),
             QString::fromStdString((root / "docs/layers.md").string() +
                                    ":3: expected 'N: folder folder ...', got 'engine/data'"));
    writeFile(root / "docs/layers.md", "```layers\n1: engine/core\n");
    QVERIFY(readLayers(root / "docs/layers.md").error.find("no ```layers block") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TestLayers)
#include "tst_layers.moc"
