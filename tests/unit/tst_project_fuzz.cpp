// netsmith-test-labels: asan
// Mutated sample projects (seeded, 1,000 cases): every parse either succeeds or throws
// netsmith::Error. Any other exception, a crash (ASan) or a case that hangs fails the test.
#include <QtTest>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "engine/core/error.h"
#include "engine/core/rng.h"
#include "engine/project/project_io.h"

using namespace netsmith;

namespace {

constexpr int kCases = 1000;
constexpr auto kCaseLimit = std::chrono::seconds(5);     // a case slower than this fails
constexpr auto kHangLimit = std::chrono::seconds(60);    // a case still running after this aborts the run

std::string readSample(const char* name) {
  std::ifstream in(std::string(NETSMITH_SOURCE_DIR) + "/projects/" + name, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every value in the document, by JSON pointer (the root excluded).
void collectPointers(const Json& v, const Json::json_pointer& at, std::vector<Json::json_pointer>& out) {
  if (v.is_object()) {
    for (const auto& [key, child] : v.items()) {
      out.push_back(at / key);
      collectPointers(child, at / key, out);
    }
  } else if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i) {
      out.push_back(at / i);
      collectPointers(v[i], at / i, out);
    }
  }
}

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : m_rng(seed) {}

  size_t below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(m_rng.below(n)); }
  bool chance(int percent) { return below(100) < static_cast<size_t>(percent); }

  Json randomValue(int depth = 0) {
    switch (below(depth > 2 ? 12 : 14)) {
      case 0: return nullptr;
      case 1: return chance(50);
      case 2: return static_cast<int64_t>(below(200)) - 100;
      case 3: return m_rng.uniform(-10, 10);
      case 4: return hugeNumber();
      case 5: return std::string("cpu:") + std::to_string(below(4));
      case 6: return randomWord();
      case 7: return "${DATASETS}/" + randomWord();
      case 8: return "";
      case 9: return Json::array({static_cast<int64_t>(below(8)), static_cast<int64_t>(below(8))});
      case 10: return pickName();
      case 11: return static_cast<int64_t>(below(3));
      case 12: {
        Json a = Json::array();
        for (size_t i = below(4); i > 0; --i) a.push_back(randomValue(depth + 1));
        return a;
      }
      default: {
        Json o = Json::object();
        for (size_t i = below(4); i > 0; --i) o[pickName()] = randomValue(depth + 1);
        return o;
      }
    }
  }

  Json hugeNumber() {
    switch (below(7)) {
      case 0: return 1e308;
      case 1: return -1e308;
      case 2: return std::numeric_limits<uint64_t>::max();
      case 3: return std::numeric_limits<int64_t>::min();
      case 4: return 9007199254740993.0;
      case 5: return 4.9e-324;
      default: return std::numeric_limits<int64_t>::max();
    }
  }

  std::string randomWord() {
    std::string s;
    for (size_t i = below(12); i > 0; --i) s += static_cast<char>('a' + below(26));
    return s;
  }

  // Names that mean something somewhere in a project, so mutations reach deep checks.
  std::string pickName() {
    static const std::vector<std::string> names{
        "id", "type", "params", "pos", "from", "to", "port", "nodes", "links", "format", "images", "labels", "csv",
        "training", "validation", "scale", "shuffle", "on_error", "max_epoch", "batch_size", "seed", "precision",
        "solver", "lr", "alpha", "momentum", "devices", "worker_load", "lr_policy", "timeout_s", "kernel",
        "outmaps", "n_outmaps", "shape", "pad", "stride", "Input", "Convolution", "ReLU", "Affine", "Add2",
        "SoftmaxCrossEntropy", "BatchNormalization", "MaxPooling", "x", "conv1", "loss", "idx", "half", "Adam"};
    return names[below(names.size())];
  }

  // One in-memory mutation of `doc`; returns what it did.
  std::string mutateJson(Json& doc) {
    std::vector<Json::json_pointer> pointers;
    collectPointers(doc, Json::json_pointer(), pointers);
    if (pointers.empty()) return "empty";
    const Json::json_pointer at = pointers[below(pointers.size())];
    switch (below(7)) {
      case 0: {  // delete a key or element
        Json& parent = doc.at(at.parent_pointer());
        if (parent.is_array()) parent.erase(std::stoul(at.back()));
        else parent.erase(at.back());
        return "delete " + at.to_string();
      }
      case 1:  // change the type
        doc.at(at) = randomValue();
        return "replace " + at.to_string();
      case 2: {  // swap two values
        const Json::json_pointer other = pointers[below(pointers.size())];
        Json a = doc.at(at), b = doc.at(other);
        if (at.to_string().rfind(other.to_string(), 0) == 0 || other.to_string().rfind(at.to_string(), 0) == 0)
          return "swap skipped";
        doc.at(at) = std::move(b);
        doc.at(other) = std::move(a);
        return "swap " + at.to_string() + " " + other.to_string();
      }
      case 3:  // a huge or tiny number
        doc.at(at) = hugeNumber();
        return "huge " + at.to_string();
      case 4: {  // nesting in memory, sometimes past the depth limit
        Json v = doc.at(at);
        for (size_t i = 1 + below(100); i > 0; --i) v = Json::array({std::move(v)});
        doc.at(at) = std::move(v);
        return "nest " + at.to_string();
      }
      case 5: {  // an extra key
        Json& target = doc.at(at);
        if (target.is_object()) target[pickName() + (chance(50) ? "" : "_")] = randomValue();
        else if (target.is_array()) target.push_back(randomValue());
        return "add at " + at.to_string();
      }
      default: {  // duplicate an array element (duplicate node ids, devices, links)
        Json& parent = doc.at(at.parent_pointer());
        Json copy = doc.at(at);  // not a reference into `parent`, which push_back may move
        if (parent.is_array()) parent.push_back(std::move(copy));
        return "duplicate " + at.to_string();
      }
    }
  }

  // One text-level mutation.
  std::string mutateText(std::string& text) {
    switch (below(5)) {
      case 0:
        text.resize(below(text.size()));
        return "truncate";
      case 1:
        if (text.empty()) return "random bytes skipped";
        for (size_t i = 1 + below(8); i > 0; --i) text[below(text.size())] = static_cast<char>(below(256));
        return "random bytes";
      case 2: {  // deep nesting in text, up to far past any recursion limit
        const size_t depth = chance(50) ? 1 + below(100) : 1000 + below(200000);
        const size_t at = text.find(": ", below(text.size()));
        if (at == std::string::npos) return "nest skipped";
        text.insert(at + 2, std::string(depth, '[') + "1" + std::string(depth, ']') + ", \"k\": ");
        return "nest text";
      }
      case 3: {  // delete a span
        const size_t at = below(text.size());
        text.erase(at, below(40));
        return "erase span";
      }
      default: {  // a number grown to hundreds of digits
        const size_t at = text.find_first_of("0123456789", below(text.size()));
        if (at == std::string::npos) return "digits skipped";
        text.insert(at, std::string(1 + below(400), '9'));
        return "long number";
      }
    }
  }

 private:
  Rng m_rng;
};

