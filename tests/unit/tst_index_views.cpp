// The shape and arithmetic layers' forward values against closed forms (Note [Index views], Note
// [Interpolate coordinates], the scalar ops). The gradient check proves backward matches forward;
// this proves forward is the function nnabla names: each case runs the registered CPU kernel (whose
// bodies the CUDA kernels share) on a tensor whose values encode their own index, and compares with
// the expected values written out here, or computed by an independent loop over coordinates.
// netsmith-test-labels: asan

#include <QtTest>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/core/error.h"
#include "engine/op_interface/op_registry.h"

using namespace netsmith;

namespace {

struct Run {
  std::vector<Tensor> inputs;
  Tensor output;
};

// Runs `op` forward on inputs of per-sample `shapes` (batch 2) filled with value(input, index).
Run forward(CpuDeviceContext& device, const std::string& op, const std::vector<Shape>& shapes, const Json& given,
            const std::function<float(size_t, int64_t)>& value) {
  const OpSchema& schema = OpRegistry::builtin().get(op);
  const Json params = validateParams(schema, given, "params");
  const OpParams p(params);
  const Shape out = schema.inferShape(shapes, p);
  auto kernel = schema.kernels.at("cpu")(KernelSetup{device, shapes, out, p});
  Run run;
  std::vector<const Tensor*> ptrs;
  for (size_t k = 0; k < shapes.size(); ++k) {
    Tensor& t = run.inputs.emplace_back(withBatch(2, shapes[k]));
    for (int64_t i = 0; i < t.size(); ++i) t[i] = value(k, i);
  }
  for (const Tensor& t : run.inputs) ptrs.push_back(&t);
  run.output.resize(withBatch(2, out));
  KernelCall call{.device = device, .inputs = ptrs, .params = {}, .output = run.output};
  kernel->forward(call);
  return run;
}

Run forward(CpuDeviceContext& device, const std::string& op, const Shape& shape, const Json& given) {
  return forward(device, op, {shape}, given, [](size_t, int64_t i) { return static_cast<float>(i); });
}

std::vector<float> values(const Tensor& t) { return std::vector<float>(t.data(), t.data() + t.size()); }

// The second sample's values, minus the first sample's offset: the per-sample result.
std::vector<float> sample1(const Run& run, float inputOffset) {
  const int64_t n = run.output.size() / 2;
  std::vector<float> out;
  for (int64_t i = n; i < 2 * n; ++i) out.push_back(run.output[i] - inputOffset);
  return out;
}

}  // namespace

class TestIndexViews : public QObject {
  Q_OBJECT
  CpuDeviceContext m_device{"cpu:0", 2};

 private slots:
  void initTestCase() { m_device.bindToCurrentThread(); }

  void transpose() {
    // (2, 3) -> (3, 2): y[j][i] = x[i][j]; the second sample reads the second sample.
    const Run r = forward(m_device, "Transpose", {2, 3}, {{"axes", {1, 0}}});
    QCOMPARE(values(r.output), (std::vector<float>{0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11}));
    // (2, 3, 4) with axes 1,2,0: y[b][c][a] = x[a][b][c].
    const Run hwc = forward(m_device, "Transpose", {2, 3, 4}, {{"axes", {1, 2, 0}}});
    for (int64_t b = 0; b < 3; ++b)
      for (int64_t c = 0; c < 4; ++c)
        for (int64_t a = 0; a < 2; ++a) QCOMPARE(hwc.output[(b * 4 + c) * 2 + a], static_cast<float>(a * 12 + b * 4 + c));
  }

  void slice() {
    // (4, 6): rows 1:4:2, columns -5:6:2 (= 1, 3, 5).
    const Run r = forward(m_device, "Slice", {4, 6}, {{"start", {1, -5}}, {"stop", {4, 6}}, {"step", {2, 2}}});
    QCOMPARE(sample1(r, 24), (std::vector<float>{7, 9, 11, 19, 21, 23}));
    // Only the first axis given: the second is whole.
    const Run first = forward(m_device, "Slice", {3, 2}, {{"start", {-1}}, {"stop", {3}}, {"step", {1}}});
    QCOMPARE(values(first.output), (std::vector<float>{4, 5, 10, 11}));
  }

  void channelShuffle() {
    // 6 channels of 1 value, group 2: (2, 3) read as (3, 2) -> 0, 3, 1, 4, 2, 5 (ShuffleNet).
    const Run r = forward(m_device, "ChannelShuffle", {6, 1}, {{"group", 2}});
    QCOMPARE(sample1(r, 6), (std::vector<float>{0, 3, 1, 4, 2, 5}));
    const Run g3 = forward(m_device, "ChannelShuffle", {6, 1}, {{"group", 3}});
    QCOMPARE(sample1(g3, 6), (std::vector<float>{0, 2, 4, 1, 3, 5}));
  }

