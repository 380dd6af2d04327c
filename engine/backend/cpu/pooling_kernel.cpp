#include "engine/backend/cpu/pooling_kernel.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/backend/cpu/parallel_for.h"

namespace netsmith::cpu {
namespace {

class PoolingKernel final : public Kernel {
 public:
  PoolingKernel(const ops::PoolingGeometry& g, PoolingMode mode, bool includingPad)
      : m_mode(mode),
        m_channels(g.channels),
        m_inH(g.height.in),
        m_inW(g.width.in),
        m_outH(g.height.out),
        m_outW(g.width.out) {
    for (int64_t o = 0; o < m_outH; ++o) {
      m_hBegin.push_back(g.height.begin(o));
      m_hEnd.push_back(g.height.end(o));
    }
    for (int64_t o = 0; o < m_outW; ++o) {
      m_wBegin.push_back(g.width.begin(o));
      m_wEnd.push_back(g.width.end(o));
    }
    if (mode == PoolingMode::Average) {
      m_scale.resize(m_outH * m_outW);
      for (int64_t oh = 0; oh < m_outH; ++oh) {
        for (int64_t ow = 0; ow < m_outW; ++ow) {
          const int64_t count = includingPad ? g.height.paddedExtent(oh) * g.width.paddedExtent(ow)
                                             : (m_hEnd[oh] - m_hBegin[oh]) * (m_wEnd[ow] - m_wBegin[ow]);
          m_scale[oh * m_outW + ow] = 1.0f / static_cast<float>(count);
        }
      }
    }
    // LeNet's case: 2×2 windows, stride 2, no padding, tiling the input exactly. Every input
    // element lies in exactly one window, so backward writes each once and needs no zeroing.
    m_tiled2x2 = g.height.kernel == 2 && g.width.kernel == 2 && g.height.stride == 2 && g.width.stride == 2 &&
                 g.height.pad == 0 && g.width.pad == 0 && m_inH == 2 * m_outH && m_inW == 2 * m_outW;
  }

  void forward(KernelCall& call) override {
    const Tensor& x = *call.inputs[0];
    const int64_t planes = x.dim(0) * m_channels;
    if (m_mode == PoolingMode::Average) {
      averageForward(x.data(), call.output.data(), planes);
      return;
    }
    // The argmax is kept only for training; an inference pass skips writing it.
    if (call.training) {
      maxForward<true, true>(x.data(), call.output.data(), planes);
      m_argmaxPlanes = planes;
    } else {
      maxForward<true, false>(x.data(), call.output.data(), planes);
      m_argmaxPlanes = -1;
    }
  }

  void backward(KernelCall& call) override {
    Tensor* dx = call.inputGrads[0];
    if (!dx) return;
    const Tensor& x = *call.inputs[0];
    const int64_t planes = x.dim(0) * m_channels;
    if (m_mode == PoolingMode::Average) {
      averageBackward(call.outputGrad->data(), dx->data(), planes);
      return;
    }
    if (m_argmaxPlanes != planes) {  // backward after an inference forward: find the maxima again
      maxForward<false, true>(x.data(), nullptr, planes);
      m_argmaxPlanes = planes;
    }
    maxBackward(call.outputGrad->data(), dx->data(), planes);
  }

