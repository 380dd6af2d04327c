// netsmith-cli infer --json (Note [Infer JSON]) on a real run of the named three-class dataset: one
// result per input in the order given, PNG and JPEG images predicted with the run's class names
// and likelihoods that agree with infer's CSV, and an error of its own for a file that is not an
// image, a missing file and an image that does not fit the Input layer, while the others are
// still predicted. A run that cannot be loaded prints {"error"}.
#include <QDir>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/named_dataset.h"
#include "unit/image_test_files.h"

using namespace netsmith;
using Json = nlohmann::json;

class InferJsonTest : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  test::NamedDataset m_data;
  QString m_run;

  static std::vector<std::string> csvCells(const std::string& line) {
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') cells.back() += '"', ++i;
      else if (c == '"') quoted = !quoted;
      else if (c == ',' && !quoted) cells.emplace_back();
      else cells.back() += c;
    }
    return cells;
  }

 private slots:
  void initTestCase() {
    m_data = test::writeNamedDataset(m_dir.filePath("named"));
    m_run = m_dir.filePath("run");
    const test::CliRun train = test::runCli({"train", m_data.project, "--run-dir", m_run, "--quiet"});
    QVERIFY2(train.exitCode == 0, train.stderrText.constData());
  }

  void oneResultPerInput() {
    const QString stripes = m_data.folder + "/png/validation-0.png";   // class 0's pattern
    const QString vertical = m_data.folder + "/png/validation-1.png";  // class 1's pattern
    const QString jpeg = m_dir.filePath("checker.jpg");                // class 2's pattern, as JPEG
    testing::JpegSpec spec;
    spec.width = spec.height = 8;
    spec.components = 1;
    spec.quality = 100;
    QVERIFY(testing::writeJpegFile(jpeg, spec, [](int x, int y, int) { return test::namedPixel(2, 0, x, y); }));
    const QString junk = m_dir.filePath("notes.png");
    testing::writeText(junk, "these are notes, not an image\n");
    const QString large = m_dir.filePath("large.png");
    QVERIFY(testing::writeGrayPng(large, 16, 16));
    const QString missing = m_dir.filePath("missing.png");

    const test::CliRun infer = test::runCli({"infer", m_run, "--input", stripes, vertical, jpeg, junk, large, missing, "--json"});
    QVERIFY2(infer.exitCode == 0, infer.stderrText.constData());
    const Json out = Json::parse(infer.stdoutText.toStdString());
    QCOMPARE(out["classification"].get<bool>(), true);
    QCOMPARE(out["output_head"].get<std::string>(), std::string("softmax"));
    QCOMPARE(out["class_names"].get<std::vector<std::string>>(), m_data.names);
    QCOMPARE(out["input_shape"], Json({1, 8, 8}));
    QCOMPARE(out["predicted"].get<int>(), 4);
    const Json& results = out["results"];
    QCOMPARE(results.size(), size_t{6});
    const QStringList inputs{stripes, vertical, jpeg, junk, large, missing};
    for (size_t i = 0; i < results.size(); ++i)
      QCOMPARE(QString::fromStdString(results[i]["input"].get<std::string>()), inputs[static_cast<int>(i)]);
    for (size_t i = 0; i < 3; ++i) {
      const Json& r = results[i];
      QVERIFY2(!r.contains("error"), r.dump().c_str());
      const auto likelihoods = r["likelihoods"].get<std::vector<double>>();
      QCOMPARE(likelihoods.size(), size_t{3});
      double sum = 0;
      for (double p : likelihoods) sum += p;
      QVERIFY2(std::abs(sum - 1) < 1e-5, r.dump().c_str());
      // The run learnt the patterns: each image is read as its own class, with that class's name.
      QCOMPARE(r["class"].get<int>(), static_cast<int>(i));
      QCOMPARE(r["class_name"].get<std::string>(), m_data.names[i]);
      QVERIFY(likelihoods[i] == *std::max_element(likelihoods.begin(), likelihoods.end()));
    }
    const std::string junkError = results[3]["error"].get<std::string>();
    QVERIFY2(junkError.find(junk.toStdString()) != std::string::npos && junkError.find("not an image") != std::string::npos,
             junkError.c_str());
    // Note [Inference resize]: an image of another size is fitted (it was refused), and says how.
    QVERIFY2(!results[4].contains("error") && results[4].contains("class"), results[4].dump().c_str());
    QCOMPARE(results[4]["shape"], Json({1, 8, 8}));
    QCOMPARE(results[4]["prepared"].get<std::string>(),
             std::string("16x16 gray brought to 8x8 gray (squashed to the Input's size: the training data records no rule)"));
    QVERIFY(!results[0].contains("prepared"));  // one that fits is used as it is
    QVERIFY2(results[5]["error"].get<std::string>().find("does not exist") != std::string::npos, results[5].dump().c_str());

    // The same floats as infer's CSV (9 significant digits read back exactly) for the PNG and JPEG files.
    const test::CliRun csv = test::runCli({"infer", m_run, "--input", stripes, vertical, jpeg});
    QVERIFY2(csv.exitCode == 0, csv.stderrText.constData());
    const QList<QByteArray> lines = csv.stdoutText.trimmed().split('\n');
    QCOMPARE(lines.size(), 4);
    for (int i = 1; i < 4; ++i) {
      const auto cells = csvCells(lines[i].toStdString());
      QCOMPARE(cells.size(), size_t{6});
      QCOMPARE(cells[2], m_data.names[static_cast<size_t>(i - 1)]);
      for (int c = 0; c < 3; ++c)
        QCOMPARE(std::stof(cells[static_cast<size_t>(3 + c)]),
                 results[static_cast<size_t>(i - 1)]["likelihoods"][static_cast<size_t>(c)].get<float>());
    }
  }

  // The rule the training data was made with (dataset.json of `dataset create`) fits the image:
  // cropped, so a wide image's middle is what the network sees, the same values as the same image
  // cropped by hand; and an RGB image for a gray Input is converted.
  void imagesAreFittedByTheTrainingDatasRule() {
    const QString made = m_data.folder + "/dataset.json";
    testing::writeText(made, R"({"format": "netsmith-folder-dataset", "version": 1, "width": 8, "height": 8,
                                 "channels": 1, "resize": "crop"})");
    const QString wide = m_dir.filePath("wide.png");
    const QString middle = m_dir.filePath("middle.png");
    // 24x8: the class-1 pattern in the middle 8 columns, noise at the sides.
    QVERIFY(testing::writePng(wide, 24, 8, PNG_COLOR_TYPE_GRAY, 8, [](int x, int y, int) {
      return x >= 8 && x < 16 ? test::namedPixel(1, 0, x - 8, y) : (x * 37 + y * 11) % 256;
    }));
    QVERIFY(testing::writePng(middle, 8, 8, PNG_COLOR_TYPE_GRAY, 8, [](int x, int y, int) { return test::namedPixel(1, 0, x, y); }));
    const test::CliRun infer = test::runCli({"infer", m_run, "--input", wide, middle, "--json"});
    QFile::remove(made);
    QVERIFY2(infer.exitCode == 0, infer.stderrText.constData());
    const Json out = Json::parse(infer.stdoutText.toStdString());
    const Json& r = out["results"];
    QCOMPARE(r[0]["prepared"].get<std::string>(),
             std::string("24x8 gray brought to 8x8 gray (crop, as the training data's dataset.json says)"));
    QCOMPARE(r[0]["likelihoods"], r[1]["likelihoods"]);
  }

  void nothingUsableOrNoRun() {
    const QString junk = m_dir.filePath("junk.jpg");
    testing::writeText(junk, "\xFF\xD8\xFF but nothing more");
    const test::CliRun none = test::runCli({"infer", m_run, "--input", junk, "--json"});
    QCOMPARE(none.exitCode, 1);
    const Json out = Json::parse(none.stdoutText.toStdString());
    QCOMPARE(out["predicted"].get<int>(), 0);
    QCOMPARE(out["results"].size(), size_t{1});
    QVERIFY2(out["results"][0]["error"].get<std::string>().find(junk.toStdString()) != std::string::npos, out.dump().c_str());

    const test::CliRun noRun = test::runCli({"infer", m_dir.filePath("no-run"), "--input", junk, "--json"});
    QCOMPARE(noRun.exitCode, 1);
    const Json error = Json::parse(noRun.stdoutText.toStdString());
    QVERIFY2(error["error"].get<std::string>().find("no-run") != std::string::npos, error.dump().c_str());
    QCOMPARE(test::runCli({"infer", m_run, "--input", junk, "--json", "--output", m_dir.filePath("x.csv")}).exitCode, 2);
  }
};

QTEST_GUILESS_MAIN(InferJsonTest)
#include "tst_infer_json.moc"
