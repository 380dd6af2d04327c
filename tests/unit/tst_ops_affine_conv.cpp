// Affine, Convolution and Deconvolution on the CPU (oneDNN) against naive reference loops:
// forward output, input gradient and parameter gradients, over strides, padding, dilation,
// groups, batch sizes and with_bias; plus their shape inference and its error messages. In
// config.precision "bfloat16" (Note [CPU bfloat16]) the same kernels must equal the reference
// computed on bf16-rounded operands with float accumulation — and so differ from float32's.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/backend/cpu/cpu_precision.h"
#include "engine/core/error.h"
#include "engine/core/rng.h"
#include "engine/op_interface/op_registry.h"

using namespace netsmith;

// Shape is std::vector<int64_t>: one declaration serves both columns.
Q_DECLARE_METATYPE(std::vector<int64_t>)

namespace {

// Calls back (input index, weight index, output index) for every product the op sums:
// y[out] += x[in] * W[weight]. Forward and both gradients follow from that one list.
using Visit = std::function<void(int64_t, int64_t, int64_t)>;

struct Layer {
  const OpSchema* schema = nullptr;
  Json params;
  Shape in, out;  // per sample
  std::vector<ParamBlob> blobs;
};

Layer makeLayer(const std::string& op, const Json& given, const Shape& in) {
  Layer l;
  l.schema = &OpRegistry::builtin().get(op);
  l.params = validateParams(*l.schema, given, "params");
  l.in = in;
  const OpParams p(l.params);
  l.out = l.schema->inferShape({in}, p);
  l.blobs = l.schema->parameterBlobs({in}, p);
  return l;
}

void visitAffine(const Layer& l, int64_t batch, const Visit& visit) {
  const int64_t outmaps = numel(OpParams(l.params).ints("n_outmaps"));
  const int64_t rows = batch * numel(l.out) / outmaps;
  const int64_t inner = batch * numel(l.in) / rows;
  for (int64_t m = 0; m < rows; ++m)
    for (int64_t i = 0; i < inner; ++i)
      for (int64_t o = 0; o < outmaps; ++o) visit(m * inner + i, i * outmaps + o, m * outmaps + o);
}

// Convolution (transposed = false) and Deconvolution (true) in nnabla's definitions.
void visitConv(const Layer& l, int64_t batch, bool transposed, const Visit& visit) {
  const OpParams p(l.params);
  const auto k = p.ints("kernel"), pad = p.ints("pad"), stride = p.ints("stride"), dil = p.ints("dilation");
  const int64_t groups = p.integer("group");
  const int64_t C = l.in[0], H = l.in[1], W = l.in[2], OC = l.out[0], OH = l.out[1], OW = l.out[2];
  const int64_t icg = C / groups, ocg = OC / groups;
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t oc = 0; oc < ocg; ++oc)
        for (int64_t ic = 0; ic < icg; ++ic)
          for (int64_t kh = 0; kh < k[0]; ++kh)
            for (int64_t kw = 0; kw < k[1]; ++kw) {
              const int64_t w = transposed ? (((g * icg + ic) * ocg + oc) * k[0] + kh) * k[1] + kw
                                           : (((g * ocg + oc) * icg + ic) * k[0] + kh) * k[1] + kw;
              // The small side (output of a convolution, input of a deconvolution) indexes the window.
              const int64_t SH = transposed ? H : OH, SW = transposed ? W : OW;
              const int64_t BH = transposed ? OH : H, BW = transposed ? OW : W;
              for (int64_t sh = 0; sh < SH; ++sh)
                for (int64_t sw = 0; sw < SW; ++sw) {
                  const int64_t bh = sh * stride[0] - pad[0] + kh * dil[0];
                  const int64_t bw = sw * stride[1] - pad[1] + kw * dil[1];
                  if (bh < 0 || bh >= BH || bw < 0 || bw >= BW) continue;
                  const int64_t x = transposed ? ((n * C + g * icg + ic) * H + sh) * W + sw
                                               : ((n * C + g * icg + ic) * H + bh) * W + bw;
                  const int64_t y = transposed ? ((n * OC + g * ocg + oc) * OH + bh) * OW + bw
                                               : ((n * OC + g * ocg + oc) * OH + sh) * OW + sw;
                  visit(x, w, y);
                }
            }
}

