// netsmith-cli infer with NumPy arrays (Note [NumPy arrays]) on a real run of the named
// three-class dataset: a float32 batch (N, 1, 8, 8) of the scaled pixels and a uint8 batch of the
// raw pixels give the likelihoods infer gives for the same images as PNG files; --output Y.npy
// holds them as a float32 (N, 3) array; --json reads an array too; an array whose samples do not
// fit the Input is refused naming the file and the shapes.
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <nlohmann/json.hpp>

#include "engine/data/npy.h"
#include "support/cli_runner.h"
#include "support/named_dataset.h"
#include "unit/image_test_files.h"

using namespace netsmith;
using Json = nlohmann::json;

class InferNpyTest : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  test::NamedDataset m_data;
  QString m_run;

  // The likelihood columns of infer's CSV output, one row per input: the last three cells (the
  // class names before them hold commas and quotes).
  static std::vector<std::vector<float>> csvLikelihoods(const QByteArray& text) {
    std::vector<std::vector<float>> rows;
    const QList<QByteArray> lines = text.trimmed().split('\n');
    for (int i = 1; i < lines.size(); ++i) {
      const QList<QByteArray> cells = lines[i].split(',');
      std::vector<float> row;
      for (int c = static_cast<int>(cells.size()) - 3; c < cells.size(); ++c) row.push_back(cells[c].toFloat());
      rows.push_back(row);
    }
    return rows;
  }

 private slots:
  void initTestCase() {
    m_data = test::writeNamedDataset(m_dir.filePath("named"));
    m_run = m_dir.filePath("run");
    const test::CliRun train = test::runCli({"train", m_data.project, "--run-dir", m_run, "--quiet"});
    QVERIFY2(train.exitCode == 0, train.stderrText.constData());
  }

  void arraysGiveTheImagesPredictions() {
    // Three 8x8 images, one per class pattern, as PNG files and as the two kinds of array.
    QStringList pngs;
    std::vector<float> scaled;
    std::vector<uint8_t> raw;
    for (int c = 0; c < 3; ++c) {
      auto pixel = [c](int x, int y, int) { return test::namedPixel(c, 0, x, y); };
      testing::PngSpec spec;
      spec.width = spec.height = 8;
      spec.colorType = PNG_COLOR_TYPE_GRAY;
      pngs << m_dir.filePath(QString("class%1.png").arg(c));
      QVERIFY(testing::writePngFile(pngs.back(), spec, pixel));
      for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 8; ++x) {
          raw.push_back(static_cast<uint8_t>(pixel(x, y, 0)));
          scaled.push_back(static_cast<float>(pixel(x, y, 0) / 255.0));
        }
    }
    const QString floats = m_dir.filePath("batch.npy"), bytes = m_dir.filePath("bytes.npy");
    writeNpy(floats.toStdString(), std::vector<int64_t>{3, 1, 8, 8}, scaled);
    // uint8 by hand: our writer writes float32 only.
    {
      std::string header = "{'descr': '|u1', 'fortran_order': False, 'shape': (3, 64), }";
      header.append(128 - 10 - header.size() - 1, ' ');
      header += '\n';
      std::vector<uint8_t> file{0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<uint8_t>(header.size()), 0};
      file.insert(file.end(), header.begin(), header.end());
      file.insert(file.end(), raw.begin(), raw.end());
      QVERIFY(testing::writeFileBytes(bytes, file));
    }

    const test::CliRun images = test::runCli({"infer", m_run, "--input", pngs[0], pngs[1], pngs[2]});
    QVERIFY2(images.exitCode == 0, images.stderrText.constData());
    const auto expected = csvLikelihoods(images.stdoutText);
    QCOMPARE(expected.size(), size_t{3});

    for (const QString& input : {floats, bytes}) {
      const test::CliRun csv = test::runCli({"infer", m_run, "--input", input});
      QVERIFY2(csv.exitCode == 0, csv.stderrText.constData());
      QVERIFY2(csv.stdoutText.contains(QFileInfo(input).fileName().toUtf8() + "[2]"), csv.stdoutText.constData());
      const auto got = csvLikelihoods(csv.stdoutText);
      QCOMPARE(got.size(), size_t{3});
      for (size_t i = 0; i < 3; ++i)
        for (size_t k = 0; k < 3; ++k) QVERIFY2(std::abs(got[i][k] - expected[i][k]) < 1e-5, csv.stdoutText.constData());
    }

    const QString out = m_dir.filePath("likelihoods.npy");
    const test::CliRun npy = test::runCli({"infer", m_run, "--input", floats, "--output", out});
    QVERIFY2(npy.exitCode == 0, npy.stderrText.constData());
    const NpyArray y = readNpy(out.toStdString());
    QCOMPARE(y.shape, (std::vector<int64_t>{3, 3}));
    QCOMPARE(y.descr, std::string("<f4"));
    for (size_t i = 0; i < 3; ++i) {
      float sum = 0;
      for (size_t k = 0; k < 3; ++k) {
        QVERIFY2(std::abs(y.values[i * 3 + k] - expected[i][k]) < 1e-5,
                 qPrintable(QString("row %1 class %2: %3 in the array, %4 in the CSV").arg(i).arg(k).arg(y.values[i * 3 + k]).arg(expected[i][k])));
        sum += y.values[i * 3 + k];
      }
      QVERIFY(std::abs(sum - 1) < 1e-5);
      QCOMPARE(std::max_element(y.values.begin() + static_cast<long>(i * 3), y.values.begin() + static_cast<long>(i * 3 + 3)) -
                   (y.values.begin() + static_cast<long>(i * 3)),
               static_cast<long>(i));  // each pattern read as its own class
    }

    const test::CliRun json = test::runCli({"infer", m_run, "--input", floats, "--json"});
    QVERIFY2(json.exitCode == 0, json.stderrText.constData());
    const Json j = Json::parse(json.stdoutText.toStdString());
    QCOMPARE(j["predicted"].get<int>(), 3);
    QCOMPARE(j["results"][1]["class_name"].get<std::string>(), m_data.names[1]);
  }

  void arraysThatDoNotFitAreRefused() {
    const QString wrong = m_dir.filePath("wrong.npy");
    writeNpy(wrong.toStdString(), std::vector<int64_t>{2, 3, 8, 8}, std::vector<float>(2 * 3 * 64));
    const test::CliRun r = test::runCli({"infer", m_run, "--input", wrong});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.stderrText.contains("wrong.npy") && r.stderrText.contains("3,8,8 (192 values)") &&
                 r.stderrText.contains("1,8,8 (64 values)"),
             r.stderrText.constData());
    const QString cut = m_dir.filePath("cut.npy");
    const std::string good = npyBytes(std::vector<int64_t>{2, 1, 8, 8}, std::vector<float>(128));
    QVERIFY(testing::writeFileBytes(cut, std::vector<uint8_t>(good.begin(), good.begin() + 200)));
    const test::CliRun c = test::runCli({"infer", m_run, "--input", cut});
    QCOMPARE(c.exitCode, 1);
    QVERIFY2(c.stderrText.contains("cut.npy") && c.stderrText.contains("cut short"), c.stderrText.constData());
    QCOMPARE(test::runCli({"infer", m_run, "--input", cut, cut}).exitCode, 2);
  }
};

QTEST_GUILESS_MAIN(InferNpyTest)
#include "tst_infer_npy.moc"
