// The simulated GPUs' copies and fills (Note [Simulated GPUs]): which side is device memory,
// pageable or pinned host memory, when the source is read and when the call returns.
#include <chrono>
#include <cstring>
#include <thread>

#include "engine/backend/cuda/sim/simulated_runtime.h"
#include "engine/core/error.h"

namespace netsmith::cuda::sim {
namespace {

const char* kindName(cudaMemcpyKind kind) {
  switch (kind) {
    case cudaMemcpyHostToHost: return "HostToHost";
    case cudaMemcpyHostToDevice: return "HostToDevice";
    case cudaMemcpyDeviceToHost: return "DeviceToHost";
    case cudaMemcpyDeviceToDevice: return "DeviceToDevice";
    default: return "Default";
  }
}

}  // namespace

Stream& SimulatedRuntime::legacyStream(Device& device) {
  std::lock_guard lock(device.legacyMutex);
  if (!device.legacyStream) device.legacyStream = std::make_unique<Stream>(device, 0, m_options.jitter, nextStreamSeed(), m_options.lag);
  return *device.legacyStream;
}

cudaError_t SimulatedRuntime::enqueueCopy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, Stream& stream,
                                          const char* call, bool synchronous) {
  Device& device = stream.device();
  if (const cudaError_t e = checkDevice(device); e != cudaSuccess) return e;
  if (bytes == 0) return cudaSuccess;
  Device* dstDevice = deviceOf(dst);
  Device* srcDevice = deviceOf(src);
  const bool wantDstDevice = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool wantSrcDevice = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (kind == cudaMemcpyDefault)
    return fail(cudaErrorInvalidValue, format("{}: the backend names the direction of every copy", call));
  const std::string what = format("{} ({}, {} bytes)", call, kindName(kind), bytes);
  if (wantDstDevice != (dstDevice != nullptr))
    return fail(cudaErrorInvalidValue, format("{}: the destination {} is {}", what, dst,
                                              dstDevice ? format("memory of cuda:{}", dstDevice->ordinal) : "host memory"));
  if (wantSrcDevice != (srcDevice != nullptr))
    return fail(cudaErrorInvalidValue, format("{}: the source {} is {}", what, src,
                                              srcDevice ? format("memory of cuda:{}", srcDevice->ordinal) : "host memory"));
  for (Device* d : {dstDevice, srcDevice})
    if (d && d != &device)
      return fail(cudaErrorInvalidValue, format("{}: {} is memory of cuda:{}, the stream is cuda:{}'s", what,
                                                d == dstDevice ? dst : src, d->ordinal, device.ordinal));
  try {  // the ranges must be inside live allocations now (a GPU checks this at the call too)
    if (dstDevice) dstDevice->memory->translate(dst, bytes, what);
    if (srcDevice) srcDevice->memory->translate(src, bytes, what);
  } catch (const Fault& f) {
    return fail(cudaErrorInvalidValue, f.what());
  }
  bool pinnedSrc, pinnedDst;
  {
    std::lock_guard lock(m_mutex);
    pinnedSrc = !srcDevice && m_pinned.count(const_cast<void*>(src));
    pinnedDst = !dstDevice && m_pinned.count(dst);
  }
  // Note [Simulated CUDA graphs]: a copy from or to pageable memory waits for the host; none is
  // captured, and a synchronous copy waits for the device.
  if (synchronous || (!srcDevice && !pinnedSrc) || (!dstDevice && !pinnedDst))
    if (const cudaError_t e = refuseDuringCapture(what.c_str()); e != cudaSuccess) return e;
  Stream::Op op;
  op.what = what;
  if (kind == cudaMemcpyHostToDevice && !pinnedSrc) {
    // From pageable memory CUDA syncs the stream before the copy starts: the host waits for the
    // work queued before it, which a host that runs ahead must not forget (an upload in the middle
    // of a step stalls it).
    if (!synchronous) stream.waitFor(stream.lastTicket());
    // Pageable source: staged now, so the caller may reuse it when the call returns.
    auto staged = std::make_shared<std::vector<std::byte>>(static_cast<const std::byte*>(src),
                                                            static_cast<const std::byte*>(src) + bytes);
    // cudaMemcpy returns once the source is staged; with jitter its DMA lands late, after work
    // that other (non-blocking) streams were given meanwhile.
    const bool late = synchronous && m_options.jitter;
    op.run = [&device, dst, bytes, staged, what, late] {
      if (late) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      std::memcpy(device.memory->translate(dst, bytes, what), staged->data(), bytes);
    };
  } else {
    if (pinnedDst) {  // undefined until the copy has run, at each launch of a graph too
      op.atQueue = [dst, bytes] { std::memset(dst, 0xFF, bytes); };
      if (!stream.capturing()) op.atQueue();
    }
    op.run = [&device, dst, src, bytes, what, dstDevice, srcDevice] {
      void* to = dstDevice ? device.memory->translate(dst, bytes, what) : dst;
      const void* from = srcDevice ? device.memory->translate(src, bytes, what) : src;
      std::memmove(to, from, bytes);
    };
  }
  const uint64_t ticket = stream.enqueue(std::move(op));
  // To pageable memory the call returns once the values are there (and cudaMemcpy waits for its
  // copy except from pageable memory, which returns once the source is staged).
  const bool waits = (kind == cudaMemcpyDeviceToHost && !pinnedDst) || (synchronous && kind != cudaMemcpyHostToDevice) ||
                     (synchronous && pinnedSrc);
  if (waits) {
    stream.waitFor(ticket);
    if (const cudaError_t e = checkDevice(device); e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

cudaError_t SimulatedRuntime::memcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  Device& device = currentDevice();
  return enqueueCopy(dst, src, bytes, kind, legacyStream(device), "cudaMemcpy", true);
}

cudaError_t SimulatedRuntime::memcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                                          cudaStream_t handle) {
  Stream* s = stream(handle, "cudaMemcpyAsync");
  if (!s) return cudaErrorInvalidResourceHandle;
  return enqueueCopy(dst, src, bytes, kind, *s, "cudaMemcpyAsync", false);
}

cudaError_t SimulatedRuntime::memsetAsync(void* dst, int value, size_t bytes, cudaStream_t handle) {
  Stream* s = stream(handle, "cudaMemsetAsync");
  if (!s) return cudaErrorInvalidResourceHandle;
  Device& device = s->device();
  if (const cudaError_t e = checkDevice(device); e != cudaSuccess) return e;
  const std::string what = format("cudaMemsetAsync({} bytes)", bytes);
  try {
    if (!device.memory->inRange(dst)) throw Fault(format("{}: {} is not memory of the stream's cuda:{}", what, dst, device.ordinal));
    device.memory->translate(dst, bytes, what);
  } catch (const Fault& f) {
    return fail(cudaErrorInvalidValue, f.what());
  }
  s->enqueue({what, [&device, dst, value, bytes, what] {
                std::memset(device.memory->translate(dst, bytes, what), value, bytes);
              }});
  return cudaSuccess;
}

}  // namespace netsmith::cuda::sim
