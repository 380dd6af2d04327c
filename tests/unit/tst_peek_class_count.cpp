// peekClassCount (engine/data/dataset.h): the classes training counts, read from the labels alone
// (what the GUI's DatasetShapeProbe offers the classifier head): it agrees with loadDataSource,
// and a CSV's images are never opened.
#include <QTemporaryDir>
#include <QtTest>

#include <cstdint>
#include <fstream>
#include <vector>

#include "engine/core/error.h"
#include "engine/data/dataset.h"

using namespace netsmith;

namespace {

void writeFile(const QString& path, const std::string& text) {
  std::ofstream out(path.toStdString(), std::ios::binary);
  out << text;
}

// An IDX file of unsigned bytes with dims `dims`.
void writeIdx(const QString& path, std::vector<uint32_t> dims, const std::vector<uint8_t>& values) {
  std::string bytes{0, 0, 0x08, static_cast<char>(dims.size())};
  for (uint32_t d : dims)
    for (int shift : {24, 16, 8, 0}) bytes += static_cast<char>((d >> shift) & 0xff);
  bytes.append(values.begin(), values.end());
  writeFile(path, bytes);
}

}  // namespace

class TestPeekClassCount : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

 private slots:
  void idxLabels() {
    writeIdx(m_dir.filePath("images"), {5, 2, 2}, std::vector<uint8_t>(20, 7));
    writeIdx(m_dir.filePath("labels"), {5}, {0, 4, 1, 2, 4});
    DataSourceSpec spec;
    spec.format = "idx";
    spec.images = m_dir.filePath("images").toStdString();
    spec.labels = m_dir.filePath("labels").toStdString();
    QCOMPARE(peekClassCount(spec), int64_t{5});
    QCOMPARE(loadDataSource(spec, 1.0, "error").numClasses, int64_t{5});
    // Vectors (N, K) are not class indices.
    writeIdx(m_dir.filePath("vectors"), {5, 2}, std::vector<uint8_t>(10, 1));
    spec.labels = m_dir.filePath("vectors").toStdString();
    QCOMPARE(peekClassCount(spec), int64_t{0});
    spec.labels = m_dir.filePath("missing").toStdString();
    QVERIFY_THROWS_EXCEPTION(Error, peekClassCount(spec));
  }

  // The images the rows name do not exist: only the label column is read.
  void csvLabelsWithoutOpeningImages() {
    QDir().mkpath(m_dir.filePath("csv"));
    writeFile(m_dir.filePath("csv/training.csv"), "x:image,y:label\nnone0.png,0\nnone1.png,6\nnone2.png,2\n");
    DataSourceSpec spec;
    spec.format = "csv";
    spec.csv = m_dir.filePath("csv/training.csv").toStdString();
    QCOMPARE(peekClassCount(spec), int64_t{7});
    QVERIFY_THROWS_EXCEPTION(Error, loadDataSource(spec, 1.0, "error"));  // the images are missing
    // classes.txt names more classes than the labels reach: the names count, as in training.
    writeFile(m_dir.filePath("csv/classes.txt"), "a\nb\nc\nd\ne\nf\ng\nh\ni\n");
    QCOMPARE(peekClassCount(spec), int64_t{9});
    // Several label columns are vectors.
    writeFile(m_dir.filePath("csv/vectors.csv"), "x__0,y__0,y__1\n1,0,1\n2,1,0\n");
    spec.csv = m_dir.filePath("csv/vectors.csv").toStdString();
    QCOMPARE(peekClassCount(spec), int64_t{0});
  }

  // A numeric CSV: the count equals what loadDataSource gives, with a class-name column too.
  void csvAgreesWithTheLoader() {
    QDir().mkpath(m_dir.filePath("numbers"));
    writeFile(m_dir.filePath("numbers/data.csv"), "x__0,x__1,y:label,class_name\n0.5,1,0,cat\n1,2,3,dog\n2,2,1,eel\n");
    DataSourceSpec spec;
    spec.format = "csv";
    spec.csv = m_dir.filePath("numbers/data.csv").toStdString();
    const Dataset d = loadDataSource(spec, 1.0, "error");
    QCOMPARE(peekClassCount(spec), std::max<int64_t>(d.numClasses, static_cast<int64_t>(d.classNames.size())));
    QCOMPARE(peekClassCount(spec), int64_t{4});
  }
};

QTEST_GUILESS_MAIN(TestPeekClassCount)
#include "tst_peek_class_count.moc"
