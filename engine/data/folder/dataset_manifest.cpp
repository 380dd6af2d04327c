// folderDatasetManifest and isFolderDataset.
#include "engine/data/folder/dataset_manifest.h"

#include <fstream>

#include <nlohmann/json.hpp>

#include "engine/core/utf8.h"
#include "engine/data/folder/image_target_choice.h"

namespace netsmith {

namespace {

constexpr const char* kManifestFormat = "netsmith-folder-dataset";

// dir/dataset.json when it is one `dataset create` wrote (its format mark); nullopt otherwise.
std::optional<nlohmann::json> readManifest(const std::filesystem::path& dir) {
  std::ifstream in(dir / kFolderDatasetManifestName);
  if (!in) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (!j.is_object() || !j.contains("format") || j["format"] != kManifestFormat) return std::nullopt;
  return j;
}

}  // namespace

std::string folderDatasetManifest(const FolderDatasetResult& result, const FolderScan& scan) {
  nlohmann::ordered_json manifest;
  manifest["format"] = kManifestFormat;
  manifest["version"] = 1;
  manifest["made_by"] = "netsmith-cli dataset create " NETSMITH_VERSION;
  manifest["source"] = utf8ShowingStrayBytes(scan.source.string());  // JSON is UTF-8; the path is only shown
  manifest["layout"] = scan.layout == FolderLayout::GivenSplit ? "train/" + scan.validationFolder : "class folders";
  manifest["width"] = result.width;
  manifest["height"] = result.height;
  manifest["channels"] = result.channels;
  manifest["resize"] = resizeModeName(result.resize);
  if (scan.layout == FolderLayout::ClassFolders) {
    manifest["validation_percent"] = result.validationPercent;
    manifest["seed"] = result.seed;
  }
  manifest["classes"] = scan.classNames;
  manifest["training"] = result.trainingCount;
  manifest["validation"] = result.validationCount;
  manifest["skipped"] = result.skipped.size();
  manifest["duplicates"] = result.duplicates.size();
  // Class names and everything else are UTF-8 already; replace is a last guard, never an abort.
  return manifest.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::optional<ImageTarget> folderDatasetImageTarget(const std::filesystem::path& dir) {
  const std::optional<nlohmann::json> manifest = readManifest(dir);
  if (!manifest) return std::nullopt;
  const nlohmann::json& j = *manifest;
  // A hand-edited file may hold anything: what is not a number (or a mode) is no rule.
  auto whole = [&](const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_number_integer() && *it > 0 && *it <= kMaxDatasetImageSide ? it->get<int>() : 0;
  };
  ImageTarget t;
  t.width = whole("width");
  t.height = whole("height");
  t.channels = whole("channels");
  const auto resize = j.find("resize");
  const auto mode = resize != j.end() && resize->is_string() ? parseResizeMode(resize->get<std::string>()) : std::nullopt;
  if (t.width <= 0 || t.height <= 0 || (t.channels != 1 && t.channels != 3) || !mode) return std::nullopt;
  t.mode = *mode;
  return t;
}

bool isFolderDataset(const std::filesystem::path& dir) { return readManifest(dir).has_value(); }

}  // namespace netsmith
