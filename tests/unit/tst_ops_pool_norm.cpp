// MaxPooling, AveragePooling, GlobalAveragePooling and BatchNormalization on the CPU: forward and
// backward against naive loops written here from nnabla's definitions, on random inputs, for
// strides unlike the kernel, padding, ceil mode (ignore_border false), including_pad false, batch
// 1 and 3; BatchNormalization in training (batch statistics, running-statistics update) and
// inference; the shape errors a user can cause.
// netsmith-test-labels: asan

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/core/error.h"
#include "engine/core/rng.h"
#include "engine/op_interface/op_registry.h"

using namespace netsmith;

namespace {

constexpr double kTolerance = 1e-4;

// One layer instantiated on a CPU device, as the graph runner would.
struct Layer {
  const OpSchema* schema = nullptr;
  Json params;
  Shape input;   // per sample
  Shape output;  // per sample
  std::unique_ptr<Kernel> kernel;
};

Layer makeLayer(DeviceContext& device, const std::string& type, const Json& given, const Shape& input) {
  Layer l;
  l.schema = &OpRegistry::builtin().get(type);
  l.params = validateParams(*l.schema, given, "test.params");
  const OpParams params(l.params);
  l.input = input;
  l.output = l.schema->inferShape({input}, params);
  const KernelSetup setup{device, {input}, l.output, params};
  l.kernel = l.schema->kernels.at("cpu")(setup);
  return l;
}

Tensor randomTensor(const Shape& shape, Rng& rng, float lo = -1.0f, float hi = 1.0f) {
  Tensor t(shape);
  for (int64_t i = 0; i < t.size(); ++i) t[i] = rng.uniform(lo, hi);
  return t;
}

// Worst |got - want| / max(1, |want|); NaN and size mismatches count as failures.
double maxError(const Tensor& got, const std::vector<double>& want) {
  if (got.size() != static_cast<int64_t>(want.size())) return std::numeric_limits<double>::infinity();
  double worst = 0.0;
  for (int64_t i = 0; i < got.size(); ++i) {
    const double e = std::fabs(got[i] - want[i]) / std::max(1.0, std::fabs(want[i]));
    if (!(e <= worst)) worst = std::isnan(e) ? std::numeric_limits<double>::infinity() : e;
  }
  return worst;
}

#define CHECK_CLOSE(got, want, what)                                                                    \
  do {                                                                                                  \
    const double err_ = maxError(got, want);                                                            \
    QVERIFY2(err_ <= kTolerance, qPrintable(QString("%1: max error %2").arg(QString::fromStdString(what)) \
                                                .arg(err_)));                                           \
  } while (false)

// ---- Naive pooling, straight from nnabla's max_pooling.cpp / average_pooling.cpp semantics.
struct PoolConfig {
  std::string name;
  Shape input;  // (C, H, W)
  int kh, kw, sh, sw, ph, pw;
  bool ignoreBorder;
};

Json poolParams(const PoolConfig& c) {
  return {{"kernel", {c.kh, c.kw}}, {"stride", {c.sh, c.sw}}, {"pad", {c.ph, c.pw}}, {"ignore_border", c.ignoreBorder}};
}

int64_t poolOut(int64_t in, int k, int s, int p, bool ignoreBorder) {
  return ignoreBorder ? (in + 2 * p - k) / s + 1 : static_cast<int64_t>(std::ceil(double(in + 2 * p) / s));
}

struct PoolReference {
  std::vector<double> y;
  std::vector<double> dx;
};

// mode: 0 max, 1 average including pad, 2 average excluding pad.
PoolReference referencePool(const PoolConfig& c, int mode, int64_t batch, const Tensor& x, const Tensor& dy) {
  const int64_t C = c.input[0], H = c.input[1], W = c.input[2];
  const int64_t OH = poolOut(H, c.kh, c.sh, c.ph, c.ignoreBorder), OW = poolOut(W, c.kw, c.sw, c.pw, c.ignoreBorder);
  PoolReference r;
  r.y.assign(batch * C * OH * OW, 0.0);
  r.dx.assign(batch * C * H * W, 0.0);
  for (int64_t plane = 0; plane < batch * C; ++plane) {
    const float* xp = x.data() + plane * H * W;
    for (int64_t oh = 0; oh < OH; ++oh) {
      for (int64_t ow = 0; ow < OW; ++ow) {
        int64_t h0 = oh * c.sh - c.ph, w0 = ow * c.sw - c.pw;
        int64_t h1 = std::min<int64_t>(h0 + c.kh, H + c.ph), w1 = std::min<int64_t>(w0 + c.kw, W + c.pw);
        int64_t poolSize = (h1 - h0) * (w1 - w0);
        h0 = std::max<int64_t>(h0, 0);
        w0 = std::max<int64_t>(w0, 0);
        h1 = std::min(h1, H);
        w1 = std::min(w1, W);
        if (mode == 2) poolSize = (h1 - h0) * (w1 - w0);
        const int64_t o = plane * OH * OW + oh * OW + ow;
        const double g = dy[o];
        if (mode == 0) {
          int64_t best = h0 * W + w0;
          for (int64_t i = h0; i < h1; ++i)
            for (int64_t j = w0; j < w1; ++j)
              if (xp[i * W + j] > xp[best]) best = i * W + j;
          r.y[o] = xp[best];
          r.dx[plane * H * W + best] += g;
        } else {
          double sum = 0.0;
          for (int64_t i = h0; i < h1; ++i)
            for (int64_t j = w0; j < w1; ++j) {
              sum += xp[i * W + j];
              r.dx[plane * H * W + i * W + j] += g / poolSize;
            }
          r.y[o] = sum / poolSize;
        }
      }
    }
  }
  return r;
}

// Runs forward (training) then backward and compares both with the reference.
void checkPool(DeviceContext& device, const std::string& type, const PoolConfig& c, int mode, Rng& rng) {
  Json params = poolParams(c);
  if (type == "AveragePooling") params["including_pad"] = mode == 1;
  Layer layer = makeLayer(device, type, params, c.input);
  const Shape expected{c.input[0], poolOut(c.input[1], c.kh, c.sh, c.ph, c.ignoreBorder),
                       poolOut(c.input[2], c.kw, c.sw, c.pw, c.ignoreBorder)};
  QVERIFY2(layer.output == expected, qPrintable(QString::fromStdString(c.name + ": output shape " +
                                                                        shapeToString(layer.output))));
  // Batch 3, then 1, then 3 again: the kernel must cope with the batch changing between calls.
  for (int64_t batch : {3, 1, 3}) {
    const std::string what = type + " " + c.name + (mode == 2 ? " (excluding pad)" : "") + " batch " +
                             std::to_string(batch);
    Tensor x = randomTensor(withBatch(batch, c.input), rng);
    Tensor dy = randomTensor(withBatch(batch, layer.output), rng);
    Tensor y(withBatch(batch, layer.output));
    Tensor dx(withBatch(batch, c.input));
    dx.fill(123.0f);  // backward overwrites, never accumulates
    const std::vector<const Tensor*> inputs{&x};
    const std::vector<Tensor*> inputGrads{&dx};
    KernelCall call{.device = device, .inputs = inputs, .params = {}, .output = y, .training = true};
    layer.kernel->forward(call);
    call.outputGrad = &dy;
    call.inputGrads = inputGrads;
    layer.kernel->backward(call);
    const PoolReference ref = referencePool(c, mode, batch, x, dy);
    CHECK_CLOSE(y, ref.y, what + " forward");
    CHECK_CLOSE(dx, ref.dx, what + " backward");
  }
}

const std::vector<PoolConfig>& poolConfigs() {
  static const std::vector<PoolConfig> configs = {
      {"2x2 stride 2 (tiling)", {3, 8, 6}, 2, 2, 2, 2, 0, 0, true},
      {"2x2 stride 2, odd input", {2, 7, 5}, 2, 2, 2, 2, 0, 0, true},
      {"3x3 stride 2 pad 1", {2, 7, 9}, 3, 3, 2, 2, 1, 1, true},
      {"3x3 stride 1 (overlapping)", {2, 6, 5}, 3, 3, 1, 1, 0, 0, true},
      {"3x2 stride (1,2) pad (2,1)", {2, 6, 7}, 3, 2, 1, 2, 2, 1, true},
      {"2x2 stride 2, ignore_border false", {2, 5, 7}, 2, 2, 2, 2, 0, 0, false},
      {"3x3 stride 2 pad 1, ignore_border false", {2, 6, 8}, 3, 3, 2, 2, 1, 1, false},
      {"2x3 stride (1,2) pad (0,1), ignore_border false", {2, 5, 6}, 2, 3, 1, 2, 0, 1, false},
      {"kernel larger than input, ignore_border false", {1, 3, 2}, 4, 4, 4, 4, 0, 0, false},
  };
  return configs;
}

// ---- Naive batch normalization (nnabla's batch_normalization.cpp, in double).
struct BnReference {
  std::vector<double> y, dx, dbeta, dgamma, runningMean, runningVar;
};

BnReference referenceBn(const Tensor& x, const Tensor& dy, const Tensor& beta, const Tensor& gamma,
                        const Tensor& runningMean, const Tensor& runningVar, bool batchStats, double eps, double decay) {
  const int64_t N = x.dim(0), C = beta.size(), S = x.size() / (N * C), M = N * S;
  BnReference r;
  r.y.assign(x.size(), 0.0);
  r.dx.assign(x.size(), 0.0);
  r.dbeta.assign(C, 0.0);
  r.dgamma.assign(C, 0.0);
  r.runningMean.assign(runningMean.data(), runningMean.data() + C);
  r.runningVar.assign(runningVar.data(), runningVar.data() + C);
  const auto at = [&](int64_t n, int64_t c, int64_t s) { return (n * C + c) * S + s; };
  for (int64_t c = 0; c < C; ++c) {
    double mean = runningMean[c], var = runningVar[c];
    if (batchStats) {
      mean = 0.0;
      for (int64_t n = 0; n < N; ++n)
        for (int64_t s = 0; s < S; ++s) mean += x[at(n, c, s)];
      mean /= M;
      var = 0.0;
      for (int64_t n = 0; n < N; ++n)
        for (int64_t s = 0; s < S; ++s) var += (x[at(n, c, s)] - mean) * (x[at(n, c, s)] - mean);
      var /= M;
      r.runningMean[c] = decay * runningMean[c] + (1 - decay) * mean;
      r.runningVar[c] = decay * runningVar[c] + (1 - decay) * var * M / (M > 1 ? M - 1 : 1);
    }
    const double sd = std::sqrt(var + eps);
    double dvar = 0.0, dmean = 0.0, centeredSum = 0.0;
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t s = 0; s < S; ++s) {
        const int64_t i = at(n, c, s);
        r.y[i] = (x[i] - mean) * gamma[c] / sd + beta[c];
        r.dbeta[c] += dy[i];
        r.dgamma[c] += dy[i] * (x[i] - mean) / sd;
        dvar += dy[i] * gamma[c] * (x[i] - mean);
        dmean += dy[i] * gamma[c];
        centeredSum += x[i] - mean;
      }
    }
    dvar *= -0.5 * std::pow(var + eps, -1.5);
    dmean = dmean * (-1.0 / sd) + dvar * -2.0 * centeredSum / M;
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t s = 0; s < S; ++s) {
        const int64_t i = at(n, c, s);
        r.dx[i] = batchStats ? dy[i] * gamma[c] / sd + dvar * 2.0 * (x[i] - mean) / M + dmean / M
                             : dy[i] * gamma[c] / sd;
      }
    }
  }
  return r;
}

