// LayerNormalization, InstanceNormalization and GroupNormalization (Note [Row normalization]):
// values against the closed form, per-sample statistics (a sample's output does not depend on the
// rest of the batch, training or not), the identities between them (GroupNormalization with one
// group per channel is InstanceNormalization; with one group it is LayerNormalization with
// per-channel parameters), accuracy when the mean is large against the spread, the parameter
// blobs nnabla's options give, and the errors for settings they cannot take. Their gradients are
// checked by tst_op_gradients from the examples in their folders.
#include <QtTest>

#include <cmath>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/core/error.h"
#include "engine/op_interface/op_registry.h"

using namespace netsmith;

namespace {

struct Run {
  std::vector<ParamBlob> blobs;
  Tensor output;
};

// Forward of `op` with `params` on a batch `x` (N, sample...); blob b filled by fill(b, i).
template <typename Fill>
Run forward(const std::string& op, const Json& given, const Tensor& x, Fill fill, bool training = true) {
  const OpSchema& schema = OpRegistry::builtin().get(op);
  const Json params = validateParams(schema, given, "params");
  const OpParams p(params);
  const Shape sample(x.shape().begin() + 1, x.shape().end());
  const Shape out = schema.inferShape({sample}, p);
  Run r;
  r.blobs = schema.parameterBlobs({sample}, p);
  std::vector<Tensor> blobs;
  for (size_t b = 0; b < r.blobs.size(); ++b) {
    Tensor& t = blobs.emplace_back(r.blobs[b].shape);
    for (int64_t i = 0; i < t.size(); ++i) t[i] = fill(r.blobs[b].name, i);
  }
  std::vector<Tensor*> ptrs;
  for (Tensor& t : blobs) ptrs.push_back(&t);
  CpuDeviceContext device("cpu:0", 2);
  device.bindToCurrentThread();
  auto kernel = schema.kernels.at("cpu")(KernelSetup{device, {sample}, out, p});
  r.output.resize(withBatch(x.dim(0), out));
  const Tensor* inputs[] = {&x};
  KernelCall call{.device = device, .inputs = inputs, .params = ptrs, .output = r.output};
  call.training = training;
  kernel->forward(call);
  return r;
}

Tensor tensor(Shape shape, const std::vector<float>& values) {
  Tensor t(std::move(shape));
  for (int64_t i = 0; i < t.size(); ++i) t[i] = values[static_cast<size_t>(i)];
  return t;
}

Tensor ramp(Shape shape, float offset = 0.0f) {
  Tensor t(std::move(shape));
  for (int64_t i = 0; i < t.size(); ++i) t[i] = offset + std::sin(0.37f * static_cast<float>(i)) + 0.01f * static_cast<float>(i);
  return t;
}

float unitParams(const std::string& name, int64_t) { return name == "gamma" ? 1.0f : 0.0f; }

double maxDifference(const Tensor& a, const Tensor& b) {
  double worst = 0;
  for (int64_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(double(a[i]) - double(b[i])));
  return worst;
}

std::string errorOf(const std::string& op, const Json& given, const Shape& sample) {
  try {
    const OpSchema& schema = OpRegistry::builtin().get(op);
    const Json params = validateParams(schema, given, "params");
    schema.inferShape({sample}, OpParams(params));
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

}  // namespace

class RowNormalizationTest : public QObject {
  Q_OBJECT

 private slots:
  // Each sample over its 4 values: mean 2.5, biased variance 1.25; gamma and beta per element.
  void layerNormalizationClosedForm() {
    const Tensor x = tensor({2, 4}, {1, 2, 3, 4, -2, 0, 0, 2});
    const Run r = forward("LayerNormalization", Json::object(), x, [](const std::string& name, int64_t i) {
      return name == "gamma" ? 1.0f + static_cast<float>(i) : 0.5f * static_cast<float>(i);
    });
    QCOMPARE(r.blobs.size(), size_t{2});
    QCOMPARE(r.blobs[0].name, std::string("beta"));
    QVERIFY(r.blobs[1].shape == (Shape{4}));
    const double s0 = 1.0 / std::sqrt(1.25 + 1e-5), s1 = 1.0 / std::sqrt(2.0 + 1e-5);
    const double mean[] = {2.5, 0.0}, inv[] = {s0, s1};
    for (int64_t n = 0; n < 2; ++n)
      for (int64_t i = 0; i < 4; ++i) {
        const double want = (x[n * 4 + i] - mean[n]) * inv[n] * (1.0 + i) + 0.5 * i;
        QVERIFY2(std::fabs(r.output[n * 4 + i] - want) < 1e-5, qPrintable(QString("y[%1,%2] = %3, expected %4")
                                                                         .arg(n).arg(i).arg(r.output[n * 4 + i]).arg(want)));
      }
  }

  // batch_axis [0, 1]: each of the 3 rows of a (3, 4) sample on its own; gamma is (1, 4).
  void layerNormalizationPerRow() {
    const Tensor x = ramp({2, 3, 4});
    const Run perRow = forward("LayerNormalization", {{"batch_axis", {0, 1}}}, x, unitParams);
    QVERIFY(perRow.blobs[0].shape == (Shape{1, 4}));
    const Run rows = forward("LayerNormalization", Json::object(), tensor({6, 4}, std::vector<float>(x.data(), x.data() + 24)),
                             unitParams);
    QVERIFY(maxDifference(perRow.output, rows.output) == 0.0);
  }

  // The statistics are the sample's own: a sample's output is the same alone, in a batch, and in
  // inference mode, bit for bit.
  void statisticsArePerSample() {
    for (const auto& [op, params] : std::vector<std::pair<std::string, Json>>{
             {"LayerNormalization", Json::object()},
             {"InstanceNormalization", Json::object()},
             {"GroupNormalization", {{"num_groups", 2}}}}) {
      const Tensor batch = ramp({3, 4, 3, 3});
      Tensor one({1, 4, 3, 3});
      for (int64_t i = 0; i < one.size(); ++i) one[i] = batch[36 + i];
      const Run all = forward(op, params, batch, unitParams);
      const Run alone = forward(op, params, one, unitParams, false);
      for (int64_t i = 0; i < one.size(); ++i) QVERIFY2(all.output[36 + i] == alone.output[i], op.c_str());
    }
  }

  // GroupNormalization with C groups is InstanceNormalization; with 1 group, LayerNormalization
  // with gamma and beta repeated over each channel's plane.
  void groupNormalizationIdentities() {
    const Tensor x = ramp({2, 4, 3, 3});
    const auto perChannel = [](const std::string& name, int64_t c) {
      return name == "gamma" ? 0.5f + static_cast<float>(c) : -0.25f * static_cast<float>(c);
    };
    const Run gn4 = forward("GroupNormalization", {{"num_groups", 4}}, x, perChannel);
    const Run in = forward("InstanceNormalization", Json::object(), x, perChannel);
    QVERIFY(maxDifference(gn4.output, in.output) == 0.0);
    const Run gn1 = forward("GroupNormalization", {{"num_groups", 1}}, x, perChannel);
    const Run ln = forward("LayerNormalization", Json::object(), x,
                           [&](const std::string& name, int64_t i) { return perChannel(name, i / 9); });
    QVERIFY2(maxDifference(gn1.output, ln.output) < 1e-6, qPrintable(QString::number(maxDifference(gn1.output, ln.output))));
    // Two groups: channels 0-1 and 2-3 each over 18 values, checked in double.
    const Run gn2 = forward("GroupNormalization", {{"num_groups", 2}}, x, unitParams);
    for (int64_t n = 0; n < 2; ++n)
      for (int64_t g = 0; g < 2; ++g) {
        const float* v = x.data() + n * 36 + g * 18;
        double mean = 0, var = 0;
        for (int i = 0; i < 18; ++i) mean += v[i] / 18.0;
        for (int i = 0; i < 18; ++i) var += (v[i] - mean) * (v[i] - mean) / 18.0;
        for (int i = 0; i < 18; ++i)
          QVERIFY(std::fabs(gn2.output[n * 36 + g * 18 + i] - (v[i] - mean) / std::sqrt(var + 1e-5)) < 1e-5);
      }
  }

  // Values around 10,000 with a spread of about 1: the two-pass statistics keep the output within
  // float rounding of the exact one (E[x²] − E[x]² in float would lose it all).
  void largeMeanSmallSpread() {
    const Tensor x = ramp({1, 64}, 10000.0f);
    const Run r = forward("LayerNormalization", Json::object(), x, unitParams);
    double mean = 0, var = 0;
    for (int i = 0; i < 64; ++i) mean += x[i] / 64.0;
    for (int i = 0; i < 64; ++i) var += (x[i] - mean) * (x[i] - mean) / 64.0;
    for (int i = 0; i < 64; ++i) QVERIFY(std::fabs(r.output[i] - (x[i] - mean) / std::sqrt(var + 1e-5)) < 2e-3);
  }

  // no_scale / no_bias drop gamma / beta (nnabla's options); the output is then x̂ (+ beta).
  void noScaleNoBias() {
    const Tensor x = ramp({2, 3, 2, 2});
    const Run both = forward("InstanceNormalization", {{"no_scale", true}, {"no_bias", true}}, x, unitParams);
    QVERIFY(both.blobs.empty());
    const Run plain = forward("InstanceNormalization", Json::object(), x, unitParams);
    QVERIFY(maxDifference(both.output, plain.output) == 0.0);
    const Run scaleOnly = forward("GroupNormalization", {{"num_groups", 3}, {"no_bias", true}}, x,
                                  [](const std::string&, int64_t c) { return 2.0f + static_cast<float>(c); });
    QCOMPARE(scaleOnly.blobs.size(), size_t{1});
    QCOMPARE(scaleOnly.blobs[0].name, std::string("gamma"));
    for (int64_t i = 0; i < x.size(); ++i) QVERIFY(std::fabs(scaleOnly.output[i] - plain.output[i] * (2.0f + (i / 4) % 3)) < 1e-5);
  }

  void errorsSayWhatToChange() {
    QVERIFY(errorOf("GroupNormalization", {{"num_groups", 4}}, {6, 3, 3}).find("num_groups 4 does not divide the 6 channels") != std::string::npos);
    QVERIFY(errorOf("GroupNormalization", Json::object(), {6}).find("num_groups: required") != std::string::npos);
    QVERIFY(errorOf("LayerNormalization", {{"batch_axis", {1}}}, {6}).find("batch_axis [1] is not supported") != std::string::npos);
    QVERIFY(errorOf("LayerNormalization", {{"batch_axis", {0, 1}}}, {6}).find("leaves no axis") != std::string::npos);
    QVERIFY(errorOf("InstanceNormalization", {{"channel_axis", 2}}, {3, 4, 4}).find("channel_axis 2 is not supported") != std::string::npos);
    QVERIFY(errorOf("InstanceNormalization", Json::object(), {6}).find("use LayerNormalization") != std::string::npos);
    QVERIFY(errorOf("CategoricalCrossEntropy", Json::object(), {3, 4}).find("put a Softmax") != std::string::npos);
    QVERIFY(errorOf("LayerNormalization", {{"eps", 0}}, {6}).find("eps must be greater than 0") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(RowNormalizationTest)
#include "tst_row_normalization.moc"