struct Reference {
  std::vector<double> y, dx, dw, db;
};

Reference reference(const Layer& l, int64_t batch, const Tensor& x, const Tensor& w, const Tensor* b,
                    const Tensor& dy) {
  Reference r;
  r.y.assign(dy.size(), 0.0);
  r.dx.assign(x.size(), 0.0);
  r.dw.assign(w.size(), 0.0);
  const Visit visit = [&](int64_t xi, int64_t wi, int64_t yi) {
    r.y[yi] += double(x[xi]) * w[wi];
    r.dx[xi] += double(dy[yi]) * w[wi];
    r.dw[wi] += double(x[xi]) * dy[yi];
  };
  if (l.schema->name == "Affine") visitAffine(l, batch, visit);
  else visitConv(l, batch, l.schema->name == "Deconvolution", visit);
  if (b) {
    // The bias index of an output element: its last axis for Affine, its channel otherwise.
    const int64_t channels = b->size();
    const int64_t inner = l.schema->name == "Affine" ? 1 : l.out[1] * l.out[2];
    r.db.assign(channels, 0.0);
    for (int64_t i = 0; i < dy.size(); ++i) {
      const int64_t c = (i / inner) % channels;
      r.y[i] += (*b)[c];
      r.db[c] += dy[i];
    }
  }
  return r;
}

// float32 → bfloat16 → float32, round to nearest even: what oneDNN's f32-to-bf16 reorder does.
float roundToBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  u += 0x7FFFu + ((u >> 16) & 1u);
  u &= 0xFFFF0000u;
  std::memcpy(&f, &u, sizeof u);
  return f;
}

Tensor roundedToBf16(const Tensor& t) {
  Tensor r = t.clone();
  for (int64_t i = 0; i < r.size(); ++i) r[i] = roundToBf16(r[i]);
  return r;
}

double largestDifference(const Tensor& got, const std::vector<double>& want) {
  double d = 0.0;
  for (size_t i = 0; i < want.size(); ++i) d = std::max(d, std::fabs(got[static_cast<int64_t>(i)] - want[i]));
  return d;
}

double largestMagnitude(const std::vector<double>& v) {
  double m = 0.0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

void fillUniform(Tensor& t, Rng& rng) {
  for (int64_t i = 0; i < t.size(); ++i) t[i] = rng.uniform(-1.0f, 1.0f);
}

// Relative to the largest reference value: float sums of a few thousand terms stay far below.
void compare(const char* what, const Tensor& got, const std::vector<double>& want) {
  QCOMPARE(got.size(), static_cast<int64_t>(want.size()));
  double scale = 0.0;
  for (double v : want) scale = std::max(scale, std::fabs(v));
  const double tolerance = 1e-4 * std::max(scale, 1e-3);
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::fabs(got[static_cast<int64_t>(i)] - want[i]) > tolerance)
      QFAIL(qPrintable(QString("%1[%2]: got %3, want %4 (tolerance %5)")
                           .arg(what)
                           .arg(i)
                           .arg(got[static_cast<int64_t>(i)], 0, 'g', 9)
                           .arg(want[i], 0, 'g', 9)
                           .arg(tolerance)));
  }
}

// A tensor of `shape` whose allocation runs kGuard floats further, set to a sentinel, so that a
// kernel writing past the end is caught (Tensor::resize keeps the larger allocation).
constexpr int64_t kGuard = 64;
constexpr float kSentinel = 12345.0f;

Tensor guarded(const Shape& shape) {
  Tensor t(Shape{numel(shape) + kGuard});
  t.fill(kSentinel);
  t.resize(shape);
  return t;
}

void checkGuard(const char* what, const Tensor& t) {
  for (int64_t i = t.size(); i < t.size() + kGuard; ++i)
    if (t.data()[i] != kSentinel) QFAIL(qPrintable(QString("%1 was written past its end").arg(what)));
}