  void pad() {
    // (1, 2, 2) padded by (0 before, 1 after) on height and (1, 0) on width with 9.
    const Run r = forward(m_device, "Pad", {1, 2, 2}, {{"pad_width", {0, 1, 1, 0}}, {"constant_value", 9.0}});
    QCOMPARE(sample1(r, 0), (std::vector<float>{9, 4, 5, 9, 6, 7, 9, 9, 9}));
    // reflect (numpy's): a row 0..3 padded by (3, 2) reads 3 2 1 | 0 1 2 3 | 2 1.
    const Run m = forward(m_device, "Pad", {1, 1, 4}, {{"pad_width", {0, 0, 3, 2}}, {"mode", "reflect"}});
    QCOMPARE(sample1(m, 4), (std::vector<float>{3, 2, 1, 0, 1, 2, 3, 2, 1}));
    // Its gradient sums the mirrors: dy = 1 everywhere gives 1 + the number of mirror images.
    const OpSchema& schema = OpRegistry::builtin().get("Pad");
    const Json params = validateParams(schema, {{"pad_width", {3, 2}}, {"mode", "reflect"}}, "params");
    auto kernel = schema.kernels.at("cpu")(KernelSetup{m_device, {{4}}, {9}, OpParams(params)});
    Tensor x(Shape{1, 4}), y(Shape{1, 9}), dy(Shape{1, 9}), dx(Shape{1, 4});
    dy.fill(1.0f);
    std::vector<const Tensor*> in{&x};
    std::vector<Tensor*> grads{&dx};
    KernelCall call{.device = m_device, .inputs = in, .params = {}, .output = y};
    call.outputGrad = &dy;
    call.inputGrads = grads;
    kernel->forward(call);
    kernel->backward(call);
    QCOMPARE(values(dx), (std::vector<float>{1, 3, 3, 2}));
  }

  void unpooling() {
    const Run r = forward(m_device, "Unpooling", {1, 2, 2}, {{"kernel", {2, 3}}});
    QCOMPARE(sample1(r, 4), (std::vector<float>{0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1,  //
                                                2, 2, 2, 3, 3, 3, 2, 2, 2, 3, 3, 3}));
  }

  void broadcastArithmetic() {
    // x0 (2, 3) = index, x1 (3) = 10, 20, 30: broadcast along the rows.
    const auto value = [](size_t k, int64_t i) { return k == 0 ? static_cast<float>(i) : 10.0f * (i % 3 + 1); };
    const Run mul = forward(m_device, "Mul2", {{2, 3}, {3}}, Json::object(), value);
    QCOMPARE(values(mul.output).at(4), 4.0f * 20.0f);
    const Run sub = forward(m_device, "Sub2", {{2, 3}, {3}}, Json::object(), value);
    QCOMPARE(values(sub.output).at(11), 11.0f - 30.0f);
    const Run div = forward(m_device, "Div2", {{2, 3}, {2, 1}}, Json::object(), value);
    // x1 (2, 1) per sample: values 10, 20 (sample 0), 30, 10 (sample 1).
    QCOMPARE(values(div.output), (std::vector<float>{0.0f / 10, 1.0f / 10, 2.0f / 10, 3.0f / 20, 4.0f / 20, 5.0f / 20,
                                                     6.0f / 30, 7.0f / 30, 8.0f / 30, 9.0f / 10, 10.0f / 10, 11.0f / 10}));
  }

  void scalarArithmetic() {
    // x = index - 2 over (3): -2, -1, 0 (sample 0), 1, 2, 3 (sample 1).
    const auto run = [&](const char* op, double val) {
      return values(forward(m_device, op, {{3}}, {{"val", val}},
                            [](size_t, int64_t i) { return static_cast<float>(i) - 2.0f; })
                        .output);
    };
    QCOMPARE(run("AddScalar", 0.5), (std::vector<float>{-1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 3.5f}));
    QCOMPARE(run("MulScalar", -2.0), (std::vector<float>{4, 2, 0, -2, -4, -6}));
    QCOMPARE(run("PowScalar", 3.0), (std::vector<float>{-8, -1, 0, 1, 8, 27}));
    QCOMPARE(run("RSubScalar", 1.0), (std::vector<float>{3, 2, 1, 0, -1, -2}));
    const std::vector<float> rdiv = run("RDivScalar", 6.0);
    QCOMPARE(rdiv.at(0), -3.0f);
    QCOMPARE(rdiv.at(5), 2.0f);
    QVERIFY(std::isinf(rdiv.at(2)));  // 6 / 0, as nnabla and numpy give
  }

