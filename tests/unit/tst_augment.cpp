// netsmith-test-labels: asan
// Data augmentation (engine/data/augment.h, Note [Augmentation draws]): each transform's exact
// effect on small hand-made images (flips mirror, crop padding moves by the drawn offset and fills
// zeros, a 90° rotation of a square image is the rotated image, a small rotation and a zoom of a
// linear ramp match the formula, a shift moves whole pixels, the brightness and contrast formula),
// identity when all is off, draws that depend on (seed, epoch, index) only, no NaN at borders,
// vectors refused; and config.augmentation in the project file (round trip, absent = off, errors
// naming the JSON path) and in the training plan.
#include <QtTest>
#include <cmath>
#include <cstring>
#include <functional>
#include <numbers>
#include <set>
#include <vector>

#include "engine/core/error.h"
#include "engine/data/augment.h"
#include "engine/project/project_io.h"
#include "engine/train/parallel_plan.h"

using namespace netsmith;

namespace {

// A (C, H, W) sample whose every value is distinct and positive: 1 + c·100 + i·10 + j (i < 10, j < 10).
std::vector<float> numbered(int64_t c, int64_t h, int64_t w) {
  std::vector<float> v(static_cast<size_t>(c * h * w));
  for (int64_t k = 0; k < c; ++k)
    for (int64_t i = 0; i < h; ++i)
      for (int64_t j = 0; j < w; ++j) v[static_cast<size_t>((k * h + i) * w + j)] = static_cast<float>(1 + k * 100 + i * 10 + j);
  return v;
}

float at(const std::vector<float>& v, int64_t h, int64_t w, int64_t c, int64_t i, int64_t j) {
  return v[static_cast<size_t>((c * h + i) * w + j)];
}

std::vector<float> augmented(const Augmentation& aug, const std::vector<float>& in, const Shape& shape, int64_t id,
                             int64_t epoch = 1, uint64_t seed = 7) {
  std::vector<float> out = in;
  augmentSample(aug, seed, epoch, id, shape, out);
  return out;
}

std::vector<float> applied(const Augmentation& aug, const AugmentDraw& d, const std::vector<float>& in, int64_t c,
                           int64_t h, int64_t w) {
  std::vector<float> out = in;
  applyAugmentation(aug, d, c, h, w, out.data());
  return out;
}

QString errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

constexpr const char* kProject = R"({
  "format": "netsmith-project", "version": 1, "name": "augmented",
  "network": {
    "nodes": [
      {"id": "x", "type": "Input", "params": {"shape": [1, 8, 8]}},
      {"id": "fc", "type": "Affine", "params": {"n_outmaps": [10]}},
      {"id": "loss", "type": "SoftmaxCrossEntropy"}
    ],
    "links": [{"from": "x", "to": "fc"}, {"from": "fc", "to": "loss"}]
  },
  "dataset": {"training": {"format": "csv", "csv": "train.csv"}},
  "config": {"max_epoch": 1, "batch_size": 4}
})";

Project projectWith(const Json& augmentation) {
  Json j = Json::parse(kProject);
  if (!augmentation.is_null()) j["config"]["augmentation"] = augmentation;
  return parseProject(j, "/projects/augmented.nsproj");
}

}  // namespace

class TestAugment : public QObject {
  Q_OBJECT

 private slots:
  void identityWhenOff() {
    const Augmentation off;
    QVERIFY(!off.enabled());
    Tensor x({3, 2, 5, 4});
    for (int64_t i = 0; i < x.size(); ++i) x[i] = std::sin(static_cast<float>(i)) * 3;
    const Tensor before = x.clone();
    const std::vector<int64_t> ids{4, 9, 2};
    augmentBatch(off, 1, 3, ids, x);
    QCOMPARE(std::memcmp(x.data(), before.data(), static_cast<size_t>(x.size()) * 4), 0);
    const AugmentDraw d = drawAugmentation(off, 1, 3, 4, 5, 4);
    QVERIFY(!d.flipHorizontal && !d.flipVertical);
    QCOMPARE(d.cropX, int64_t{0});
    QCOMPARE(d.angleDegrees, 0.0);
    QCOMPARE(d.zoom, 1.0);
    QCOMPARE(d.brightness, 1.0f);
    // Vectors pass through untouched when augmentation is off.
    Tensor v({2, 7});
    augmentBatch(off, 1, 1, std::vector<int64_t>{0, 1}, v);
  }

