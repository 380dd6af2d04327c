#include "engine/eval/inference_input.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/core/error.h"
#include "engine/data/csv_reader.h"
#include "engine/data/folder/dataset_manifest.h"
#include "engine/data/image/image.h"
#include "engine/data/npy.h"
#include "engine/data/png_reader.h"

namespace fs = std::filesystem;

namespace netsmith {
namespace {

// Splits one CSV line into cells; quoted cells may hold commas and doubled quotes. Lines with a
// line break inside a quoted cell are not supported here (infer's CSVs are image lists).
std::vector<std::string> splitCsvLine(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cells.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else if (c != '\r') {
      cells.back() += c;
    }
  }
  return cells;
}

std::string quoteCell(const std::string& s) {
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

InferenceImage loadInferenceImage(const std::string& path, double scale) {
  InferenceImage out;
  out.path = path;
  unsigned char head[8] = {};
  size_t got = 0;
  if (std::ifstream in(path, std::ios::binary); in.good() && !fs::is_directory(path)) {
    in.read(reinterpret_cast<char*>(head), sizeof head);
    got = static_cast<size_t>(in.gcount());
  }
  if (detectImageFormat(head, got) == ImageFormat::Png) {
    DecodedImage image;
    if (!decodePng(path, scale, image, out.error)) return out;
    out.shape = {image.channels, image.height, image.width};
    out.colour = image.colorType;
    out.pixels = std::move(image.pixels);
    return out;
  }
  // JPEG, and every other file: decodeImage says in its words what the file is not.
  Image image;
  ImageDecodeInfo info;
  if (!decodeImage(path, image, out.error, &info)) return out;
  out.shape = {image.channels, image.height, image.width};
  out.colour = info.colorType;
  // Note [Image layout]: the decoder's (height, width, channels) bytes become (channels, height, width).
  const size_t plane = static_cast<size_t>(image.width) * static_cast<size_t>(image.height);
  out.pixels.resize(plane * static_cast<size_t>(image.channels));
  for (int c = 0; c < image.channels; ++c)
    for (size_t p = 0; p < plane; ++p)
      out.pixels[static_cast<size_t>(c) * plane + p] =
          static_cast<float>(image.pixels[p * static_cast<size_t>(image.channels) + static_cast<size_t>(c)] * scale);
  return out;
}

std::optional<ImageFit> inferenceImageFit(const Project& project, const Shape& inputShape) {
  if (inputShape.size() != 3 || (inputShape[0] != 1 && inputShape[0] != 3)) return std::nullopt;
  ImageFit fit;
  fit.target.channels = static_cast<int>(inputShape[0]);
  fit.target.height = static_cast<int>(inputShape[1]);
  fit.target.width = static_cast<int>(inputShape[2]);
  fit.rule = "squashed to the Input's size: the training data records no rule";
  const DataSourceSpec& training = project.dataset.training;
  if (training.format == "csv" && !training.csv.empty())
    if (const auto made = folderDatasetImageTarget(fs::path(training.csv).parent_path());
        made && made->width == fit.target.width && made->height == fit.target.height && made->channels == fit.target.channels) {
      fit.target.mode = made->mode;
      fit.rule = format("{}, as the training data's dataset.json says", resizeModeName(made->mode));
    }
  return fit;
}

InferenceImage loadFittedInferenceImage(const std::string& path, double scale, const ImageFit& fit) {
  InferenceImage out = loadInferenceImage(path, scale);
  const Shape wanted{fit.target.channels, fit.target.height, fit.target.width};
  if (!out.error.empty() || out.shape == wanted) return out;
  Image image;
  ImageDecodeInfo info;
  if (!decodeImage(path, image, out.error, &info)) return out;
  const Image fitted = prepareImage(image, fit.target);
  auto describe = [](int w, int h, int c) { return format("{}x{} {}", w, h, c == 1 ? "gray" : "RGB"); };
  out.prepared = format("{} brought to {} ({})", describe(image.width, image.height, image.channels),
                        describe(fitted.width, fitted.height, fitted.channels), fit.rule);
  out.shape = wanted;
  // Note [Image layout]: interleaved (height, width, channels) bytes become (channels, height, width).
  const size_t plane = static_cast<size_t>(fitted.width) * static_cast<size_t>(fitted.height);
  out.pixels.assign(plane * static_cast<size_t>(fitted.channels), 0.0f);
  for (int c = 0; c < fitted.channels; ++c)
    for (size_t p = 0; p < plane; ++p)
      out.pixels[static_cast<size_t>(c) * plane + p] =
          static_cast<float>(fitted.pixels[p * static_cast<size_t>(fitted.channels) + static_cast<size_t>(c)] * scale);
  return out;
}

Dataset loadImageFiles(const std::vector<std::string>& paths, double scale, const std::optional<ImageFit>& fit,
                       std::vector<std::string>& prepared) {
  NS_CHECK(!paths.empty(), "--input: no image files given");
  Dataset d;
  d.source = paths.front();
  d.size = static_cast<int64_t>(paths.size());
  for (const auto& path : paths) {
    InferenceImage image = fit ? loadFittedInferenceImage(path, scale, *fit) : loadInferenceImage(path, scale);
    NS_CHECK(image.error.empty(), "{}", image.error);
    if (!image.prepared.empty()) prepared.push_back(path + ": " + image.prepared);
    if (d.sampleShape.empty()) d.sampleShape = image.shape;
    NS_CHECK(image.shape == d.sampleShape, "{}: the image is {} but {} is {}; every input must have the same shape", path,
             shapeToString(image.shape), paths.front(), shapeToString(d.sampleShape));
    d.features.insert(d.features.end(), image.pixels.begin(), image.pixels.end());
  }
  d.labels.assign(paths.size(), 0.0f);
  return d;
}

Dataset loadInferenceNpy(const std::string& path, double scale, const Shape& inputShape, std::vector<std::string>& names) {
  NpyArray a = readNpy(path);
  NS_CHECK(!a.shape.empty(), "{}: the array is a single number: expected a batch of shape (N, {})", path,
           shapeToString(inputShape));
  const Shape sample(a.shape.begin() + 1, a.shape.end());
  NS_CHECK(a.shape[0] > 0, "{}: the array holds no samples (its shape starts with 0)", path);
  NS_CHECK(numel(sample) == numel(inputShape),
           "{}: each sample of the array is {} ({} values) but the run's Input expects {} ({} values): save the "
           "array with shape (N, {})",
           path, shapeToString(sample), numel(sample), shapeToString(inputShape), numel(inputShape),
           shapeToString(inputShape));
  if (a.integers())
    for (float& v : a.values) v = static_cast<float>(v * scale);
  Dataset d;
  d.source = path;
  d.size = a.shape[0];
  d.sampleShape = inputShape;
  d.features = std::move(a.values);
  d.labels.assign(static_cast<size_t>(d.size), 0.0f);
  names.clear();
  const std::string file = fs::path(path).filename().string();
  for (int64_t i = 0; i < d.size; ++i) names.push_back(format("{}[{}]", file, i));
  return d;
}

Dataset loadInferenceCsv(const std::string& csvPath, double scale, std::vector<std::string>& names) {
  std::ifstream in(csvPath, std::ios::binary);
  NS_CHECK(in.good() && !fs::is_directory(csvPath), "{}: cannot read the CSV file", csvPath);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line != "\r") lines.push_back(line);
  NS_CHECK(!lines.empty(), "{}: the file is empty: expected a header such as 'x:image' and one row per input", csvPath);
  const std::vector<std::string> header = splitCsvLine(lines.front());
  int xColumn = -1;
  bool hasY = false;
  for (size_t i = 0; i < header.size(); ++i) {
    if (!header[i].empty() && header[i][0] == 'x' && xColumn < 0) xColumn = static_cast<int>(i);
    if (!header[i].empty() && header[i][0] == 'y') hasY = true;
  }
  NS_CHECK(xColumn >= 0, "{}: row 1: the header '{}' has no input column (a variable starting with 'x', such as 'x:image')",
           csvPath, lines.front());
  names.clear();
  for (size_t r = 1; r < lines.size(); ++r) {
    const auto cells = splitCsvLine(lines[r]);
    names.push_back(static_cast<size_t>(xColumn) < cells.size() ? cells[static_cast<size_t>(xColumn)] : "");
  }
  if (hasY) return readCsvDataset(csvPath, scale, false);

  // No labels: a copy with a y column of zeros and absolute image paths, read by the dataset
  // reader (so the CSV rules and messages are the dataset's), then removed.
  const fs::path folder = fs::absolute(csvPath).parent_path();
  std::string tmpl = (fs::temp_directory_path() / "netsmith-infer-XXXXXX").string();
  NS_CHECK(mkdtemp(tmpl.data()) != nullptr, "cannot create a temporary folder in {}", fs::temp_directory_path().string());
  const fs::path copy = fs::path(tmpl) / "input.csv";
  {
    std::ofstream out(copy, std::ios::binary);
    std::string headerLine;
    for (size_t i = 0; i < header.size(); ++i) headerLine += (i ? "," : "") + quoteCell(header[i]);
    out << headerLine << ",y\n";
    for (size_t r = 1; r < lines.size(); ++r) {
      auto cells = splitCsvLine(lines[r]);
      for (size_t i = 0; i < cells.size(); ++i) {
        if (static_cast<int>(i) == xColumn && !cells[i].empty() && fs::path(cells[i]).is_relative() &&
            fs::exists(folder / cells[i]))
          cells[i] = (folder / cells[i]).string();
        out << (i ? "," : "") << quoteCell(cells[i]);
      }
      out << ",0\n";
    }
  }
  try {
    Dataset d = readCsvDataset(copy.string(), scale, false);
    fs::remove_all(tmpl);
    d.source = csvPath;
    return d;
  } catch (const Error& e) {
    fs::remove_all(tmpl);
    // The reader names the copy; name the user's file instead.
    std::string message = e.what();
    for (size_t at; (at = message.find(copy.string())) != std::string::npos;) message.replace(at, copy.string().size(), csvPath);
    throw Error(message);
  }
}

}  // namespace netsmith
