// The launch-shape rule of the custom CUDA kernels (Note [Launch shapes], launch_shape.h): every
// shape is within CUDA's limits or an Error names the kernel. Host only, so it runs everywhere.
// BatchNormalization's channel partials once put the channel on gridDim.y, which stops at 65,535.
// netsmith-test-labels: asan

#include <QtTest>

#include <cstdint>
#include <string>

#include "engine/backend/cuda/launch_shape.h"
#include "engine/core/error.h"
#include "engine/ops/batch_normalization/cuda_math.h"

using namespace netsmith;
using namespace netsmith::cuda;

namespace {

// The Error's message, or "" when the call did not throw.
template <typename F>
std::string errorOf(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

}  // namespace

class TestLaunchShape : public QObject {
  Q_OBJECT

 private slots:
  // 70,000 channels (issue 13): the channel on grid x, the slices on grid y.
  void batchNormalizationManyChannels() {
    const LaunchShape s = perChannelSlice("batchNormalizationStatistics", 70000, bn::kSlices, kThreads);
    QCOMPARE(s.gridX, 70000u);
    QCOMPARE(s.gridY, static_cast<uint32_t>(bn::kSlices));
    QCOMPARE(s.gridZ, 1u);
    QCOMPARE(s.block, static_cast<uint32_t>(kThreads));
    // Up to gridDim.x's limit.
    QCOMPARE(perChannelSlice("batchNormalizationStatistics", kMaxGridX, bn::kSlices, kThreads).gridX,
             static_cast<uint32_t>(kMaxGridX));
    QCOMPARE(perThread("batchNormalizationFinishStatistics", 70000, 128).gridX, 547u);  // ceil(70000 / 128)
  }

  // The shape the kernel had before (channel on grid y) is refused, naming the kernel and the limit.
  void oldBatchNormalizationShapeThrows() {
    const std::string message = errorOf([] { checkedShape("channelPartials", bn::kSlices, 70000, 1, kThreads); });
    QVERIFY2(message.find("'channelPartials'") != std::string::npos, message.c_str());
    QVERIFY2(message.find("gridDim.y = 70000") != std::string::npos, message.c_str());
    QVERIFY2(message.find("65535") != std::string::npos, message.c_str());
  }

  void impossibleShapesThrowNamingTheKernel() {
    struct Case {
      const char* what;
      std::string message;
      const char* expected;
    };
    const Case cases[] = {
        {"2^31 channels", errorOf([] { perChannelSlice("bnHuge", kMaxGridX + 1, 64, 256); }), "gridDim.x = 2147483648"},
        {"65,536 slices", errorOf([] { perChannelSlice("bnSlices", 7, 65536, 256); }), "gridDim.y = 65536"},
        {"z too large", errorOf([] { checkedShape("zKernel", 1, 1, 65536, 32); }), "gridDim.z = 65536"},
        {"no blocks", errorOf([] { perBlock("emptyRows", 0, 128); }), "gridDim.x = 0"},
        {"no channels", errorOf([] { perThread("finishNothing", 0, 128); }), "gridDim.x = 0"},
        {"too many threads", errorOf([] { perBlock("wideBlock", 3, 2048); }), "blockDim.x = 2048"},
        {"partial warp", errorOf([] { perBlock("oddBlock", 3, 100); }), "whole warps"},
        {"negative n", errorOf([] { gridStride("negative", -1); }), "-1 elements"},
    };
    for (const Case& c : cases) {
      QVERIFY2(!c.message.empty(), c.what);
      QVERIFY2(c.message.find(c.expected) != std::string::npos, (std::string(c.what) + ": " + c.message).c_str());
    }
    // Each message names its kernel.
    QVERIFY(cases[0].message.find("'bnHuge'") != std::string::npos);
    QVERIFY(cases[3].message.find("'emptyRows'") != std::string::npos);
    QVERIFY(cases[5].message.find("'wideBlock'") != std::string::npos);
  }

  // Grid-stride loops cover any n, so their grid is capped rather than refused.
  void gridStrideCapsItsGrid() {
    QCOMPARE(gridStride("k", 0).gridX, 1u);
    QCOMPARE(gridStride("k", 1).gridX, 1u);
    QCOMPARE(gridStride("k", 257).gridX, 2u);
    QCOMPARE(gridStride("k", int64_t{1} << 40).gridX, static_cast<uint32_t>(kGridStrideMaxBlocks));
    QCOMPARE(gridStride("k", int64_t{1} << 40).block, static_cast<uint32_t>(kThreads));
  }

  void perBlockRows() {
    const LaunchShape s = perBlock("softmaxCrossEntropyForward", 3, 128);
    QCOMPARE(s.gridX, 3u);
    QCOMPARE(s.block, 128u);
    QCOMPARE(perBlock("globalAveragePoolingForward", 3 * 70000, kThreads).gridX, 210000u);
  }
};

QTEST_APPLESS_MAIN(TestLaunchShape)
#include "tst_launch_shape.moc"
