// Host entry points of the small CUDA kernels shared by the backend (cuda_elementwise.cu), for
// C++ files that nvcc does not compile. All are queued on `stream`; n counts floats.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "engine/core/channels_last.h"
#include "engine/core/half_floats.h"

namespace netsmith::cuda {

void launchFill(float* dst, int64_t n, float value, cudaStream_t stream);
void launchAccumulate(float* acc, const float* x, int64_t n, cudaStream_t stream);      // acc += x
void launchScale(float* dst, const float* src, int64_t n, float s, cudaStream_t stream);  // dst = src * s
void launchAdd(float* dst, const float* a, const float* b, int64_t n, cudaStream_t stream);  // dst = a + b
// Note [Weight averaging]: average moves toward value (body::AverageToward) unless `skip` (device
// memory, may be null) holds nonzero when the kernel runs; a and b exchange values.
void launchAverageToward(float* average, const float* value, int64_t n, float decay, float weight, const int* skip,
                         cudaStream_t stream);
void launchExchange(float* a, float* b, int64_t n, cudaStream_t stream);
// dst = a + b, all three in `storage`, the sum in float32 (Note [16-bit activations]).
void launchAdd(void* dst, const void* a, const void* b, Storage storage, int64_t n, cudaStream_t stream);
// out[i] = the sum over r < ranks (at most body::TreeSum::kMaxRanks) of parts[r * count + i], in
// Note [Reduction tree]'s order.
// Note [16-bit activations] (engine/model/network.cpp): dst[i] = src[i] rounded to dst's storage;
// acc[i] += x[i], the sum in float32 stored in acc's storage. n counts values.
// With `map`, between layouts too (Note [Channels last]): value i of dst is value map.source(i) of src.
void launchConvert(void* dst, Storage dstStorage, const void* src, Storage srcStorage, int64_t n, LayoutMap map,
                   cudaStream_t stream);
void launchAccumulateConverted(void* acc, Storage accStorage, const void* x, Storage xStorage, int64_t n, LayoutMap map,
                               cudaStream_t stream);
// y (batch, C, S) in `format` += b[c] (float32), then max(·, 0) when relu; n = batch·C·S.
void launchChannelBias(void* y, TensorFormat format, const float* b, int64_t n, int64_t C, int64_t S, bool relu,
                       cudaStream_t stream);
// db[c] = Σ over batch and S of dy (batch, C, S) in `format`: one block per channel, the sum in
// double in a fixed order (deterministic). Real GPUs only (simulated ones run the CPU kernels).
void launchChannelBiasGradient(float* db, const void* dy, TensorFormat format, int64_t batch, int64_t C, int64_t S,
                               cudaStream_t stream);
// ReLU (ceiling 0) or ReLU6 (ceiling 6) over n 16-bit values (body::ClampForward/ClampBackward);
// v: the output for ReLU, the input for ReLU6.
void launchClampForward(const void* x, void* y, Storage storage, int64_t n, float ceiling, cudaStream_t stream);
void launchClampBackward(const void* v, const void* dy, void* dx, Storage storage, int64_t n, float ceiling,
                         cudaStream_t stream);
void launchTreeSum(float* out, const float* parts, int ranks, int64_t count, cudaStream_t stream);

}  // namespace netsmith::cuda