std::vector<double> toVector(const Tensor& t) { return std::vector<double>(t.data(), t.data() + t.size()); }

}  // namespace

class TestOpsPoolNorm : public QObject {
  Q_OBJECT

 private:
  CpuDeviceContext m_device{"cpu:0", 2};
  Rng m_rng{20240611};

 private slots:
  void initTestCase() { m_device.bindToCurrentThread(); }

  void schemas() {
    const auto& registry = OpRegistry::builtin();
    for (const char* name : {"MaxPooling", "AveragePooling", "GlobalAveragePooling"}) {
      QCOMPARE(QString::fromStdString(registry.get(name).category), QString("Pooling"));
      QVERIFY(registry.get(name).kernels.count("cpu"));
    }
    const OpSchema& bn = registry.get("BatchNormalization");
    QCOMPARE(QString::fromStdString(bn.category), QString("Normalization"));
    const Json defaults = validateParams(bn, nullptr, "p");
    QCOMPARE(QString::fromStdString(defaults.dump()),
             QString(R"({"axes":[1],"batch_stat":true,"decay_rate":0.9,"eps":1e-05})"));
    const auto blobs = bn.parameterBlobs({{16, 5, 5}}, OpParams(defaults));
    QCOMPARE(blobs.size(), size_t{4});
    const char* names[] = {"beta", "gamma", "mean", "var"};
    const float inits[] = {0.0f, 1.0f, 0.0f, 1.0f};
    const bool trainable[] = {true, true, false, false};
    for (size_t i = 0; i < 4; ++i) {
      QCOMPARE(QString::fromStdString(blobs[i].name), QString(names[i]));
      QVERIFY(blobs[i].shape == Shape{16});
      QCOMPARE(blobs[i].init.a, inits[i]);
      QCOMPARE(blobs[i].trainable, trainable[i]);
    }
    const Json poolDefaults = validateParams(registry.get("AveragePooling"), nullptr, "p");
    QCOMPARE(QString::fromStdString(poolDefaults.dump()),
             QString(R"({"ignore_border":true,"including_pad":true,"kernel":[2,2],"pad":[0,0],"stride":[2,2]})"));
  }