 private:
  // Ties go to the first element in row-major order, as in nnabla. The tiled 2×2 case keeps the
  // winner's position in its window as one byte (0..3, row-major): a quarter of the memory traffic
  // of an index, which made the training forward twice as fast; the general case keeps the
  // plane-local input index.
  template <bool kWriteOutput, bool kKeepArgmax>
  void maxForward(const float* x, float* y, int64_t planes) {
    const int64_t inPlane = m_inH * m_inW;
    const int64_t outPlane = m_outH * m_outW;
    if constexpr (kKeepArgmax) {
      if (m_tiled2x2)
        m_argmaxCode.resize(planes * outPlane);
      else
        m_argmax.resize(planes * outPlane);
    }
    uint8_t* const codes = m_argmaxCode.data();
    int32_t* const index = m_argmax.data();
    parallelFor(planes, [&](int64_t p) {
      const float* xp = x + p * inPlane;
      float* yp = kWriteOutput ? y + p * outPlane : nullptr;
      if (m_tiled2x2) {
        uint8_t* cp = kKeepArgmax ? codes + p * outPlane : nullptr;
        for (int64_t oh = 0; oh < m_outH; ++oh) {
          const float* r0 = xp + 2 * oh * m_inW;
          const float* r1 = r0 + m_inW;
          for (int64_t ow = 0; ow < m_outW; ++ow) {
            // Selects instead of branches: on real activations the winner is unpredictable.
            const float a = r0[2 * ow], b = r0[2 * ow + 1], c = r1[2 * ow], d = r1[2 * ow + 1];
            const bool right = b > a, bottomRight = d > c;
            const float vTop = right ? b : a, vBottom = bottomRight ? d : c;
            const bool bottom = vBottom > vTop;  // strictly: a tie stays with the upper row
            if constexpr (kWriteOutput) yp[oh * m_outW + ow] = bottom ? vBottom : vTop;
            if constexpr (kKeepArgmax) cp[oh * m_outW + ow] = static_cast<uint8_t>(bottom ? 2 + bottomRight : right);
          }
        }
        return;
      }
      int32_t* ip = kKeepArgmax ? index + p * outPlane : nullptr;
      for (int64_t oh = 0; oh < m_outH; ++oh) {
        const int64_t hb = m_hBegin[oh], he = m_hEnd[oh];
        for (int64_t ow = 0; ow < m_outW; ++ow) {
          const int64_t wb = m_wBegin[ow], we = m_wEnd[ow];
          int64_t at = hb * m_inW + wb;
          float v = xp[at];
          for (int64_t ih = hb; ih < he; ++ih) {
            for (int64_t iw = wb; iw < we; ++iw) {
              const int64_t i = ih * m_inW + iw;
              const bool greater = xp[i] > v;
              v = greater ? xp[i] : v;
              at = greater ? i : at;
            }
          }
          if constexpr (kWriteOutput) yp[oh * m_outW + ow] = v;
          if constexpr (kKeepArgmax) ip[oh * m_outW + ow] = static_cast<int32_t>(at);
        }
      }
    });
  }

  void maxBackward(const float* dy, float* dx, int64_t planes) const {
    const int64_t inPlane = m_inH * m_inW;
    const int64_t outPlane = m_outH * m_outW;
    const uint8_t* const codes = m_argmaxCode.data();
    const int32_t* const index = m_argmax.data();
    parallelFor(planes, [&](int64_t p) {
      const float* gp = dy + p * outPlane;
      float* dp = dx + p * inPlane;
      if (m_tiled2x2) {
        const uint8_t* cp = codes + p * outPlane;
        for (int64_t oh = 0; oh < m_outH; ++oh) {
          float* r0 = dp + 2 * oh * m_inW;
          float* r1 = r0 + m_inW;
          for (int64_t ow = 0; ow < m_outW; ++ow) {
            r0[2 * ow] = r0[2 * ow + 1] = r1[2 * ow] = r1[2 * ow + 1] = 0.0f;
            const int64_t code = cp[oh * m_outW + ow];
            r0[2 * ow + (code & 1) + (code >> 1) * m_inW] = gp[oh * m_outW + ow];
          }
        }
        return;
      }
      const int32_t* ip = index + p * outPlane;
      std::memset(dp, 0, static_cast<size_t>(inPlane) * sizeof(float));
      for (int64_t o = 0; o < outPlane; ++o) dp[ip[o]] += gp[o];
    });
  }