  void reductions() {
    // (2, 3, 2): Sum over axis 1 -> (2, 2); Mean over all; Max over 0 and 2 kept.
    const Run sum = forward(m_device, "Sum", {2, 3, 2}, {{"axes", {1}}});
    QCOMPARE(sample1(sum, 0), (std::vector<float>{12 + 14 + 16, 13 + 15 + 17, 18 + 20 + 22, 19 + 21 + 23}));
    const Run mean = forward(m_device, "Mean", {2, 3, 2}, {{"axes", {0, 1, 2}}});
    QCOMPARE(values(mean.output), (std::vector<float>{5.5f, 17.5f}));
    QCOMPARE(mean.output.shape(), (Shape{2, 1}));
    const Run max = forward(m_device, "Max", {2, 3, 2}, {{"axes", {0, 2}}, {"keep_dims", true}});
    QCOMPARE(max.output.shape(), (Shape{2, 1, 3, 1}));
    QCOMPARE(sample1(max, 0), (std::vector<float>{19, 21, 23}));
  }

  // Note [Interpolate coordinates] on one row of width 2 (values 0, 1) or 6.
  void interpolate() {
    const auto row = [&](int64_t in, int64_t out, const Json& params) {
      Json p = params;
      p["output_size"] = {1, out};
      const Run r = forward(m_device, "Interpolate", {1, 1, in}, p);
      std::vector<float> v = values(r.output);
      v.resize(static_cast<size_t>(out));
      return v;
    };
    // linear, align_corners: corners coincide.
    QCOMPARE(row(2, 3, Json::object()), (std::vector<float>{0, 0.5f, 1}));
    // linear, half_pixel: source (o + 0.5) / 2 - 0.5, clamped at 0 and at the last value.
    QCOMPARE(row(2, 4, {{"align_corners", false}, {"half_pixel", true}}), (std::vector<float>{0, 0.25f, 0.75f, 1}));
    // linear, asymmetric: source o / 2.
    QCOMPARE(row(2, 4, {{"align_corners", false}}), (std::vector<float>{0, 0.5f, 1, 1}));
    // nearest: floor(o · in / out), or floor((o + 0.5) · in / out) with half_pixel.
    QCOMPARE(row(3, 6, {{"mode", "nearest"}, {"align_corners", false}}), (std::vector<float>{0, 0, 1, 1, 2, 2}));
    QCOMPARE(row(6, 3, {{"mode", "nearest"}, {"align_corners", false}}), (std::vector<float>{0, 2, 4}));
    QCOMPARE(row(6, 3, {{"mode", "nearest"}, {"align_corners", false}, {"half_pixel", true}}),
             (std::vector<float>{1, 3, 5}));
    // By scale when output_size is 0,0: (1, 3, 5) x 2 -> (1, 6, 10).
    const OpSchema& schema = OpRegistry::builtin().get("Interpolate");
    const Json params = validateParams(schema, Json::object(), "params");
    QCOMPARE(schema.inferShape({{1, 3, 5}}, OpParams(params)), (Shape{1, 6, 10}));
  }

  void refusals() {
    const auto refuses = [](const std::string& op, const Shape& shape, const Json& given, const char* words) {
      const OpSchema& schema = OpRegistry::builtin().get(op);
      try {
        const Json params = validateParams(schema, given, "params");
        schema.inferShape({shape}, OpParams(params));
      } catch (const Error& e) {
        return std::string(e.what()).find(words) != std::string::npos;
      }
      return false;
    };
    QVERIFY(refuses("Transpose", {2, 3, 4}, {{"axes", {0, 0, 1}}}, "not a permutation"));
    QVERIFY(refuses("ChannelShuffle", {6, 2}, {{"group", 4}}, "do not split into 4 groups"));
    QVERIFY(refuses("Slice", {4}, {{"start", {3}}, {"stop", {1}}, {"step", {1}}}, "empty"));
    QVERIFY(refuses("Interpolate", {1, 4, 4}, {{"mode", "nearest"}}, "align_corners"));
    QVERIFY(refuses("Sum", {3, 4}, {{"axes", {2}}}, "axis 2 does not exist"));
    const OpSchema& mul = OpRegistry::builtin().get("Mul2");
    QVERIFY_THROWS_EXCEPTION(Error, mul.inferShape({{3, 4}, {2, 4}}, OpParams(Json::object())));
  }
};

QTEST_APPLESS_MAIN(TestIndexViews)
#include "tst_index_views.moc"