// Aborts the process when one case runs far too long (a hang cannot be failed from its thread).
class Watchdog {
 public:
  Watchdog()
      : m_thread([this] {
          std::unique_lock lock(m_mutex);
          while (!m_stop) {
            m_wake.wait_for(lock, std::chrono::milliseconds(200));
            if (m_running && std::chrono::steady_clock::now() - m_started > kHangLimit) {
              std::fprintf(stderr, "tst_project_fuzz: case %d (%s) hangs; aborting\n", m_case, m_what.c_str());
              std::abort();
            }
          }
        }) {}
  ~Watchdog() {
    {
      std::lock_guard lock(m_mutex);
      m_stop = true;
    }
    m_wake.notify_all();
    m_thread.join();
  }
  void begin(int index, const std::string& what) {
    std::lock_guard lock(m_mutex);
    m_case = index;
    m_what = what;
    m_started = std::chrono::steady_clock::now();
    m_running = true;
  }
  void end() {
    std::lock_guard lock(m_mutex);
    m_running = false;
  }

 private:
  std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  bool m_running = false;
  int m_case = 0;
  std::string m_what;
  std::chrono::steady_clock::time_point m_started;
  std::thread m_thread;
};

}  // namespace

class TestProjectFuzz : public QObject {
  Q_OBJECT

 private slots:
  void mutatedSamples() {
    const std::vector<std::string> samples{readSample("fashion_mnist_lenet.nsproj"), readSample("fashion_mnist_mlp.nsproj"),
                                           readSample("fashion_mnist_resnet.nsproj")};
    for (const auto& s : samples) QVERIFY(!s.empty());
    Mutator mutator(20240611);
    Watchdog watchdog;
    int accepted = 0, rejected = 0;
    for (int i = 0; i < kCases; ++i) {
      const std::string& sample = samples[i % samples.size()];
      std::string what;
      std::string text;
      Json doc;
      const bool textLevel = mutator.chance(40);
      if (textLevel) {
        text = sample;
        for (size_t k = 1 + mutator.below(2); k > 0; --k) what += mutator.mutateText(text) + "; ";
      } else {
        doc = Json::parse(sample);
        for (size_t k = 1 + mutator.below(3); k > 0; --k) what += mutator.mutateJson(doc) + "; ";
      }
      const std::string label = "case " + std::to_string(i) + (textLevel ? " (text): " : " (json): ") + what;
      watchdog.begin(i, label);
      const auto start = std::chrono::steady_clock::now();
      try {
        if (textLevel) parseProjectText(text, "/fuzz/p.nsproj");
        else parseProject(doc, "/fuzz/p.nsproj");
        ++accepted;
      } catch (const Error&) {
        ++rejected;
      } catch (const std::exception& e) {
        watchdog.end();
        QFAIL(qPrintable(QString::fromStdString(label + ": threw a non-netsmith exception: " + e.what())));
      } catch (...) {
        watchdog.end();
        QFAIL(qPrintable(QString::fromStdString(label + ": threw something that is not an exception")));
      }
      watchdog.end();
      const auto took = std::chrono::steady_clock::now() - start;
      QVERIFY2(took < kCaseLimit, qPrintable(QString::fromStdString(label + ": too slow")));
    }
    qInfo("%d accepted, %d rejected", accepted, rejected);
    QCOMPARE(accepted + rejected, kCases);
    QVERIFY(rejected > kCases / 2);  // the mutations do reach the checks
  }
};

QTEST_GUILESS_MAIN(TestProjectFuzz)
#include "tst_project_fuzz.moc"
