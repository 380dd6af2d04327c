// A small image dataset whose classes have names (Note [Run class names]): training.csv and
// validation.csv of 8x8 grayscale PNG files in three classes (horizontal stripes, vertical
// stripes, a checkerboard), classes.txt beside them, and a one-layer project that trains on it in
// about a second. Every sixth training image and every fifth validation image carries the pattern
// of the next class, so even a well-trained model has misclassified (worst) samples.
#pragma once

#include <QDir>
#include <QString>
#include <QtTest>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "unit/dataset_test_files.h"

namespace netsmith::test {

struct NamedDataset {
  QString folder;      // holds the CSV files, classes.txt and png/
  QString training;    // training.csv
  QString validation;  // validation.csv
  QString classesFile; // classes.txt
  QString project;     // named.nsproj (beside the CSV files)
  std::vector<std::string> names;
};

// Class names with a comma, quotes and a non-ASCII letter, so every writer must quote and keep UTF-8.
inline std::vector<std::string> kNamedClasses{"T-shirt, top", "Trouser \"wide\"", "Sandale \xC3\xA9"};

// Pixel (x, y) of an image of `pattern` (0, 1, 2), varied by `seed`.
inline int namedPixel(int pattern, int seed, int x, int y) {
  const int on = pattern == 0 ? y % 2 : pattern == 1 ? x % 2 : (x + y) % 2;
  return on * 200 + (seed * 7 + x * 3 + y * 5) % 40;
}

// Writes the dataset into `folder` (created): `perClass` training and perClass / 2 validation
// images per class.
inline NamedDataset writeNamedDataset(const QString& folder, int perClass = 30) {
  NamedDataset d;
  d.folder = folder;
  d.names = kNamedClasses;
  QDir().mkpath(folder + "/png");
  auto writeSet = [&](const QString& csvName, int count, int mislabelEvery) {
    QByteArray csv = "x:image,y:label\n";
    int n = 0;
    for (int i = 0; i < count; ++i)
      for (int c = 0; c < 3; ++c, ++n) {
        const int pattern = n % mislabelEvery == mislabelEvery - 1 ? (c + 1) % 3 : c;
        const QString png = QString("png/%1-%2.png").arg(csvName.section('.', 0, 0)).arg(n);
        if (!netsmith::testing::writePng(folder + "/" + png, 8, 8, PNG_COLOR_TYPE_GRAY, 8,
                                         [&](int x, int y, int) { return namedPixel(pattern, n, x, y); }))
          qFatal("cannot write %s", qPrintable(png));
        csv += png.toUtf8() + "," + QByteArray::number(c) + "\n";
      }
    netsmith::testing::writeText(folder + "/" + csvName, csv);
    return folder + "/" + csvName;
  };
  d.training = writeSet("training.csv", perClass, 6);
  d.validation = writeSet("validation.csv", std::max(perClass / 2, 1), 5);
  d.classesFile = folder + "/classes.txt";
  QByteArray names;
  for (const auto& n : d.names) names += QByteArray::fromStdString(n) + "\n";
  netsmith::testing::writeText(d.classesFile, names);

  const nlohmann::json project = {
      {"format", "netsmith-project"},
      {"version", 1},
      {"name", "Named classes"},
      {"network",
       {{"nodes",
         {{{"id", "x"}, {"type", "Input"}, {"params", {{"shape", {1, 8, 8}}}}},
          {{"id", "fc"}, {"type", "Affine"}, {"params", {{"n_outmaps", {3}}}}},
          {{"id", "loss"}, {"type", "SoftmaxCrossEntropy"}}}},
        {"links", {{{"from", "x"}, {"to", "fc"}}, {{"from", "fc"}, {"to", "loss"}}}}}},
      {"dataset",
       {{"training", {{"format", "csv"}, {"csv", "training.csv"}}},
        {"validation", {{"format", "csv"}, {"csv", "validation.csv"}}},
        {"scale", 1.0 / 255},
        {"shuffle", true}}},
      {"config", {{"max_epoch", 3}, {"batch_size", 16}, {"seed", 1}}},
      {"optimizer", {{"solver", "Momentum"}, {"lr", 0.05}, {"momentum", 0.9}}},
      {"parallel", {{"devices", {"cpu:0"}}}}};
  d.project = folder + "/named.nsproj";
  netsmith::testing::writeText(d.project, QByteArray::fromStdString(project.dump(1)));
  return d;
}

}  // namespace netsmith::test
