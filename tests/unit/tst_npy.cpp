// netsmith-test-labels: asan
// NumPy .npy arrays (Note [NumPy arrays]): what we write NumPy reads back and the other way round,
// the element types we convert, and damaged files: every cut of a file and every header byte
// replaced give a netsmith::Error naming the file, never a crash or a wrong array.
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <cstring>

#include "engine/core/error.h"
#include "engine/data/npy.h"

using namespace netsmith;

namespace {

std::span<const unsigned char> span(const std::string& s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

// A file by hand: version 1.0, `header` padded as NumPy pads it, then `data`.
std::string handMade(std::string header, const std::string& data, int major = 1) {
  const size_t lengthBytes = major == 1 ? 2 : 4;
  const size_t total = (8 + lengthBytes + header.size() + 1 + 63) / 64 * 64;
  header.append(total - 8 - lengthBytes - header.size() - 1, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  for (size_t i = 0; i < lengthBytes; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

template <typename T>
std::string rawBytes(std::initializer_list<T> values) {
  std::string s;
  for (T v : values) s.append(reinterpret_cast<const char*>(&v), sizeof v);
  return s;
}

// Debian's python3 with NumPy (python3-torch depends on it), or empty.
QString numpyPython() {
  for (const QString& py : {QStringLiteral("/usr/bin/python3"), QStandardPaths::findExecutable("python3")}) {
    if (py.isEmpty()) continue;
    QProcess p;
    p.start(py, {"-c", "import numpy"});
    if (p.waitForFinished(60000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0) return py;
  }
  return {};
}

}  // namespace

class TestNpy : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

 private slots:
  void roundTrip() {
    const std::vector<int64_t> shape{2, 1, 2, 3};
    std::vector<float> values(12);
    for (size_t i = 0; i < values.size(); ++i) values[i] = 0.25f * static_cast<float>(i) - 1.0f;
    const std::string path = m_dir.filePath("x.npy").toStdString();
    writeNpy(path, shape, values);
    const NpyArray back = readNpy(path);
    QCOMPARE(back.shape, shape);
    QCOMPARE(back.values, values);
    const std::string bytes = npyBytes(shape, values);
    QCOMPARE((bytes.size() - values.size() * 4) % 64, size_t{0});  // the data starts 64-aligned
    // One dimension is written "(3,)" as Python spells a 1-tuple, a scalar "()".
    QVERIFY(npyBytes(std::vector<int64_t>{3}, std::vector<float>{1, 2, 3}).find("(3,)") != std::string::npos);
    QCOMPARE(parseNpy(span(npyBytes({}, std::vector<float>{7}) ), "s").values, std::vector<float>{7});
    QVERIFY_THROWS_EXCEPTION(Error, writeNpy(path, shape, std::vector<float>(5)));
  }

  void elementTypesAreConverted() {
    QCOMPARE(parseNpy(span(handMade("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", rawBytes<double>({1.5, -2}))), "f8").values,
             (std::vector<float>{1.5f, -2.0f}));
    QCOMPARE(parseNpy(span(handMade("{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }", std::string("\x00\x80\xff", 3))), "u1").values,
             (std::vector<float>{0, 128, 255}));
    QCOMPARE(parseNpy(span(handMade("{'descr': '<i8', 'fortran_order': False, 'shape': (1, 2), }", rawBytes<int64_t>({-3, 40}))), "i8").values,
             (std::vector<float>{-3, 40}));
    QCOMPARE(parseNpy(span(handMade("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", rawBytes<int32_t>({7, -9}))), "i4").values,
             (std::vector<float>{7, -9}));
    // Versions 2.0 and 3.0 have a 4-byte header length.
    const NpyArray v2 = parseNpy(span(handMade("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", rawBytes<float>({1, 2}), 2)), "v2");
    QCOMPARE(v2.values, (std::vector<float>{1, 2}));
    // An empty batch is an array too.
    QCOMPARE(parseNpy(span(handMade("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }", "")), "e").shape,
             (std::vector<int64_t>{0, 3}));
  }

  // Arrays NumPy wrote are read, ours are read by NumPy (Debian's python3-numpy).
  void numpyAgrees() {
    const QString py = numpyPython();
    if (py.isEmpty()) QSKIP("python3 with NumPy is not installed (python3-numpy)");
    const QString theirs = m_dir.filePath("numpy.npy"), ours = m_dir.filePath("ours.npy");
    writeNpy(ours.toStdString(), std::vector<int64_t>{2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6.5f});
    QProcess p;
    p.start(py, {"-c",
                 "import numpy, sys\n"
                 "numpy.save(sys.argv[1], numpy.arange(24, dtype=numpy.float64).reshape(2, 3, 4) / 8)\n"
                 "a = numpy.load(sys.argv[2])\n"
                 "assert a.dtype == numpy.float32 and a.shape == (2, 3), (a.dtype, a.shape)\n"
                 "assert a.tolist() == [[1, 2, 3], [4, 5, 6.5]], a.tolist()\n",
                 theirs, ours});
    QVERIFY(p.waitForFinished(60000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    const NpyArray a = readNpy(theirs.toStdString());
    QCOMPARE(a.shape, (std::vector<int64_t>{2, 3, 4}));
    for (int i = 0; i < 24; ++i) QCOMPARE(a.values[i], i / 8.0f);
  }

  void refusedWithTheReason_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");
    auto add = [](const char* name, const std::string& b, const char* expected) {
      QTest::newRow(name) << QByteArray(b.data(), static_cast<qsizetype>(b.size())) << QString(expected);
    };
    const std::string f4 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
    add("empty", "", "not a NumPy .npy file");
    add("text", "x,y\n1,2\n", "not a NumPy .npy file");
    add("version 9", [&] { std::string s = handMade(f4, rawBytes<float>({1, 2})); s[6] = 9; return s; }(), "version 9.0");
    add("big-endian", handMade("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", rawBytes<float>({1, 2})), "'>f4'");
    add("object", handMade("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", rawBytes<float>({1, 2})), "'|O'");
    add("fortran", handMade("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", rawBytes<float>({1, 2})), "Fortran order");
    add("short data", handMade(f4, rawBytes<float>({1})), "cut short");
    add("long data", handMade(f4, rawBytes<float>({1, 2, 3})), "the file has 12");
    add("huge shape", handMade("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }", ""), "too large");
    add("overflowing dim", handMade("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }", ""), "too large");
    add("negative dim", handMade("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", ""), "non-negative");
    add("missing shape", handMade("{'descr': '<f4', 'fortran_order': False, }", ""), "lacks 'shape'");
    add("unknown key", handMade("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1, }", ""), "key 'x'");
    add("not a dict", handMade("['<f4', False, (2,)]", ""), "expected a dict");
    add("open string", handMade("{'descr: '<f4'", ""), "");
    add("header past the end", std::string("\x93NUMPY\x01\x00\xff\x7f{", 11), "ends inside its header");
  }
  void refusedWithTheReason() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    const std::string path = m_dir.filePath("bad.npy").toStdString();
    try {
      parseNpy({reinterpret_cast<const unsigned char*>(bytes.constData()), static_cast<size_t>(bytes.size())}, path);
      QFAIL("parsed");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).startsWith(QString::fromStdString(path)), e.what());
      QVERIFY2(QString(e.what()).contains(expected), e.what());
    }
  }

  // Every cut of a good file and every header byte replaced by a few others: an Error that names
  // the file, or (for a harmless change such as a space) the same array; never a crash.
  void damagedFilesNeverCrash() {
    const std::string good = npyBytes(std::vector<int64_t>{2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6});
    const std::string path = "damaged.npy";
    int refused = 0, same = 0;
    auto check = [&](const std::string& bytes) {
      try {
        const NpyArray a = parseNpy(span(bytes), path);
        QVERIFY(a.values.size() <= 6 || a.values.size() == bytes.size() - 64);
        ++same;
      } catch (const Error& e) {
        QVERIFY2(std::string(e.what()).starts_with(path + ":"), e.what());
        ++refused;
      }
    };
    for (size_t cut = 0; cut < good.size(); ++cut) check(good.substr(0, cut));
    for (size_t i = 0; i < 64; ++i)
      for (char c : {'\0', ' ', 'x', '}', '9', ',', '(', '\'', '\xff'}) {
        std::string bytes = good;
        bytes[i] = c;
        check(bytes);
      }
    QCOMPARE(refused + same, static_cast<int>(good.size()) + 64 * 9);
    QVERIFY(refused > static_cast<int>(good.size()));  // every cut at least
    QVERIFY_THROWS_EXCEPTION(Error, readNpy(m_dir.filePath("absent.npy").toStdString()));
  }
};

QTEST_GUILESS_MAIN(TestNpy)
#include "tst_npy.moc"