  void averageForward(const float* x, float* y, int64_t planes) const {
    const int64_t inPlane = m_inH * m_inW;
    const int64_t outPlane = m_outH * m_outW;
    parallelFor(planes, [&](int64_t p) {
      const float* xp = x + p * inPlane;
      float* yp = y + p * outPlane;
      if (m_tiled2x2) {
        for (int64_t oh = 0; oh < m_outH; ++oh) {
          const float* r0 = xp + 2 * oh * m_inW;
          const float* r1 = r0 + m_inW;
          for (int64_t ow = 0; ow < m_outW; ++ow)
            yp[oh * m_outW + ow] = (r0[2 * ow] + r0[2 * ow + 1] + r1[2 * ow] + r1[2 * ow + 1]) * 0.25f;
        }
        return;
      }
      for (int64_t oh = 0; oh < m_outH; ++oh) {
        const int64_t hb = m_hBegin[oh], he = m_hEnd[oh];
        for (int64_t ow = 0; ow < m_outW; ++ow) {
          const int64_t wb = m_wBegin[ow], we = m_wEnd[ow];
          float sum = 0.0f;
          for (int64_t ih = hb; ih < he; ++ih)
            for (int64_t iw = wb; iw < we; ++iw) sum += xp[ih * m_inW + iw];
          yp[oh * m_outW + ow] = sum * m_scale[oh * m_outW + ow];
        }
      }
    });
  }

  void averageBackward(const float* dy, float* dx, int64_t planes) const {
    const int64_t inPlane = m_inH * m_inW;
    const int64_t outPlane = m_outH * m_outW;
    parallelFor(planes, [&](int64_t p) {
      const float* gp = dy + p * outPlane;
      float* dp = dx + p * inPlane;
      if (m_tiled2x2) {
        for (int64_t oh = 0; oh < m_outH; ++oh) {
          float* r0 = dp + 2 * oh * m_inW;
          float* r1 = r0 + m_inW;
          for (int64_t ow = 0; ow < m_outW; ++ow) {
            const float g = gp[oh * m_outW + ow] * 0.25f;
            r0[2 * ow] = r0[2 * ow + 1] = r1[2 * ow] = r1[2 * ow + 1] = g;
          }
        }
        return;
      }
      std::memset(dp, 0, static_cast<size_t>(inPlane) * sizeof(float));
      for (int64_t oh = 0; oh < m_outH; ++oh) {
        const int64_t hb = m_hBegin[oh], he = m_hEnd[oh];
        for (int64_t ow = 0; ow < m_outW; ++ow) {
          const int64_t wb = m_wBegin[ow], we = m_wEnd[ow];
          const float g = gp[oh * m_outW + ow] * m_scale[oh * m_outW + ow];
          for (int64_t ih = hb; ih < he; ++ih)
            for (int64_t iw = wb; iw < we; ++iw) dp[ih * m_inW + iw] += g;
        }
      }
    });
  }

  PoolingMode m_mode;
  int64_t m_channels;
  int64_t m_inH, m_inW, m_outH, m_outW;
  std::vector<int64_t> m_hBegin, m_hEnd, m_wBegin, m_wEnd;  // input range of each window row / column
  std::vector<float> m_scale;                                // Average: 1 / divisor per output position
  bool m_tiled2x2 = false;
  // Max, per output (N, C, outH, outW): the plane-local input index of the maximum, or in the
  // tiled 2×2 case its position in the window. Grown, never shrunk, so a short batch allocates nothing.
  std::vector<int32_t> m_argmax;
  std::vector<uint8_t> m_argmaxCode;
  int64_t m_argmaxPlanes = -1;  // planes the argmax was computed for by the last forward; -1: none
};

}  // namespace

std::unique_ptr<Kernel> makePoolingKernel(const ops::PoolingGeometry& geometry, PoolingMode mode,
                                          bool includingPad) {
  return std::make_unique<PoolingKernel>(geometry, mode, includingPad);
}

}  // namespace netsmith::cpu