// Runs forward and backward of `l` for each batch size in turn on one kernel instance (so the
// kernel's per-batch-size caches are rebuilt between them) and checks every result.
// In bfloat16 the reference multiplies bf16-rounded operands (source, weights, incoming
// gradient); the bias is added, and its gradient summed, from what the primitive reads.
void checkLayer(const Layer& l, const std::vector<int64_t>& batches, bool wantInputGrad, int threads,
                Precision precision = Precision::Float) {
  CpuDeviceContext device("cpu:0", threads, precision);
  device.bindToCurrentThread();
  const OpParams p(l.params);
  const KernelSetup setup{device, {l.in}, l.out, p};
  std::unique_ptr<Kernel> kernel = l.schema->kernels.at("cpu")(setup);
  Rng rng(42);
  for (int64_t batch : batches) {
    Tensor x(withBatch(batch, l.in)), dy(withBatch(batch, l.out));
    Tensor y = guarded(withBatch(batch, l.out)), dx = guarded(withBatch(batch, l.in));
    std::vector<Tensor> params, grads;
    for (const ParamBlob& blob : l.blobs) {
      fillUniform(params.emplace_back(blob.shape), rng);
      grads.push_back(guarded(blob.shape));  // the sentinel must be overwritten, not added to
    }
    fillUniform(x, rng);
    fillUniform(dy, rng);
    dx.fill(kSentinel);
    const Tensor* inputs[] = {&x};
    std::vector<Tensor*> paramPtrs, gradPtrs;
    for (auto& t : params) paramPtrs.push_back(&t);
    for (auto& t : grads) gradPtrs.push_back(&t);
    Tensor* inputGrads[] = {wantInputGrad ? &dx : nullptr};

    // Twice: the second pass must not depend on state left by the first.
    for (int round = 0; round < 2; ++round) {
      KernelCall call{device, inputs, paramPtrs, y};
      call.training = true;
      kernel->forward(call);
      call.outputGrad = &dy;
      call.inputGrads = inputGrads;
      call.paramGrads = gradPtrs;
      kernel->backward(call);
    }
    const Tensor* bias = params.size() > 1 ? &params[1] : nullptr;
    const bool bf16 = precision == Precision::BFloat16;
    const Reference r = bf16 ? reference(l, batch, roundedToBf16(x), roundedToBf16(params[0]), bias, roundedToBf16(dy))
                             : reference(l, batch, x, params[0], bias, dy);
    if (bf16) {
      // The float32 answer is far outside the tolerance: a kernel that ignored the precision fails.
      const Reference exact = reference(l, batch, x, params[0], bias, dy);
      QVERIFY2(largestDifference(y, exact.y) > 1e-3 * largestMagnitude(exact.y),
               "bfloat16 output equals float32's: the kernel did not compute in bf16");
    }
    compare("y", y, r.y);
    if (wantInputGrad) compare("dx", dx, r.dx);
    else QCOMPARE(dx[0], kSentinel);
    compare("dW", grads[0], r.dw);
    if (params.size() > 1) compare("db", grads[1], r.db);
    checkGuard("y", y);
    checkGuard("dx", dx);
    for (const Tensor& g : grads) checkGuard("a parameter gradient", g);
  }
}

QString errorOf(const std::string& op, const Json& given, const Shape& in) {
  try {
    makeLayer(op, given, in);
  } catch (const Error& e) {
    return QString::fromUtf8(e.what());
  }
  return {};
}

}  // namespace

class TestOpsDnnlBasic : public QObject {
  Q_OBJECT

 private slots:
  void matchesReference_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("params");
    QTest::addColumn<Shape>("input");
    QTest::addColumn<std::vector<int64_t>>("batches");
    QTest::addColumn<bool>("inputGrad");
    QTest::addColumn<int>("threads");
    const auto row = [](const char* name, const char* op, const char* params, Shape in, std::vector<int64_t> batches,
                        bool inputGrad = true, int threads = 1) {
      QTest::newRow(name) << QString(op) << QString(params) << in << batches << inputGrad << threads;
    };
    row("affine/default", "Affine", R"({})", {3, 4, 5}, {3, 1});
    row("affine/outmaps2d", "Affine", R"({"n_outmaps": [2, 3]})", {6}, {1, 3});
    row("affine/base_axis2", "Affine", R"({"n_outmaps": [4], "base_axis": 2})", {3, 5}, {3});
    row("affine/base_axis3_nobias", "Affine", R"({"n_outmaps": [3], "base_axis": 3, "with_bias": false})",
        {2, 3, 4}, {2});
    row("affine/lenet_fc1", "Affine", R"({"n_outmaps": [512]})", {32, 5, 5}, {5}, true, 2);
    row("affine/no_input_grad", "Affine", R"({"n_outmaps": [7]})", {9}, {3}, false);