  void maxPooling() {
    for (const auto& c : poolConfigs()) checkPool(m_device, "MaxPooling", c, 0, m_rng);
  }

  void averagePoolingIncludingPad() {
    for (const auto& c : poolConfigs()) checkPool(m_device, "AveragePooling", c, 1, m_rng);
  }

  void averagePoolingExcludingPad() {
    for (const auto& c : poolConfigs()) checkPool(m_device, "AveragePooling", c, 2, m_rng);
  }

  // nnabla's ceil mode on a 5-wide axis with 2-wide windows: 3 outputs, the last over one column.
  void ceilModeShape() {
    Layer l = makeLayer(m_device, "MaxPooling", {{"kernel", {2, 2}}, {"stride", {2, 2}}, {"ignore_border", false}},
                        {4, 5, 5});
    QVERIFY(l.output == (Shape{4, 3, 3}));
    Layer l2 = makeLayer(m_device, "MaxPooling", {{"kernel", {2, 2}}, {"stride", {2, 2}}}, {4, 5, 5});
    QVERIFY(l2.output == (Shape{4, 2, 2}));
  }

  // An inference forward keeps no argmax; a backward after it must still route the gradient.
  void maxPoolingBackwardAfterInference() {
    const PoolConfig c{"3x3 stride 2 pad 1", {2, 7, 9}, 3, 3, 2, 2, 1, 1, true};
    Layer layer = makeLayer(m_device, "MaxPooling", poolParams(c), c.input);
    Tensor x = randomTensor(withBatch(2, c.input), m_rng);
    Tensor dy = randomTensor(withBatch(2, layer.output), m_rng);
    Tensor y(withBatch(2, layer.output)), dx(withBatch(2, c.input));
    const std::vector<const Tensor*> inputs{&x};
    const std::vector<Tensor*> inputGrads{&dx};
    KernelCall call{.device = m_device, .inputs = inputs, .params = {}, .output = y, .training = false};
    layer.kernel->forward(call);
    call.outputGrad = &dy;
    call.inputGrads = inputGrads;
    layer.kernel->backward(call);
    const PoolReference ref = referencePool(c, 0, 2, x, dy);
    CHECK_CLOSE(y, ref.y, std::string("inference forward"));
    CHECK_CLOSE(dx, ref.dx, std::string("backward after inference"));
  }