  void flipsMirror() {
    const Shape shape{2, 3, 4};
    const auto in = numbered(2, 3, 4);
    for (const bool horizontal : {true, false}) {
      Augmentation aug;
      (horizontal ? aug.flipHorizontal : aug.flipVertical) = true;
      int flipped = 0;
      for (int64_t id = 0; id < 400; ++id) {
        const AugmentDraw d = drawAugmentation(aug, 7, 1, id, 3, 4);
        QVERIFY(horizontal ? !d.flipVertical : !d.flipHorizontal);
        const bool flip = horizontal ? d.flipHorizontal : d.flipVertical;
        flipped += flip;
        const auto out = augmented(aug, in, shape, id);
        for (int64_t c = 0; c < 2; ++c)
          for (int64_t i = 0; i < 3; ++i)
            for (int64_t j = 0; j < 4; ++j) {
              const int64_t si = flip && !horizontal ? 2 - i : i;
              const int64_t sj = flip && horizontal ? 3 - j : j;
              QCOMPARE(at(out, 3, 4, c, i, j), at(in, 3, 4, c, si, sj));
            }
      }
      // Probability 0.5: 400 draws give 200 ± a few dozen.
      QVERIFY2(flipped > 150 && flipped < 250, qPrintable(QString::number(flipped)));
    }
  }

  void cropPaddingShiftsAndFillsZeros() {
    Augmentation aug;
    aug.cropPadding = 2;
    const Shape shape{1, 5, 6};
    const auto in = numbered(1, 5, 6);
    std::set<int64_t> offsetsX, offsetsY;
    for (int64_t id = 0; id < 300; ++id) {
      const AugmentDraw d = drawAugmentation(aug, 7, 2, id, 5, 6);
      QVERIFY(d.cropX >= 0 && d.cropX <= 4 && d.cropY >= 0 && d.cropY <= 4);
      offsetsX.insert(d.cropX);
      offsetsY.insert(d.cropY);
      const auto out = augmented(aug, in, shape, id, 2);
      for (int64_t i = 0; i < 5; ++i)
        for (int64_t j = 0; j < 6; ++j) {
          // Output (i, j) = padded (i + oy, j + ox) = image (i + oy - P, j + ox - P), zero outside.
          const int64_t si = i + d.cropY - 2, sj = j + d.cropX - 2;
          const float expected = si >= 0 && si < 5 && sj >= 0 && sj < 6 ? at(in, 5, 6, 0, si, sj) : 0.0f;
          QCOMPARE(at(out, 5, 6, 0, i, j), expected);
        }
    }
    // Every offset 0..2P is drawn.
    QCOMPARE(offsetsX.size(), size_t{5});
    QCOMPARE(offsetsY.size(), size_t{5});
  }

  // A hand-made draw: offset (0, 4) with P = 2 moves the content 2 right and 2 up.
  void cropOffsetByHand() {
    Augmentation aug;
    aug.cropPadding = 2;
    AugmentDraw d;
    d.cropX = 0;
    d.cropY = 4;
    const auto in = numbered(1, 4, 4);
    const auto out = applied(aug, d, in, 1, 4, 4);
    const std::vector<float> expected{0, 0, 21, 22,  //
                                      0, 0, 31, 32,  //
                                      0, 0, 0,  0,   //
                                      0, 0, 0,  0};
    QCOMPARE(out, expected);
  }