    row("conv/rect", "Convolution", R"({"outmaps": 4, "kernel": [3, 2], "pad": [1, 0]})", {3, 7, 6}, {3, 1});
    row("conv/stride2", "Convolution", R"({"outmaps": 6, "kernel": [3, 3], "pad": [1, 1], "stride": [2, 2]})",
        {4, 9, 9}, {1, 3});
    row("conv/dilation_nobias", "Convolution",
        R"({"outmaps": 5, "kernel": [3, 3], "pad": [2, 1], "dilation": [2, 1], "with_bias": false})", {4, 8, 8},
        {3});
    row("conv/group2", "Convolution", R"({"outmaps": 6, "kernel": [3, 3], "pad": [1, 1], "stride": [2, 1], "group": 2})",
        {4, 7, 7}, {3, 1});
    row("conv/group16_blocked", "Convolution", R"({"outmaps": 32, "kernel": [3, 3], "pad": [1, 1], "group": 2})",
        {32, 6, 6}, {2});
    row("conv/lenet1_first_layer", "Convolution", R"({"outmaps": 16, "kernel": [5, 5], "pad": [2, 2]})",
        {1, 28, 28}, {2}, false);
    row("conv/lenet2", "Convolution", R"({"outmaps": 32, "kernel": [5, 5]})", {16, 14, 14}, {3, 1}, true, 2);

    // Images large enough that the kernel runs the batch in chunks (Note [Conv chunks]).
    row("conv/chunked", "Convolution", R"({"outmaps": 16, "kernel": [5, 5], "pad": [2, 2]})", {1, 64, 64}, {6, 9, 5});
    row("conv/chunked_2threads", "Convolution", R"({"outmaps": 8, "kernel": [3, 3], "pad": [1, 1], "stride": [2, 2]})",
        {4, 96, 96}, {9}, true, 2);
    row("conv/chunked_first_layer", "Convolution", R"({"outmaps": 16, "kernel": [5, 5], "pad": [2, 2]})",
        {1, 64, 64}, {6}, false, 2);