  void globalAveragePooling() {
    const Shape in{4, 5, 3};
    Layer layer = makeLayer(m_device, "GlobalAveragePooling", nullptr, in);
    QVERIFY(layer.output == (Shape{4, 1, 1}));
    for (int64_t batch : {3, 1}) {
      Tensor x = randomTensor(withBatch(batch, in), m_rng);
      Tensor dy = randomTensor(withBatch(batch, layer.output), m_rng);
      Tensor y(withBatch(batch, layer.output)), dx(withBatch(batch, in));
      const std::vector<const Tensor*> inputs{&x};
      const std::vector<Tensor*> inputGrads{&dx};
      KernelCall call{.device = m_device, .inputs = inputs, .params = {}, .output = y, .training = true};
      layer.kernel->forward(call);
      call.outputGrad = &dy;
      call.inputGrads = inputGrads;
      layer.kernel->backward(call);
      std::vector<double> wantY(batch * 4, 0.0), wantDx(x.size());
      for (int64_t p = 0; p < batch * 4; ++p) {
        for (int64_t i = 0; i < 15; ++i) wantY[p] += x[p * 15 + i] / 15.0;
        for (int64_t i = 0; i < 15; ++i) wantDx[p * 15 + i] = dy[p] / 15.0;
      }
      CHECK_CLOSE(y, wantY, "GlobalAveragePooling forward batch " + std::to_string(batch));
      CHECK_CLOSE(dx, wantDx, "GlobalAveragePooling backward batch " + std::to_string(batch));
    }
  }

