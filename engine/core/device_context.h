// DeviceContext: what a kernel needs to run on one device (a CPU worker or a GPU).
// One context per worker thread; only that thread uses it for kernels (the host-view copies below
// may also be made by the thread that created the worker while the worker is idle). Kernels of a
// backend static_cast it to their backend's context type (CpuDeviceContext, CudaDeviceContext),
// chosen by the backend key.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/core/channels_last.h"
#include "engine/core/tensor.h"

namespace netsmith {

// A GPU's sensors (NVML) as read at the last busySeconds() call; a CPU worker has none.
struct DeviceSensors {
  std::optional<double> temperatureC;
  std::optional<double> powerW;
  // The most memory the driver said was in use on the device (every process's) since sampling
  // began: a run's measured peak (Note [Memory before launch], engine/train/memory_estimate.h).
  std::optional<int64_t> memoryUsedPeakMb;
};

class DeviceContext {
 public:
  virtual ~DeviceContext() = default;
  // The backend key kernels are registered under: "cpu" or "cuda".
  virtual const std::string& backend() const = 0;
  // The device id as users write it: "cpu:0", "cuda:1".
  virtual const std::string& id() const = 0;
  // Waits until all work queued on the device has finished.
  virtual void synchronize() = 0;
  // Busy time of the device's execution resources so far, in resource-seconds; a worker's
  // utilization over a window is Δ busySeconds / (Δ wall seconds × parallelism()). A CPU worker
  // counts the CPU time of its threads. Call on the worker's thread.
  virtual double busySeconds() const = 0;
  virtual DeviceSensors sensors() const { return {}; }
  // Bytes in use on the device now, every process's (a GPU's driver figure); none for the CPU.
  virtual std::optional<int64_t> memoryInUseBytes() const { return std::nullopt; }
  virtual int parallelism() const = 0;

  // Note [Device memory] (engine/model/network.h) — the memory kernels read and write.
  // Null (the default, the CPU): plain host memory. Otherwise every tensor a kernel sees comes
  // from this allocator, and the host reaches it only through the copies below.
  virtual TensorAllocator* deviceAllocator() { return nullptr; }
  // Host buffers that are copied to the device every iteration (the gathered batch): pinned
  // memory on a GPU, so the copy is asynchronous; null: plain host memory.
  virtual TensorAllocator* stagingAllocator() { return nullptr; }

  // Copies and fills on memory of deviceAllocator() (pointers and counts in floats), queued in
  // order with the kernels. The defaults are the host's plain loops, exactly what the CPU path
  // always did, so it is unchanged bit for bit.
  // host → device; `src` may be reused once the device has consumed it (pinned staging memory is
  // read asynchronously: Note [Device memory]).
  virtual void upload(float* dst, const float* src, int64_t n);
  // device → host; returns once the values are in `dst` (waits for the queued work).
  virtual void download(float* dst, const float* src, int64_t n);
  // device → host without waiting: `dst` is memory of stagingAllocator(), and its values are
  // there once finishDownloads() has returned. The host can queue more work before it waits for a
  // result (Note [Loss read after the step is queued], engine/train/replica.cpp). The default is
  // download(): the values are there at once.
  virtual void queueDownload(float* dst, const float* src, int64_t n) { download(dst, src, n); }
  // Waits for the copies queueDownload() queued on this device.
  virtual void finishDownloads() {}
  // Note [Device-clock profile] (engine/train/profiler.h): marks on the device's queue time a
  // profiled step without waiting for each section. mark() queues a timestamp and returns its
  // number since clearMarks(), or -1 on a device that has run each call before it returns (the
  // CPU: the host's clock is its clock). After waitForMarks(), secondsBetween(a, b) is the
  // device's time from mark a to mark b.
  virtual int mark() { return -1; }
  virtual void waitForMarks() {}
  virtual double secondsBetween(int /*a*/, int /*b*/) { return 0.0; }
  virtual void clearMarks() {}
  // Note [CUDA graphs of a step] (engine/train/replica.cpp): a device that records the work queued
  // between beginCapture() and endCapture() — which then has not run — and replays it with
  // launchCaptured(), which also re-records what finishDownloads() waits for. endCapture() is
  // false when the capture failed (a call it cannot hold); the work then has not run either.
  // memoryGeneration() changes whenever the device's memory is handed out or given back: a
  // capture's pointers hold while it stays the same.
  virtual bool capturesGraphs() const { return false; }
  virtual void beginCapture() {}
  virtual bool endCapture() { return false; }
  virtual void launchCaptured() {}
  virtual uint64_t memoryGeneration() const { return 0; }
  // device → device.
  virtual void copy(float* dst, const float* src, int64_t n);
  virtual void fill(float* dst, int64_t n, float value);
  // acc[i] += x[i]
  virtual void accumulate(float* acc, const float* x, int64_t n);
  // dst[i] = src[i] * s
  virtual void scale(float* dst, const float* src, int64_t n, float s);
  // Note [Weight averaging] (engine/optim/weight_average.h): average[i] moves toward value[i] by
  // body::averagedValue (engine/host_device/weight_average.h; weight = 1 − decay), unless `skip` —
  // null, or an int in this device's memory read when the work runs — is nonzero (a solver step
  // that skipped its update on the device). Each backend runs the one host-device body.
  virtual void averageToward(float* average, const float* value, int64_t n, float decay, float weight,
                             const int* skip) = 0;
  // a[i] and b[i] exchange values.
  virtual void exchange(float* a, float* b, int64_t n) = 0;

  // Note [16-bit activations] (engine/model/network.cpp): the storage in which this device keeps
  // the activations, and their gradients, of the layers whose kernels take 16-bit ones; Float32
  // except on a GPU computing in half or bfloat16.
  virtual Storage activationStorage() const { return Storage::Float32; }
  // Whether this device keeps the activations of layers that take them channels last (Note
  // [Channels last], engine/core/channels_last.h).
  virtual bool channelsLast() const { return false; }
  // Between tensors of the context's memory whose storages and layouts may differ (same shape):
  // convert() sets dst to src's values rounded to dst's storage (nearest, ties to even) in dst's
  // layout (Note [Channels last]); accumulateTensor() adds x to acc, each sum in float32 then
  // stored in acc's storage.
  virtual void convert(Tensor& dst, const Tensor& src);
  virtual void accumulateTensor(Tensor& acc, const Tensor& x);
};

// Where each value of dst comes from in src when their layouts differ (Note [Channels last]).
LayoutMap layoutMap(const Tensor& dst, const Tensor& src);

}  // namespace netsmith