    row("deconv/stride2", "Deconvolution", R"({"outmaps": 6, "kernel": [3, 3], "pad": [1, 1], "stride": [2, 2]})",
        {4, 5, 5}, {3, 1});
    row("deconv/rect", "Deconvolution", R"({"outmaps": 3, "kernel": [2, 3], "pad": [0, 1]})", {2, 4, 6}, {1});
    row("deconv/dilation_nobias", "Deconvolution",
        R"({"outmaps": 5, "kernel": [3, 3], "pad": [1, 0], "dilation": [2, 2], "with_bias": false})", {4, 5, 4}, {3});
    row("deconv/group2", "Deconvolution", R"({"outmaps": 6, "kernel": [3, 3], "stride": [2, 1], "group": 2})",
        {4, 4, 5}, {3, 1});
    row("deconv/wide_blocked", "Deconvolution", R"({"outmaps": 16, "kernel": [4, 4], "pad": [1, 1], "stride": [2, 2]})",
        {32, 6, 6}, {2}, true, 2);
    row("deconv/chunked", "Deconvolution", R"({"outmaps": 16, "kernel": [4, 4], "pad": [1, 1], "stride": [2, 2]})",
        {8, 16, 16}, {28});
    row("deconv/no_input_grad", "Deconvolution", R"({"outmaps": 3, "kernel": [3, 3]})", {2, 4, 4}, {2}, false);
  }

  void matchesReference() {
    QFETCH(QString, op);
    QFETCH(QString, params);
    QFETCH(Shape, input);
    QFETCH(std::vector<int64_t>, batches);
    QFETCH(bool, inputGrad);
    QFETCH(int, threads);
    const Layer l = makeLayer(op.toStdString(), Json::parse(params.toStdString()), input);
    checkLayer(l, batches, inputGrad, threads);
  }

  // Note [CPU bfloat16]: a subset of the rows above, computed in bf16.
  void bfloat16MatchesRoundedReference_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("params");
    QTest::addColumn<Shape>("input");
    QTest::addColumn<std::vector<int64_t>>("batches");
    QTest::addColumn<int>("threads");
    const auto row = [](const char* name, const char* op, const char* params, Shape in, std::vector<int64_t> batches,
                        int threads = 1) { QTest::newRow(name) << QString(op) << QString(params) << in << batches << threads; };
    row("affine/default", "Affine", R"({})", {3, 4, 5}, {3, 1});
    row("affine/lenet_fc1", "Affine", R"({"n_outmaps": [512]})", {32, 5, 5}, {5}, 2);
    row("affine/base_axis2_nobias", "Affine", R"({"n_outmaps": [4], "base_axis": 2, "with_bias": false})", {3, 5}, {3});
    row("conv/lenet2", "Convolution", R"({"outmaps": 32, "kernel": [5, 5]})", {16, 14, 14}, {3, 1}, 2);
    row("conv/group2", "Convolution", R"({"outmaps": 6, "kernel": [3, 3], "pad": [1, 1], "stride": [2, 1], "group": 2})",
        {4, 7, 7}, {3, 1});
    row("conv/chunked", "Convolution", R"({"outmaps": 16, "kernel": [5, 5], "pad": [2, 2]})", {1, 64, 64}, {6, 9, 5});
    row("deconv/stride2", "Deconvolution", R"({"outmaps": 6, "kernel": [3, 3], "pad": [1, 1], "stride": [2, 2]})",
        {4, 5, 5}, {3, 1});
  }

  void bfloat16MatchesRoundedReference() {
    if (cpu::bf16Support() == cpu::Bf16Support::None) QSKIP("this CPU has no bf16 primitives (oneDNN needs AVX-512)");
    QFETCH(QString, op);
    QFETCH(QString, params);
    QFETCH(Shape, input);
    QFETCH(std::vector<int64_t>, batches);
    QFETCH(int, threads);
    const Layer l = makeLayer(op.toStdString(), Json::parse(params.toStdString()), input);
    checkLayer(l, batches, true, threads, Precision::BFloat16);
  }

  void shapesAndBlobs() {
    const Layer conv1 = makeLayer("Convolution", {{"outmaps", 16}, {"kernel", {5, 5}}, {"pad", {2, 2}}}, {1, 28, 28});
    QCOMPARE(conv1.out, (Shape{16, 28, 28}));
    QCOMPARE(conv1.blobs.size(), size_t(2));
    QCOMPARE(conv1.blobs[0].shape, (Shape{16, 1, 5, 5}));
    QCOMPARE(conv1.blobs[1].shape, (Shape{16}));
    QCOMPARE(conv1.schema->multiplyAdds({conv1.in}, conv1.out, OpParams(conv1.params)), int64_t(16 * 28 * 28 * 25));
    // nnabla's calc_uniform_lim_glorot(1, 16, (5, 5)) = sqrt(6 / (25 + 16)).
    QVERIFY(std::fabs(conv1.blobs[0].init.b - std::sqrt(6.0 / 41.0)) < 1e-6);
    QVERIFY(conv1.blobs[1].init.kind == Initializer::Kind::Constant && conv1.blobs[1].init.a == 0.0f);

    const Layer grouped = makeLayer("Convolution", {{"outmaps", 6}, {"group", 2}, {"stride", {2, 2}}}, {4, 9, 8});
    QCOMPARE(grouped.out, (Shape{6, 4, 3}));
    QCOMPARE(grouped.blobs[0].shape, (Shape{6, 2, 3, 3}));

    const Layer fc = makeLayer("Affine", {{"n_outmaps", {512}}}, {32, 5, 5});
    QCOMPARE(fc.out, (Shape{512}));
    QCOMPARE(fc.blobs[0].shape, (Shape{800, 512}));
    QCOMPARE(fc.blobs[1].shape, (Shape{512}));
    QCOMPARE(fc.schema->multiplyAdds({fc.in}, fc.out, OpParams(fc.params)), int64_t(800 * 512));
    QVERIFY(std::fabs(fc.blobs[0].init.b - std::sqrt(6.0 / (800 + 512))) < 1e-6);

    const Layer seq = makeLayer("Affine", {{"n_outmaps", {2, 3}}, {"base_axis", 2}, {"with_bias", false}}, {7, 5});
    QCOMPARE(seq.out, (Shape{7, 2, 3}));
    QCOMPARE(seq.blobs.size(), size_t(1));
    QCOMPARE(seq.blobs[0].shape, (Shape{5, 2, 3}));

    const Layer deconv = makeLayer("Deconvolution", {{"outmaps", 6}, {"kernel", {4, 4}}, {"pad", {1, 1}},
                                                     {"stride", {2, 2}}, {"group", 2}},
                                   {4, 7, 5});
    QCOMPARE(deconv.out, (Shape{6, 14, 10}));
    QCOMPARE(deconv.blobs[0].shape, (Shape{4, 3, 4, 4}));
    QCOMPARE(deconv.blobs[1].shape, (Shape{6}));
    // nnabla: calc_uniform_lim_glorot(outmaps, inmaps, kernel) = sqrt(6 / (16 * 6 + 4)).
    QVERIFY(std::fabs(deconv.blobs[0].init.b - std::sqrt(6.0 / 100.0)) < 1e-6);
    const Layer dilated = makeLayer("Deconvolution", {{"outmaps", 2}, {"kernel", {3, 3}}, {"dilation", {2, 3}}}, {1, 4, 4});
    QCOMPARE(dilated.out, (Shape{2, 4 + 4, 4 + 6}));
  }

  void shapeErrors() {
    QString e = errorOf("Convolution", {{"outmaps", 16}}, {784});
    QVERIFY2(e.contains("Reshape to 1,28,28"), qPrintable(e));
    e = errorOf("Convolution", {}, {28, 28});
    QVERIFY2(e.contains("(channels, height, width)") && e.contains("Reshape to 1,28,28"), qPrintable(e));
    e = errorOf("Deconvolution", {}, {10});
    QVERIFY2(e.contains("Deconvolution expects") && e.contains("channels,height,width"), qPrintable(e));

    // Too small for the window.
    e = errorOf("Convolution", {{"kernel", {5, 5}}}, {1, 4, 8});
    QVERIFY2(e.contains("height") && e.contains("smaller kernel or more padding"), qPrintable(e));
    e = errorOf("Convolution", {{"kernel", {3, 3}}, {"dilation", {1, 4}}}, {1, 8, 8});
    QVERIFY2(e.contains("width"), qPrintable(e));
    QVERIFY(errorOf("Convolution", {{"kernel", {5, 5}}, {"pad", {1, 1}}}, {1, 3, 3}).isEmpty());
    e = errorOf("Deconvolution", {{"kernel", {3, 3}}, {"pad", {3, 0}}}, {1, 2, 2});
    QVERIFY2(e.contains("Deconvolution output height") && e.contains("less padding"), qPrintable(e));

    e = errorOf("Convolution", {{"outmaps", 8}, {"group", 3}}, {6, 8, 8});
    QVERIFY2(e.contains("group 3") && e.contains("8 outmaps"), qPrintable(e));
    e = errorOf("Deconvolution", {{"outmaps", 6}, {"group", 4}}, {6, 8, 8});
    QVERIFY2(e.contains("group 4"), qPrintable(e));

    e = errorOf("Affine", {{"base_axis", 3}}, {5, 6});
    QVERIFY2(e.contains("base_axis 3") && e.contains("base_axis 2 or less"), qPrintable(e));

    // Parameter ranges come from the schema.
    QVERIFY_THROWS_EXCEPTION(Error, makeLayer("Convolution", {{"kernel", {3}}}, {1, 8, 8}));
    QVERIFY_THROWS_EXCEPTION(Error, makeLayer("Convolution", {{"stride", {0, 1}}}, {1, 8, 8}));
    QVERIFY_THROWS_EXCEPTION(Error, makeLayer("Affine", {{"n_outmaps", {0}}}, {8}));
  }
};

QTEST_GUILESS_MAIN(TestOpsDnnlBasic)
#include "tst_ops_affine_conv.moc"