  void batchNormalization_data() {
    QTest::addColumn<QString>("shape");
    QTest::addColumn<bool>("training");
    QTest::addColumn<bool>("batchStat");
    QTest::addColumn<int>("batch");
    for (const char* shape : {"chw", "c"}) {
      for (int batch : {3, 1}) {
        const QString s(shape);
        QTest::addRow("%s batch %d training", shape, batch) << s << true << true << batch;
        QTest::addRow("%s batch %d inference", shape, batch) << s << false << true << batch;
        QTest::addRow("%s batch %d training, batch_stat false", shape, batch) << s << true << false << batch;
      }
    }
  }

  void batchNormalization() {
    QFETCH(QString, shape);
    QFETCH(bool, training);
    QFETCH(bool, batchStat);
    QFETCH(int, batch);
    const Shape in = shape == "chw" ? Shape{3, 4, 5} : Shape{6};
    const int64_t C = in[0];
    const double eps = 1e-3, decay = 0.8;
    Layer layer = makeLayer(m_device, "BatchNormalization",
                            {{"eps", eps}, {"decay_rate", decay}, {"batch_stat", batchStat}}, in);
    QVERIFY(layer.output == in);
    // Inputs off-centre and not unit-scaled so the statistics matter; positive running variance.
    Tensor beta = randomTensor({C}, m_rng), gamma = randomTensor({C}, m_rng, 0.5f, 2.0f);
    Tensor mean = randomTensor({C}, m_rng), var = randomTensor({C}, m_rng, 0.5f, 2.0f);
    // Two passes: the second sees the running statistics the first updated.
    for (int pass = 0; pass < 2; ++pass) {
      const std::string what = QTest::currentDataTag() + std::string(" pass ") + std::to_string(pass);
      Tensor x = randomTensor(withBatch(batch, in), m_rng, 1.0f, 4.0f);
      Tensor dy = randomTensor(withBatch(batch, in), m_rng);
      const BnReference ref = referenceBn(x, dy, beta, gamma, mean, var, training && batchStat, eps, decay);
      Tensor y(withBatch(batch, in)), dx(withBatch(batch, in)), dbeta({C}), dgamma({C});
      dx.fill(123.0f);
      dbeta.fill(123.0f);
      dgamma.fill(123.0f);
      const std::vector<const Tensor*> inputs{&x};
      const std::vector<Tensor*> params{&beta, &gamma, &mean, &var};
      const std::vector<Tensor*> inputGrads{&dx};
      const std::vector<Tensor*> paramGrads{&dbeta, &dgamma, nullptr, nullptr};
      KernelCall call{.device = m_device, .inputs = inputs, .params = params, .output = y, .training = training};
      layer.kernel->forward(call);
      CHECK_CLOSE(y, ref.y, what + " forward");
      CHECK_CLOSE(mean, ref.runningMean, what + " running mean");
      CHECK_CLOSE(var, ref.runningVar, what + " running var");
      call.outputGrad = &dy;
      call.inputGrads = inputGrads;
      call.paramGrads = paramGrads;
      layer.kernel->backward(call);
      CHECK_CLOSE(dx, ref.dx, what + " dx");
      CHECK_CLOSE(dbeta, ref.dbeta, what + " dbeta");
      CHECK_CLOSE(dgamma, ref.dgamma, what + " dgamma");
    }
  }

