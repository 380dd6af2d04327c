// netsmith-test-labels: asan
// Damaged Neural Network Console files given to the nnabla import (read, convert, write as
// `netsmith-cli import` does, in process so that the sanitizers see every byte): every
// truncation of a small .nntxt and of an .nnp, flipped bytes, bad nesting, huge dims and repeat
// counts, an unknown function, ZIP archives with a wrong CRC, sizes or offsets. Each is an
// Error whose message names the file (a truncation that leaves a complete file may import), never
// a crash or another exception, and a failed import writes nothing.
#include <sys/resource.h>

#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>

#include "engine/core/error.h"
#include "engine/import/imported_project.h"
#include "engine/import/nnabla/nnabla_importer.h"
#include "engine/import/nnabla/nnabla_settings.h"
#include "support/nnp_writer.h"

using namespace netsmith;
using namespace netsmith::test;
namespace fs = std::filesystem;

namespace {

// Overwrites `bytes` little-endian bytes at `at`.
void putLittleAt(std::string& s, size_t at, uint64_t v, int bytes = 4) {
  for (int k = 0; k < bytes; ++k) s[at + static_cast<size_t>(k)] = static_cast<char>(v >> (8 * k));
}
uint64_t readLittle(const std::string& s, size_t at, int bytes) {
  uint64_t v = 0;
  for (int k = bytes; k-- > 0;) v = v << 8 | static_cast<unsigned char>(s[at + static_cast<size_t>(k)]);
  return v;
}
// The process's peak resident memory so far.
long peakResidentMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;
}

const char* kNet = R"(training_config {
  max_epoch: 2
}
network {
  name: "Main"
  batch_size: 2
  repeat_info {
    id: "R"
    times: 2
  }
  variable {
    name: "Input"
    type: "Buffer"
    shape: { dim:-1 dim: 2 dim: 4 dim: 4 }
  }
  variable {
    name: "C{R}/conv/W"
    type: "Parameter"
    repeat_id: "R"
    shape: { dim: 2 dim: 2 dim: 3 dim: 3 }
  }
  variable {
    name: "A/affine/W"
    type: "Parameter"
    shape: { dim: 32 dim: 3 }
  }
  variable {
    name: "T"
    type: "Buffer"
    shape: { dim:-1 dim: 1 }
  }
  function {
    name: "RS"
    type: "RepeatStart"
    repeat_id: "R"
    input: "Input"
    input: "C"
    output: "RS"
    repeat_param {
      repeat_id: "R"
    }
  }
  function {
    name: "C"
    type: "Convolution"
    repeat_id: "R"
    input: "RS"
    input: "C{R}/conv/W"
    output: "C"
    convolution_param {
      pad: { dim: 1 dim: 1 }
    }
  }
  function {
    name: "RE"
    type: "RepeatEnd"
    input: "C"
    output: "RE"
    repeat_param {
      repeat_id: "R"
      times: 2
    }
  }
  function {
    name: "A"
    type: "Affine"
    input: "RE"
    input: "A/affine/W"
    output: "A"
  }
  function {
    name: "L"
    type: "SoftmaxCrossEntropy"
    input: "A"
    input: "T"
    output: "L"
  }
}
)";

std::vector<NnpParameter> parameters() {
  return {{"C_0/conv/W", {2, 2, 3, 3}, std::vector<float>(36, 0.5f)},
          {"C_1/conv/W", {2, 2, 3, 3}, std::vector<float>(36, -0.5f)},
          {"A/affine/W", {32, 3}, std::vector<float>(96, 0.25f)}};
}

enum class Outcome { Imported, Refused };

}  // namespace

class NnablaImportFuzzTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  int m_count = 0;

  // Imports `bytes` saved as NAME (its extension chooses the reader) the way the CLI does.
  // Fails the test on anything but success or an Error naming the file, and when a failed
  // import leaves a file behind.
  Outcome importBytes(const std::string& bytes, const std::string& name, const char* expect = nullptr) {
    const std::string folder = m_dir.filePath(QString("case%1").arg(m_count++)).toStdString();
    fs::create_directories(folder);
    const std::string file = folder + "/" + name;
    writeBytes(file, bytes);
    const std::string out = folder + "/out/net.nsproj";
    try {
      const nnabla_import::NnablaFile f = nnabla_import::readNnablaFile(file);
      nnabla_import::NnablaImport imported = nnabla_import::importNnabla(f);
      const nnabla_import::NnablaSettings settings = nnabla_import::mapSettings(f, imported.networkName);
      ImportedProjectOptions options;
      options.projectPath = out;
      options.sourceFile = file;
      options.writeParameters = !f.parameters.empty();
      options.adjust = [&](Project& p) { settings.apply(p); };
      writeImportedProject(imported.network, options);
      return Outcome::Imported;
    } catch (const Error& e) {
      const std::string message = e.what();
      if (message.find(file) == std::string::npos) QTest::qFail(("message does not name the file: " + message).c_str(), __FILE__, __LINE__);
      if (expect && message.find(expect) == std::string::npos)
        QTest::qFail(("expected '" + std::string(expect) + "' in: " + message).c_str(), __FILE__, __LINE__);
      std::error_code ec;
      if (fs::exists(folder + "/out", ec)) QTest::qFail(("a failed import wrote into " + folder + "/out").c_str(), __FILE__, __LINE__);
      return Outcome::Refused;
    } catch (const std::exception& e) {
      QTest::qFail((std::string("not a netsmith::Error: ") + e.what()).c_str(), __FILE__, __LINE__);
      return Outcome::Refused;
    }
  }

 private slots:
  void initTestCase() { QVERIFY(m_dir.isValid()); }

  void intactFilesImport() {
    QVERIFY(importBytes(kNet, "net.nntxt") == Outcome::Imported);
    QVERIFY(importBytes(nnpArchive(kNet, parameters()), "net.nnp") == Outcome::Imported);
  }

  // Every cut of the text: a file ending inside a message, string or value is refused; one that
  // ends between complete sections may import.
  void everyTruncationOfTheText() {
    const std::string text = kNet;
    int refused = 0;
    for (size_t cut = 0; cut < text.size(); ++cut) refused += importBytes(text.substr(0, cut), "net.nntxt") == Outcome::Refused;
    qInfo("%d of %zu truncations refused", refused, text.size());
    QVERIFY(refused > static_cast<int>(text.size()) * 9 / 10);
    QVERIFY(!QTest::currentTestFailed());
  }

  // Every cut of an .nnp loses its end-of-directory record.
  void everyTruncationOfTheArchive() {
    const std::string nnp = nnpArchive(kNet, parameters());
    for (size_t cut = 0; cut < nnp.size(); cut += 1) QVERIFY(importBytes(nnp.substr(0, cut), "net.nnp") == Outcome::Refused);
  }

  void flippedBytes() {
    const std::string text = kNet;
    const char replacements[] = {'{', '}', '"', ':', '\0', '\x01', '\xff', '[', '-', 'x'};
    for (size_t at = 0, k = 0; at < text.size(); at += 7, ++k) {
      std::string damaged = text;
      damaged[at] = replacements[k % sizeof(replacements)];
      importBytes(damaged, "net.nntxt");
    }
    const std::string nnp = nnpArchive(kNet, parameters());
    for (size_t at = 0; at < nnp.size(); at += 3) {
      std::string damaged = nnp;
      damaged[at] = static_cast<char>(damaged[at] ^ 0x5a);
      importBytes(damaged, "net.nnp");
    }
    QVERIFY(!QTest::currentTestFailed());
  }

  void structuralDamage() {
    std::string deep;
    for (int i = 0; i < 100000; ++i) deep += "network {";
    importBytes(deep, "deep.nntxt", "nested more than 64 deep");
    importBytes("network { name: \"Main\" }}", "extra.nntxt", "closes no message");
    importBytes("network {\n  name: \"Main\n}", "string.nntxt", ":2:9: expected the closing \"");
    importBytes("network { name \"Main\" }", "colon.nntxt", "expected ':' or '{'");
    importBytes("netwrk { }", "field.nntxt", "unknown field 'netwrk'");
    std::string huge = kNet;
    huge.replace(huge.find("dim: 32 dim: 3"), 14, "dim: 99999999999999 dim: 3");
    importBytes(huge, "huge.nntxt", "has dimension 99999999999999");
    std::string times = kNet;
    times.replace(times.find("times: 2"), 8, "times: 1000000000");
    importBytes(times, "times.nntxt", "not a repeat count");
    std::string unknown = kNet;
    unknown.replace(unknown.find("type: \"Affine\""), 14, "type: \"ImageAugmentation\"");
    importBytes(unknown, "unknown.nntxt", "function 'A' (type ImageAugmentation): no Netsmith layer computes ImageAugmentation");
    std::string input = kNet;
    input.replace(input.find("dim:-1 dim: 2 dim: 4 dim: 4"), 27, "dim:-1 dim: 3 dim: 4 dim: 4");
    importBytes(input, "shape.nntxt", "function 'C_R_0' (type Convolution)");
    QVERIFY(!QTest::currentTestFailed());
  }

  void damagedArchives() {
    const std::string nnp = nnpArchive(kNet, parameters());
    const size_t directory = nnp.rfind(std::string("PK\x01\x02", 4));
    const size_t end = nnp.rfind(std::string("PK\x05\x06", 4));
    QVERIFY(directory != std::string::npos && end != std::string::npos);
    // The last member (parameter.protobuf): its CRC, then its size, in the central directory.
    std::string crc = nnp;
    crc[directory + 16] = static_cast<char>(crc[directory + 16] ^ 1);
    importBytes(crc, "crc.nnp", "does not match the directory's");
    std::string size = nnp;
    for (int k = 0; k < 4; ++k) size[directory + 24 + k] = '\xff';
    importBytes(size, "size.nnp", "is a ZIP64 member");
    std::string offset = nnp;
    for (int k = 0; k < 4; ++k) offset[directory + 42 + k] = '\x7f';
    importBytes(offset, "offset.nnp", "no local header");
    std::string count = nnp;
    count[end + 10] = count[end + 8] = 60;
    importBytes(count, "count.nnp", "central directory entry");
    importBytes(zipArchive({{"nnp_version.txt", "0.1\n", false}}), "empty.nnp", "no .nntxt network definition");
    importBytes("not a zip at all, but longer than twenty-two bytes", "text.nnp", "not a ZIP archive");
    // parameter.protobuf with a shape claiming more values than it has, and a cut length.
    std::vector<NnpParameter> p = parameters();
    p[2].dims = {1000000, 1000000};
    importBytes(nnpArchive(kNet, p), "claims.nnp", "its shape has 1000000000000 values but the file holds 96");
    std::string cut = parameterProtobuf(parameters());
    cut.resize(cut.size() - 5);
    importBytes(zipArchive({{"network.nntxt", kNet, true}, {"parameter.protobuf", cut, true}}), "cut.nnp", "runs past the end");
    // Parameters of another network.
    p = parameters();
    p[0].name = "Other/conv/W";
    importBytes(nnpArchive(kNet, p), "other.nnp", "none for 'C_0/conv/W'");
    QVERIFY(!QTest::currentTestFailed());
  }

  // Memory bombs: a member that claims 2,000 MiB inflates into what it holds, not into its claim
  // (it took 2.2 GB before failing); a deflate stream of zeros that really inflates to 300 MiB
  // is stopped at the member limit (256 MiB here, 64 times its size for larger files); a ZIP64
  // member is named as one.
  void memoryBombs() {
    // 2 MiB that do not compress, claiming 2,000 MiB (within deflate's ratio of 2 MiB).
    std::string noise(2 << 20, '\0');
    uint32_t state = 12345;
    for (char& c : noise) c = static_cast<char>((state = state * 1664525u + 1013904223u) >> 24);
    std::string claims = zipArchive({{"network.nntxt", kNet, true}, {"parameter.protobuf", noise, true}});
    const size_t directory = claims.rfind(std::string("PK\x01\x02", 4));
    putLittleAt(claims, directory + 24, uint64_t{2000} << 20);
    const long before = peakResidentMiB();
    importBytes(claims, "claims.nnp", "inflates to 2097152 bytes but the directory claims 2097152000");
    QVERIFY2(peakResidentMiB() - before < 500, qPrintable(QString("peak memory grew by %1 MiB").arg(peakResidentMiB() - before)));

    // A real bomb: 300 MiB of zeros in about 300 KB.
    std::string bomb;
    uint32_t crc = 0;
    {
      const std::string zeros(1 << 20, '\0');
      z_stream z{};
      deflateInit2(&z, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY);
      std::string chunk(1 << 16, '\0');
      for (int i = 0; i < 300; ++i) {
        crc = static_cast<uint32_t>(crc32(crc, reinterpret_cast<const Bytef*>(zeros.data()), static_cast<uInt>(zeros.size())));
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(zeros.data()));
        z.avail_in = static_cast<uInt>(zeros.size());
        const int flush = i == 299 ? Z_FINISH : Z_NO_FLUSH;
        do {
          z.next_out = reinterpret_cast<Bytef*>(chunk.data());
          z.avail_out = static_cast<uInt>(chunk.size());
          deflate(&z, flush);
          bomb.append(chunk.data(), chunk.size() - z.avail_out);
        } while (z.avail_out == 0);
      }
      deflateEnd(&z);
    }
    ZipMember member{"parameter.protobuf", "", true, bomb, uint64_t{300} << 20, crc};
    importBytes(zipArchive({{"network.nntxt", kNet, true}, member}), "bomb.nnp",
                "inflate to more than 256 MiB, more than a .nnp member holds");

    // ZIP64: the size fields say 0xffffffff and the extra field holds 10 GiB.
    std::string zip64 = zipArchive({{"network.nntxt", kNet, true}, {"parameter.protobuf", parameterProtobuf(parameters()), true}});
    const size_t entry = zip64.rfind(std::string("PK\x01\x02", 4));
    putLittleAt(zip64, entry + 24, 0xffffffffu);
    const uint16_t nameLength = static_cast<uint16_t>(std::string("parameter.protobuf").size());
    std::string extra;
    putLittle(extra, 1, 2);
    putLittle(extra, 8, 2);
    putLittle(extra, uint64_t{10} << 30, 8);
    zip64.insert(entry + 46 + nameLength, extra);
    putLittleAt(zip64, entry + 30, extra.size(), 2);
    const size_t end = zip64.rfind(std::string("PK\x05\x06", 4));
    putLittleAt(zip64, end + 12, readLittle(zip64, end + 12, 4) + extra.size());
    importBytes(zip64, "zip64.nnp", "member 'parameter.protobuf' is a ZIP64 member of 10737418240 bytes (10 GiB)");
    QVERIFY(!QTest::currentTestFailed());
  }
};

QTEST_GUILESS_MAIN(NnablaImportFuzzTest)
#include "tst_nnabla_import_fuzz.moc"