  // 90° counter-clockwise (on screen) of a square image: output (i, j) = input (j, N-1-i).
  void rotation90MatchesRotate() {
    Augmentation aug;
    aug.rotationDegrees = 90;
    for (const int64_t n : {4, 5}) {
      const auto in = numbered(3, n, n);
      AugmentDraw d;
      d.angleDegrees = 90;
      const auto out = applied(aug, d, in, 3, n, n);
      for (int64_t c = 0; c < 3; ++c)
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j) {
            const float expected = at(in, n, n, c, j, n - 1 - i);
            QVERIFY2(std::fabs(at(out, n, n, c, i, j) - expected) < 1e-4f * expected,
                     qPrintable(QString("n %1 c %2 (%3,%4): %5 vs %6").arg(n).arg(c).arg(i).arg(j).arg(at(out, n, n, c, i, j)).arg(expected)));
          }
      // -90° is the other way round: output (i, j) = input (N-1-j, i); 180° twice-mirrors.
      d.angleDegrees = -90;
      const auto back = applied(aug, d, in, 3, n, n);
      d.angleDegrees = 180;
      const auto half = applied(aug, d, in, 3, n, n);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          QVERIFY(std::fabs(at(back, n, n, 1, i, j) - at(in, n, n, 1, n - 1 - j, i)) < 1e-2f);
          QVERIFY(std::fabs(at(half, n, n, 1, i, j) - at(in, n, n, 1, n - 1 - i, n - 1 - j)) < 1e-2f);
        }
    }
  }

  // Bilinear sampling of a linear ramp is exact, so inside the image a small rotation, a zoom and
  // a shift give the ramp at the inverse-mapped point: centre + R(-a)(p - centre - t) / zoom.
  void smallAngleZoomAndShiftAgainstFormula() {
    const int64_t h = 9, w = 11;
    const auto ramp = [](double x, double y) { return 2.0 + 0.5 * x + 0.25 * y; };
    std::vector<float> in(static_cast<size_t>(h * w));
    for (int64_t i = 0; i < h; ++i)
      for (int64_t j = 0; j < w; ++j) in[static_cast<size_t>(i * w + j)] = static_cast<float>(ramp(j, i));
    Augmentation aug;
    aug.rotationDegrees = 15;
    aug.scale = 0.3;
    aug.shift = 0.2;
    AugmentDraw d;
    d.angleDegrees = 10;
    d.zoom = 1.25;
    d.shiftX = 1;
    d.shiftY = -1;
    const auto out = applied(aug, d, in, 1, h, w);
    const double a = 10 * std::numbers::pi / 180, cx = (w - 1) / 2.0, cy = (h - 1) / 2.0;
    int inside = 0;
    for (int64_t i = 0; i < h; ++i)
      for (int64_t j = 0; j < w; ++j) {
        const double dx = j - cx - 1, dy = i - cy + 1;
        const double sx = cx + (dx * std::cos(a) - dy * std::sin(a)) / 1.25;
        const double sy = cy + (dx * std::sin(a) + dy * std::cos(a)) / 1.25;
        const float o = out[static_cast<size_t>(i * w + j)];
        QVERIFY(std::isfinite(o));
        if (sx >= 0 && sx <= w - 1 && sy >= 0 && sy <= h - 1) {
          ++inside;
          QVERIFY2(std::fabs(o - ramp(sx, sy)) < 1e-4, qPrintable(QString("(%1,%2): %3 vs %4").arg(i).arg(j).arg(o).arg(ramp(sx, sy))));
        } else if (sx <= -1 || sx >= w || sy <= -1 || sy >= h) {
          QCOMPARE(o, 0.0f);  // fill 0
        }
      }
    QVERIFY(inside > h * w / 2);
  }

  // shift alone moves whole pixels, exactly, by round(U[-f, f]·W) and round(U[-f, f]·H).
  void shiftMovesWholePixels() {
    Augmentation aug;
    aug.shift = 0.5;
    const auto in = numbered(1, 6, 8);
    std::set<int64_t> shifts;
    for (int64_t id = 0; id < 100; ++id) {
      const AugmentDraw d = drawAugmentation(aug, 3, 1, id, 6, 8);
      QVERIFY(std::abs(d.shiftX) <= 4 && std::abs(d.shiftY) <= 3);
      shifts.insert(d.shiftX);
      const auto out = augmented(aug, in, {1, 6, 8}, id, 1, 3);
      for (int64_t i = 0; i < 6; ++i)
        for (int64_t j = 0; j < 8; ++j) {
          const int64_t si = i - d.shiftY, sj = j - d.shiftX;
          QCOMPARE(at(out, 6, 8, 0, i, j), si >= 0 && si < 6 && sj >= 0 && sj < 8 ? at(in, 6, 8, 0, si, sj) : 0.0f);
        }
    }
    QVERIFY(shifts.size() >= 7);
  }

  // x ← x·b, then x ← (x - mean)·k + mean over the whole sample, b ∈ [max(0, 1-B), 1+B], k likewise.
  void brightnessAndContrastFormula() {
    Augmentation aug;
    aug.brightness = 0.3;
    aug.contrast = 0.4;
    const Shape shape{3, 4, 5};
    std::vector<float> in(60);
    for (size_t i = 0; i < in.size(); ++i) in[i] = 0.01f * static_cast<float>((i * 37) % 101);
    float lowB = 2, highB = 0, lowK = 2, highK = 0;
    for (int64_t id = 0; id < 200; ++id) {
      const AugmentDraw d = drawAugmentation(aug, 11, 4, id, 4, 5);
      QVERIFY(d.brightness >= 0.7f && d.brightness <= 1.3f && d.contrast >= 0.6f && d.contrast <= 1.4f);
      lowB = std::min(lowB, d.brightness), highB = std::max(highB, d.brightness);
      lowK = std::min(lowK, d.contrast), highK = std::max(highK, d.contrast);
      std::vector<float> expected = in;
      double sum = 0;
      for (float& v : expected) sum += (v *= d.brightness);
      const auto mean = static_cast<float>(sum / 60);
      for (float& v : expected) v = (v - mean) * d.contrast + mean;
      const auto out = augmented(aug, in, shape, id, 4, 11);
      for (size_t i = 0; i < in.size(); ++i) QVERIFY(std::fabs(out[i] - expected[i]) <= 1e-6f);
      // Contrast keeps the mean (of the brightened sample).
      double outSum = 0;
      for (float v : out) outSum += v;
      QVERIFY(std::fabs(outSum / 60 - mean) < 1e-5);
    }
    QVERIFY(lowB < 0.75f && highB > 1.25f && lowK < 0.65f && highK > 1.35f);
    // A brightness above 1 cannot make values negative: the factor stops at 0.
    aug.brightness = 3;
    aug.contrast = 0;
    for (int64_t id = 0; id < 100; ++id) QVERIFY(drawAugmentation(aug, 1, 1, id, 4, 5).brightness >= 0);
  }

  // Note [Augmentation draws]: the same (seed, epoch, index) gives the same output wherever the
  // sample sits in a batch; another index, epoch or seed gives another draw.
  void drawsDependOnSeedEpochAndIndexOnly() {
    Augmentation aug;
    aug.flipHorizontal = true;
    aug.cropPadding = 3;
    aug.rotationDegrees = 20;
    aug.brightness = 0.2;
    const Shape shape{1, 8, 8};
    const auto in = numbered(1, 8, 8);
    QCOMPARE(augmented(aug, in, shape, 5, 2, 9), augmented(aug, in, shape, 5, 2, 9));
    QVERIFY(augmented(aug, in, shape, 5, 2, 9) != augmented(aug, in, shape, 6, 2, 9));
    QVERIFY(augmented(aug, in, shape, 5, 2, 9) != augmented(aug, in, shape, 5, 3, 9));
    QVERIFY(augmented(aug, in, shape, 5, 2, 9) != augmented(aug, in, shape, 5, 2, 10));

    // A batch: row n is sample ids[n]; the order of the rows does not matter.
    const std::vector<int64_t> ids{5, 17, 2};
    const std::vector<int64_t> reversed{2, 17, 5};
    Tensor x({3, 1, 8, 8}), y({3, 1, 8, 8});
    for (int64_t n = 0; n < 3; ++n)
      for (int64_t k = 0; k < 64; ++k) x[n * 64 + k] = y[(2 - n) * 64 + k] = in[static_cast<size_t>(k)];
    augmentBatch(aug, 9, 2, ids, x);
    augmentBatch(aug, 9, 2, reversed, y);
    for (int64_t n = 0; n < 3; ++n) {
      const auto one = augmented(aug, in, shape, ids[static_cast<size_t>(n)], 2, 9);
      for (int64_t k = 0; k < 64; ++k) {
        QCOMPARE(x[n * 64 + k], one[static_cast<size_t>(k)]);
        QCOMPARE(y[(2 - n) * 64 + k], one[static_cast<size_t>(k)]);
      }
    }

    // Turning one transform on does not change another's draw.
    Augmentation more = aug;
    more.flipVertical = true;
    more.contrast = 0.5;
    for (int64_t id = 0; id < 50; ++id) {
      const AugmentDraw a = drawAugmentation(aug, 9, 2, id, 8, 8), b = drawAugmentation(more, 9, 2, id, 8, 8);
      QCOMPARE(a.flipHorizontal, b.flipHorizontal);
      QCOMPARE(a.cropX, b.cropX);
      QCOMPARE(a.cropY, b.cropY);
      QCOMPARE(a.angleDegrees, b.angleDegrees);
      QCOMPARE(a.brightness, b.brightness);
    }
  }

  // Everything on at its widest, on odd and tiny shapes: every value finite, and a value that is
  // not fill is within the input's range scaled by brightness and contrast.
  void noNaNAtBorders() {
    Augmentation aug;
    aug.flipHorizontal = aug.flipVertical = true;
    aug.cropPadding = 6;
    aug.rotationDegrees = 180;
    aug.scale = 0.9;
    aug.shift = 1;
    for (const Shape& shape : std::vector<Shape>{{1, 1, 1}, {1, 1, 7}, {3, 5, 4}, {2, 13, 9}}) {
      const auto in = numbered(shape[0], shape[1], shape[2]);
      for (int64_t id = 0; id < 200; ++id) {
        const auto out = augmented(aug, in, shape, id, id % 3);
        for (float v : out) QVERIFY2(std::isfinite(v) && v >= 0 && v <= 1000, qPrintable(QString::number(v)));
      }
    }
    // Hand-made draws over the whole range of angles and zooms, with shifts and crops: the source
    // positions sweep every border (ASan checks the reads; this test is in the asan subset).
    for (const Shape& shape : std::vector<Shape>{{1, 1, 1}, {2, 3, 7}, {1, 16, 16}}) {
      const auto in = numbered(shape[0], shape[1], shape[2]);
      for (double angle = -180; angle <= 180; angle += 7.5)
        for (const double zoom : {0.1, 0.5, 0.97, 1.0, 1.03, 1.9})
          for (const int64_t shift : {-3, 0, 2}) {
            AugmentDraw d;
            d.angleDegrees = angle;
            d.zoom = zoom;
            d.shiftX = shift;
            d.shiftY = -shift;
            d.cropX = 6 + shift;
            d.cropY = 6;
            d.flipHorizontal = shift > 0;
            for (float v : applied(aug, d, in, shape[0], shape[1], shape[2]))
              QVERIFY2(std::isfinite(v) && v >= 0 && v <= 1000, qPrintable(QString("angle %1 zoom %2: %3").arg(angle).arg(zoom).arg(v)));
          }
    }
    aug.brightness = 1;
    aug.contrast = 1;
    const auto in = numbered(3, 5, 4);
    for (int64_t id = 0; id < 200; ++id)
      for (float v : augmented(aug, in, {3, 5, 4}, id)) QVERIFY(std::isfinite(v));
  }

  void vectorsRefused() {
    Augmentation aug;
    aug.brightness = 0.1;
    Tensor v({2, 784});
    QVERIFY(errorOf([&] { augmentBatch(aug, 1, 1, std::vector<int64_t>{0, 1}, v); }).contains("not images (C,H,W)"));
    QVERIFY(errorOf([&] { checkAugmentable(aug, {784}, "the Input 'x'"); })
                .contains("config.augmentation: the Input 'x' has samples of shape 784, not images (C,H,W)"));
    QVERIFY(errorOf([&] { checkAugmentable(Augmentation{}, {784}, "x"); }).isEmpty());
    QVERIFY(errorOf([&] { checkAugmentable(aug, {3, 32, 32}, "x"); }).isEmpty());
    // The plan refuses before training when the Input takes vectors.
    Json j = Json::parse(kProject);
    j["network"]["nodes"][0]["params"]["shape"] = {64};
    j["config"]["augmentation"] = {{"flip_horizontal", true}};
    const Project p = parseProject(j, "/projects/augmented.nsproj");
    const QString e = errorOf([&] { planTraining(p, 100, 1, 2, false); });
    QVERIFY2(e.contains("config.augmentation: the Input 'x' has samples of shape 64"), qPrintable(e));
  }

  void describedInThePlan() {
    QCOMPARE(describeAugmentation(Augmentation{}), std::string("off"));
    Augmentation aug;
    aug.flipHorizontal = true;
    aug.cropPadding = 4;
    QCOMPARE(describeAugmentation(aug), std::string("horizontal flip, crop padding 4"));
    aug.rotationDegrees = 15;
    aug.brightness = 0.2;
    QCOMPARE(describeAugmentation(aug), std::string("horizontal flip, crop padding 4, rotation ±15°, brightness ±0.2"));

    const TrainingPlan on = planTraining(projectWith({{"flip_horizontal", true}, {"crop_padding", 4}}), 100, 1, 2, false);
    QVERIFY(on.augmentation.flipHorizontal);
    QVERIFY(QString::fromStdString(on.toText()).contains("Augmentation:         horizontal flip, crop padding 4\n"));
    QCOMPARE(on.toJson()["augmentation"].get<std::string>(), std::string("horizontal flip, crop padding 4"));
    const TrainingPlan off = planTraining(projectWith(nullptr), 100, 1, 2, false);
    QVERIFY(QString::fromStdString(off.toText()).contains("Augmentation:         off\n"));
  }

  void projectFileRoundTrip() {
    // Absent: all off, and written back without the object.
    const Project plain = projectWith(nullptr);
    QVERIFY(plain.config.augmentation == Augmentation{});
    QVERIFY(!projectToJson(plain)["config"].contains("augmentation"));
    QVERIFY(QString::fromStdString(projectToText(plain)).indexOf("augmentation") < 0);

    const Json all = {{"flip_horizontal", true}, {"flip_vertical", true}, {"crop_padding", 4}, {"rotation_degrees", 12.5},
                      {"scale", 0.1},           {"shift", 0.125},       {"brightness", 0.2}, {"contrast", 0.3}};
    const Project p = projectWith(all);
    const Augmentation& a = p.config.augmentation;
    QVERIFY(a.flipHorizontal && a.flipVertical);
    QCOMPARE(a.cropPadding, int64_t{4});
    QCOMPARE(a.rotationDegrees, 12.5);
    QCOMPARE(a.scale, 0.1);
    QCOMPARE(a.shift, 0.125);
    QCOMPARE(a.brightness, 0.2);
    QCOMPARE(a.contrast, 0.3);
    const Json written = projectToJson(p);
    QCOMPARE(written["config"]["augmentation"], all);
    QVERIFY(parseProjectText(projectToText(p), "/projects/augmented.nsproj").config.augmentation == a);

    // Only what is on is written; an object of zeros and falses reads as off and is dropped.
    QCOMPARE(projectToJson(projectWith({{"crop_padding", 2}, {"flip_vertical", false}}))["config"]["augmentation"],
             Json({{"crop_padding", 2}}));
    const Project zeros = projectWith({{"flip_horizontal", false}, {"rotation_degrees", 0}});
    QVERIFY(!zeros.config.augmentation.enabled());
    QVERIFY(!projectToJson(zeros)["config"].contains("augmentation"));
  }

  void projectFileErrors_data() {
    QTest::addColumn<QString>("augmentation");
    QTest::addColumn<QString>("message");
    QTest::newRow("not an object") << R"(true)"
                                   << "config.augmentation: expected an object such as {\"flip_horizontal\": true, \"crop_padding\": 4}, got true";
    QTest::newRow("unknown key") << R"({"flip_horizontaly": true})"
                                 << "config.augmentation.flip_horizontaly: unknown key; did you mean flip_horizontal?";
    QTest::newRow("flip not bool") << R"({"flip_vertical": 1})" << "config.augmentation.flip_vertical: expected true or false, got 1";
    QTest::newRow("negative padding") << R"({"crop_padding": -1})"
                                      << "config.augmentation.crop_padding: expected an integer in [0, 4096], got -1";
    QTest::newRow("fractional padding") << R"({"crop_padding": 2.5})"
                                        << "config.augmentation.crop_padding: expected an integer in [0, 4096], got 2.5";
    QTest::newRow("rotation too large") << R"({"rotation_degrees": 200})"
                                        << "config.augmentation.rotation_degrees: expected a number in [0, 180] (degrees), got 200";
    QTest::newRow("negative rotation") << R"({"rotation_degrees": -5})"
                                       << "config.augmentation.rotation_degrees: expected a number in [0, 180] (degrees), got -5";
    QTest::newRow("scale 1") << R"({"scale": 1})" << "config.augmentation.scale: expected a number in [0, 1) (the largest relative change";
    QTest::newRow("shift too large") << R"({"shift": 1.5})" << "config.augmentation.shift: expected a number in [0, 1] (a fraction";
    QTest::newRow("brightness negative") << R"({"brightness": -0.1})" << "config.augmentation.brightness: expected a number >= 0, got -0.1";
    QTest::newRow("contrast text") << R"({"contrast": "0.2"})" << "config.augmentation.contrast: expected a number >= 0, got \"0.2\"";
  }

  void projectFileErrors() {
    QFETCH(QString, augmentation);
    QFETCH(QString, message);
    const QString e = errorOf([&] { projectWith(Json::parse(augmentation.toStdString())); });
    QVERIFY2(e.startsWith("/projects/augmented.nsproj: " + message), qPrintable(e));
  }
};

QTEST_GUILESS_MAIN(TestAugment)
#include "tst_augment.moc"