  // The running statistics move by (1 - decay) toward the batch's mean and unbiased variance.
  void batchNormalizationRunningUpdate() {
    Layer layer = makeLayer(m_device, "BatchNormalization", {{"decay_rate", 0.5}}, {1, 1, 2});
    Tensor x({2, 1, 1, 2});
    const float values[] = {1.0f, 3.0f, 5.0f, 7.0f};  // mean 4, biased var 5, unbiased var 20/3
    std::copy(values, values + 4, x.data());
    Tensor beta({1}), gamma({1}), mean({1}), var({1}), y({2, 1, 1, 2});
    beta.fill(0.0f);
    gamma.fill(1.0f);
    mean.fill(0.0f);
    var.fill(1.0f);
    const std::vector<const Tensor*> inputs{&x};
    const std::vector<Tensor*> params{&beta, &gamma, &mean, &var};
    KernelCall call{.device = m_device, .inputs = inputs, .params = params, .output = y, .training = true};
    layer.kernel->forward(call);
    QVERIFY(std::fabs(mean[0] - 2.0f) < 1e-6f);
    QVERIFY(std::fabs(var[0] - (0.5f + 0.5f * 20.0f / 3.0f)) < 1e-5f);
    QVERIFY(std::fabs(y[0] - (1.0f - 4.0f) / std::sqrt(5.0f + 1e-5f)) < 1e-5f);
  }

  // Large, nearly constant activations: the variance must not vanish to rounding.
  void batchNormalizationLargeMean() {
    Layer layer = makeLayer(m_device, "BatchNormalization", nullptr, {2, 6, 6});
    Tensor x = randomTensor({4, 2, 6, 6}, m_rng, 999.0f, 1001.0f);
    Tensor dy = randomTensor({4, 2, 6, 6}, m_rng);
    Tensor beta({2}), gamma({2}), mean({2}), var({2}), y({4, 2, 6, 6});
    beta.fill(0.0f);
    gamma.fill(1.0f);
    mean.fill(0.0f);
    var.fill(1.0f);
    const BnReference ref = referenceBn(x, dy, beta, gamma, mean, var, true, 1e-5, 0.9);
    const std::vector<const Tensor*> inputs{&x};
    const std::vector<Tensor*> params{&beta, &gamma, &mean, &var};
    KernelCall call{.device = m_device, .inputs = inputs, .params = params, .output = y, .training = true};
    layer.kernel->forward(call);
    CHECK_CLOSE(y, ref.y, std::string("large-mean forward"));
    CHECK_CLOSE(var, ref.runningVar, std::string("large-mean running var"));
  }

  void shapeErrors_data() {
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("params");
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("message");
    QTest::newRow("flat input") << "MaxPooling" << "{}" << "512"
                                << "MaxPooling expects a (channels, height, width) input, got 512: pool before "
                                   "the Affine and Flatten layers";
    QTest::newRow("4-D input") << "AveragePooling" << "{}" << "2,3,4,5"
                               << "AveragePooling expects a (channels, height, width) input, got 2,3,4,5: Reshape";
    QTest::newRow("window too large") << "MaxPooling" << R"({"kernel":[5,5]})" << "3,4,8"
                                      << "is larger than the padded input (4 + 2×0 pad) along height";
    QTest::newRow("pad not below kernel") << "AveragePooling" << R"({"kernel":[2,2],"pad":[0,2]})" << "3,8,8"
                                          << "pad 2 along width is not smaller than the kernel (2)";
    QTest::newRow("ceil window in padding") << "MaxPooling"
                                            << R"({"kernel":[2,2],"stride":[1,1],"pad":[1,1],"ignore_border":false})"
                                            << "3,8,8" << "with ignore_border false the last window along height";
    QTest::newRow("global flat") << "GlobalAveragePooling" << "{}" << "10"
                                 << "GlobalAveragePooling expects a (channels, height, width) input, got 10";
    QTest::newRow("bn axes") << "BatchNormalization" << R"({"axes":[2]})" << "3,4,4"
                             << "normalizes over the channel axis only; set axes to [1]";
    QTest::newRow("bn eps") << "BatchNormalization" << R"({"eps":0})" << "3,4,4" << "eps must be greater than 0";
  }

  void shapeErrors() {
    QFETCH(QString, type);
    QFETCH(QString, params);
    QFETCH(QString, input);
    QFETCH(QString, message);
    const OpSchema& schema = OpRegistry::builtin().get(type.toStdString());
    const Json values = validateParams(schema, Json::parse(params.toStdString()), "p");
    Shape shape;
    for (const QString& d : input.split(',')) shape.push_back(d.toLongLong());
    try {
      schema.inferShape({shape}, OpParams(values));
      QFAIL("no error");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains(message), e.what());
    }
  }
};

QTEST_GUILESS_MAIN(TestOpsPoolNorm)
#include "tst_ops_pool_norm.moc"
