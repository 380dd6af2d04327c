// netsmith-test-labels: asan
// Every registered op's examples (Note [Op examples]) as shape checks: each example is valid for
// its op (parameters, port count, shape inference, parameter blobs, a loss's one value per
// sample), the names are unique, and the CPU kernel's inference forward writes every element of
// the inferred output shape with each sample's values independent of the batch it is in. The
// rows come from the registry, so a new op is checked without an edit here.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_device.h"
#include "engine/core/error.h"
#include "engine/core/rng.h"
#include "engine/op_interface/op_registry.h"
#include "support/op_examples.h"

using namespace netsmith;

namespace {

const char* cstr(const std::string& s) { return s.c_str(); }

struct Forwarded {
  Tensor output;
  std::string error;
};

// One inference forward of `rows` samples; sample r's inputs (and loss target) are drawn from a
// generator seeded by r alone, so the same sample has the same values in any batch.
Forwarded forwardRows(const OpSchema& schema, const OpExample& example, const Shape& outShape,
                      const std::vector<Tensor>& params, Kernel& kernel, DeviceContext& device, int64_t rows) {
  std::vector<Tensor> inputs;
  for (const Shape& s : example.inputs) inputs.emplace_back(withBatch(rows, s));
  std::optional<Tensor> target;
  if (schema.lossTarget == LossTarget::ClassIndex) target.emplace(Shape{rows, 1});
  if (schema.lossTarget == LossTarget::SameAsPrediction) target.emplace(withBatch(rows, example.inputs.at(0)));
  for (int64_t r = 0; r < rows; ++r) {
    Rng rng(1000 + static_cast<uint64_t>(r));
    for (Tensor& x : inputs) {
      const int64_t per = x.size() / rows;
      for (int64_t i = 0; i < per; ++i)
        x[r * per + i] = schema.isLoss() ? rng.uniform(0.05f, 0.95f) : example.inputScale * rng.uniform(-1.0f, 1.0f);
    }
    if (target && schema.lossTarget == LossTarget::ClassIndex)
      (*target)[r] = static_cast<float>(rng.below(static_cast<uint64_t>(numel(example.inputs.at(0)))));
    else if (target) {
      const int64_t per = target->size() / rows;
      for (int64_t i = 0; i < per; ++i) (*target)[r * per + i] = rng.uniform();
    }
  }
  Forwarded f{Tensor(withBatch(rows, outShape)), {}};
  f.output.fill(std::nanf(""));  // forward must write every element
  std::vector<const Tensor*> inputPtrs;
  for (const Tensor& t : inputs) inputPtrs.push_back(&t);
  std::vector<Tensor*> paramPtrs;
  for (const Tensor& t : params) paramPtrs.push_back(const_cast<Tensor*>(&t));
  KernelCall call{.device = device, .inputs = inputPtrs, .params = paramPtrs, .output = f.output};
  call.target = target ? &*target : nullptr;
  call.training = false;
  try {
    kernel.forward(call);
  } catch (const Error& e) {
    f.error = e.what();
  }
  return f;
}

}  // namespace

class TestOpExamples : public QObject {
  Q_OBJECT

 private slots:
  void declaredExamplesAreValid() {
    int declared = 0;
    for (const OpSchema* schema : OpRegistry::builtin().all()) {
      std::set<std::string> names;
      for (const OpExample& e : schema->examples) {
        ++declared;
        const std::string what = format("{} example '{}'", schema->name, e.name);
        QVERIFY2(names.insert(e.name).second, cstr(what + ": a second example with this name"));
        const size_t ports = schema->inputs.size();
        QVERIFY2(schema->variadic ? e.inputs.size() >= ports : e.inputs.size() == ports,
                 cstr(format("{}: {} input shapes for {} port(s)", what, e.inputs.size(), ports)));
        QVERIFY2(e.inputScale > 0, cstr(what + ": inputScale must be positive"));
        try {
          const Json params = validateParams(*schema, e.params, "params");
          const OpParams p(params);
          const Shape out = schema->inferShape(e.inputs, p);
          if (schema->parameterBlobs) schema->parameterBlobs(e.inputs, p);
          if (schema->isLoss()) QVERIFY2(out == Shape{1}, cstr(what + ": a loss outputs one value per sample"));
        } catch (const Error& e2) {
          QFAIL(cstr(format("{}: {}", what, e2.what())));
        }
      }
    }
    QVERIFY(declared > 0);
  }

  void forwardWritesTheInferredShapePerSample_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("example");
    for (const OpSchema* schema : OpRegistry::builtin().all()) {
      if (schema->isInput) continue;
      for (const std::string& name : test::exampleNames(*schema))
        QTest::newRow(cstr(schema->name + (name.empty() ? "" : "/" + name)))
            << QString::fromStdString(schema->name) << QString::fromStdString(name);
    }
  }

  void forwardWritesTheInferredShapePerSample() {
    QFETCH(QString, op);
    QFETCH(QString, example);
    const OpSchema& schema = OpRegistry::builtin().get(op.toStdString());
    std::string why;
    const std::optional<OpExample> e = test::findExample(schema, example.toStdString(), why);
    QVERIFY2(e, cstr(format("no example input works for {} ({}): declare one in its folder's schema.cpp",
                            schema.name, why)));
    QVERIFY2(schema.kernels.count("cpu"), cstr(schema.name + " has no CPU kernel"));
    const Json params = validateParams(schema, e->params, "params");
    const OpParams p(params);
    const Shape outShape = schema.inferShape(e->inputs, p);
    const std::vector<ParamBlob> blobs = schema.parameterBlobs ? schema.parameterBlobs(e->inputs, p)
                                                               : std::vector<ParamBlob>{};
    std::vector<Tensor> values;
    Rng rng(7);
    for (const ParamBlob& b : blobs) {
      Tensor& t = values.emplace_back(b.shape);
      // Running variances must stay positive; everything else any value.
      for (int64_t i = 0; i < t.size(); ++i) t[i] = b.trainable ? rng.uniform(-1.0f, 1.0f) : rng.uniform(0.5f, 1.5f);
    }
    CpuDeviceContext device("cpu:0", 2);
    device.bindToCurrentThread();
    auto kernel = schema.kernels.at("cpu")(KernelSetup{device, e->inputs, outShape, p});

    const Forwarded three = forwardRows(schema, *e, outShape, values, *kernel, device, 3);
    QVERIFY2(three.error.empty(), cstr(schema.name + ": " + three.error));
    const Forwarded one = forwardRows(schema, *e, outShape, values, *kernel, device, 1);
    QVERIFY2(one.error.empty(), cstr(schema.name + ": " + one.error));
    const int64_t per = numel(outShape);
    for (int64_t i = 0; i < three.output.size(); ++i)
      QVERIFY2(std::isfinite(three.output[i]),
               cstr(format("{}: output element {} of ({}) x 3 not written or not finite", schema.name, i,
                           shapeToString(outShape))));
    for (int64_t i = 0; i < per; ++i) {
      const float a = three.output[i], b = one.output[i];
      QVERIFY2(std::fabs(a - b) <= 1e-5f * std::max(1.0f, std::fabs(a)),
               cstr(format("{}: sample 0's output element {} is {} in a batch of 3 and {} alone", schema.name, i,
                           a, b)));
    }
  }
};

QTEST_GUILESS_MAIN(TestOpExamples)
#include "tst_op_examples.moc"
