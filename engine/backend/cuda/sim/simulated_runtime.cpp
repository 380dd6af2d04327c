// Note [Simulated GPUs]
// NETSMITH_SIMULATED_GPUS=N (1 to 8) gives the CUDA backend N simulated GPUs instead of the
// driver's, so its host code — device memory, copies, streams, events, NCCL, the solver, the
// trainer's choreography, NVML — runs and is tested on machines without a GPU (DESIGN.md §9).
// The simulator is faithful where multi-GPU bugs hide, and strict where a GPU is undefined:
// - Streams are asynchronous: each is a queue run by its own host thread, in order; events are
//   recorded and waited for in stream order (cudaStreamWaitEvent waits for the recording made
//   before the call, as CUDA does). NETSMITH_SIMULATED_GPU_JITTER=1 delays every operation by a
//   random amount (NETSMITH_SIMULATED_GPU_SEED fixes the draw), so code that relies on an order
//   nothing enforces sees changing interleavings and fails instead of passing by luck.
//   NETSMITH_SIMULATED_GPU_LAG_US=L starts no operation sooner than L after it was queued, so the
//   host is always ahead of the device, as on a real GPU: an event completes only when the device
//   gets to it, however early the host recorded it (Note [Queued collectives]).
// - cudaFree and cudaFreeHost synchronise (cudaFree the device, cudaFreeHost every device), as
//   CUDA's do, so a free while a collective waits for a peer shows the hang it would cause. So do
//   cudaMalloc (the device) and cudaHostAlloc (every device): the CUDA guide lists device and
//   page-locked allocations among the implicit synchronizations, and a real driver often waits
//   there (SimulatorOptions::allocationsSynchronize, NETSMITH_SIMULATED_GPU_ALLOC_SYNC=0 turns
//   it off). With jitter each allocation also takes a random while, as a real one can.
// - Copies follow CUDA's rules on host memory: from pageable memory the stream's earlier work is
//   waited for and the source is read at the call; to pageable memory the call returns when the copy has run; to and from pinned memory
//   (cudaHostAlloc) the copy happens when the stream reaches it, and a pinned destination holds
//   NaN until then, so the host reading it early sees garbage, not yesterday's value. cudaMemcpy
//   runs on the legacy default stream, which non-blocking streams do not wait for; a pageable
//   host-to-device cudaMemcpy returns before its copy has run, as CUDA allows.
// - Device memory is checked (Note [Simulated device memory]); a kernel or copy that touches
//   memory it must not sets the device's sticky error, which every later call on the device
//   returns (cudaErrorIllegalAddress) with the sentence that says what happened.
// - Kernels run on the stream's thread (Note [Simulated kernels]); a launch on a stream of a
//   device other than the calling thread's current one is cudaErrorInvalidResourceHandle, as a
//   launch into another device's stream is on a GPU.
// - The runtime numbers devices in PCI bus order when CUDA_DEVICE_ORDER=PCI_BUS_ID was set when
//   it started, and otherwise in a "fastest first" order that differs from it (the reverse), so
//   code that assumes cuda:N is nvidia-smi's N without setting it is caught (Note [GPU numbering]).
//   CUDA_VISIBLE_DEVICES hides and renumbers devices for the runtime as CUDA reads it
//   (visibleSubset), while the simulated NVML still lists all of them in PCI bus order.
// - The devices report compute capability NETSMITH_SIMULATED_GPU_ARCH (default 9.0), and this
//   build's kernels load on them only as the driver's rule says (Note [CUDA architectures]).
// - NCCL: Note [Simulated NCCL]; NVML: sim_nvml.cpp.
// Simulated GPUs compute with the CPU backend's kernels, in float32 whatever config.precision
// says: cuDNN and cuBLAS cannot be simulated. Speed figures of simulated GPUs mean nothing.
#include "engine/backend/cuda/sim/simulated_runtime.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "engine/backend/cuda/cuda_architectures.h"
#include "engine/core/error.h"

namespace netsmith::cuda::sim {
namespace {

thread_local int t_current = 0;
thread_local cudaError_t t_lastError = cudaSuccess;

// A stream's view of device memory for a kernel: only the stream's own GPU.
class StreamMemory final : public DeviceMemoryAccess {
 public:
  StreamMemory(SimulatedRuntime& runtime, Device& device, const std::string& kernel)
      : m_runtime(runtime), m_device(device), m_kernel(kernel) {}
  void* hostAddress(const void* p, size_t bytes) override {
    if (!m_device.memory->inRange(p)) {
      Device* other = m_runtime.deviceOf(p);
      if (other) throw Fault(format("{} is memory of cuda:{}, not of this stream's cuda:{}", p, other->ordinal, m_device.ordinal));
      throw Fault(format("{} is not device memory (a host pointer given to a kernel?)", p));
    }
    return m_device.memory->translate(p, bytes, m_kernel);
  }

 private:
  SimulatedRuntime& m_runtime;
  Device& m_device;
  const std::string& m_kernel;
};

// CUDA_VISIBLE_DEVICES as the CUDA runtime reads it: comma-separated indices into its order of
// all devices; the list ends at the first entry that is not a valid, new index (so "0,7,1" with
// four devices is just device 0), and an empty value hides every GPU. GPU UUIDs ("GPU-...") name
// no simulated GPU, so they end the list too.
std::vector<int> visibleSubset(const std::string& text, const std::vector<int>& enumeration) {
  std::vector<int> out;
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string entry = text.substr(start, comma - start);
    char* end = nullptr;
    const long index = std::strtol(entry.c_str(), &end, 10);
    if (entry.empty() || *end != '\0' || index < 0 || index >= static_cast<long>(enumeration.size())) break;
    const int pci = enumeration[static_cast<size_t>(index)];
    if (std::find(out.begin(), out.end(), pci) != out.end()) break;
    out.push_back(pci);
    start = comma + 1;
  }
  return out;
}

}  // namespace

SimulatedRuntime::SimulatedRuntime(const SimulatorOptions& options)
    : m_options(options),
      m_nccl(*this, options.jitter,
             options.seed ? options.seed : static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()),
             options.ncclInitFailure) {
  if (m_options.seed == 0) m_options.seed = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  m_allocationRandom.seed(m_options.seed ^ 0xa110cULL);
  const int n = options.devices;
  // The runtime's order of every device, then the visible ones of it, renumbered from 0.
  std::vector<int> enumeration(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) enumeration[static_cast<size_t>(i)] = options.pciOrder ? i : n - 1 - i;
  m_ordinalToPci = options.visibleDevices ? visibleSubset(*options.visibleDevices, enumeration) : enumeration;
  std::vector<int> pciToOrdinal(static_cast<size_t>(n), -1);
  for (size_t o = 0; o < m_ordinalToPci.size(); ++o) pciToOrdinal[static_cast<size_t>(m_ordinalToPci[o])] = static_cast<int>(o);
  for (int i = 0; i < n; ++i) {
    auto d = std::make_unique<Device>();
    d->index = i;
    d->ordinal = pciToOrdinal[static_cast<size_t>(i)];
    d->busId = format("00000000:{}:00.0", std::string(1, "123456789ABCDEF"[(i / 2) % 15]) + (i % 2 ? "8" : "0"));
    d->name = "Netsmith simulated GPU";
    d->memory = std::make_unique<DeviceMemory>(d->ordinal, static_cast<size_t>(options.memoryMb) << 20,
                                               simulatedContextBytes(options.memoryMb));
    m_devices.push_back(std::move(d));
  }
}

SimulatedRuntime::~SimulatedRuntime() = default;

std::string SimulatedRuntime::description() const {
  return format("{} simulated GPU{} (CPU kernels{})", m_devices.size(), m_devices.size() == 1 ? "" : "s",
                m_options.jitter ? ", jitter on" : "");
}

std::string SimulatedRuntime::lastErrorDetail() { return threadErrorDetail(); }

cudaError_t SimulatedRuntime::fail(cudaError_t status, std::string detail) {
  threadErrorDetail() = std::move(detail);
  t_lastError = status;
  return status;
}

Device* SimulatedRuntime::deviceByOrdinal(int ordinal) {
  if (ordinal < 0 || ordinal >= visibleCount()) return nullptr;
  return m_devices[static_cast<size_t>(m_ordinalToPci[static_cast<size_t>(ordinal)])].get();
}

Device& SimulatedRuntime::currentDevice() { return *deviceByOrdinal(t_current); }

Device* SimulatedRuntime::deviceOf(const void* p) {
  for (auto& d : m_devices)
    if (d->memory->inRange(p)) return d.get();
  return nullptr;
}

uint64_t SimulatedRuntime::nextStreamSeed() {
  std::lock_guard lock(m_mutex);
  return m_options.seed * 0x9E3779B97F4A7C15ULL + ++m_streamCount;
}

cudaError_t SimulatedRuntime::checkDevice(Device& device) {
  if (!device.faulted.load()) return cudaSuccess;
  return fail(cudaErrorIllegalAddress, format("cuda:{} has a sticky error from earlier work: {}", device.ordinal,
                                              device.faultMessage()));
}

Stream* SimulatedRuntime::stream(cudaStream_t handle, const char* call) {
  std::lock_guard lock(m_mutex);
  if (!handle) {
    fail(cudaErrorInvalidResourceHandle,
         format("{}: the legacy default stream (0) was given; the backend queues work on its own streams", call));
    return nullptr;
  }
  if (!m_streams.count(static_cast<void*>(handle))) {
    fail(cudaErrorInvalidResourceHandle, format("{}: {} is not a live stream (destroyed?)", call, static_cast<void*>(handle)));
    return nullptr;
  }
  return reinterpret_cast<Stream*>(handle);
}

cudaError_t SimulatedRuntime::getDeviceCount(int* count) {
  *count = visibleCount();
  return cudaSuccess;
}

cudaError_t SimulatedRuntime::setDevice(int ordinal) {
  if (!deviceByOrdinal(ordinal))
    return fail(cudaErrorInvalidDevice, format("cudaSetDevice({}): the runtime sees {} simulated GPUs", ordinal, visibleCount()));
  t_current = ordinal;
  return cudaSuccess;
}

cudaError_t SimulatedRuntime::deviceGetPCIBusId(char* busId, int length, int ordinal) {
  Device* d = deviceByOrdinal(ordinal);
  if (!d) return fail(cudaErrorInvalidDevice, format("cudaDeviceGetPCIBusId: no device {}", ordinal));
  if (length < 13) return fail(cudaErrorInvalidValue, "cudaDeviceGetPCIBusId: buffer too short");
  // CUDA writes the short domain form, "0000:18:00.0"; NVML the long one.
  std::snprintf(busId, static_cast<size_t>(length), "%s", d->busId.substr(4).c_str());
  return cudaSuccess;
}

cudaError_t SimulatedRuntime::deviceProperties(int ordinal, GpuProperties* properties) {
  Device* d = deviceByOrdinal(ordinal);
  if (!d) return fail(cudaErrorInvalidDevice, format("cudaGetDeviceProperties: no device {}", ordinal));
  properties->name = d->name;
  properties->computeCapability = m_options.computeCapability;
  properties->totalMemory = d->memory->capacity();
  return cudaSuccess;
}

// The driver's rule over this build's list (Note [CUDA architectures]), for the simulated GPUs'
// compute capability: a simulated Pascal, or a build without PTX, fails as a real one would.
cudaError_t SimulatedRuntime::kernelImageLoads() {
  if (architecturesRun(parseArchitectures(builtArchitectures()), m_options.computeCapability)) return cudaSuccess;
  return fail(cudaErrorNoKernelImageForDevice,
              format("no code in this build ({}) for compute capability {}", builtArchitectures(),
                     computeCapabilityText(m_options.computeCapability)));
}

cudaError_t SimulatedRuntime::memGetInfo(size_t* freeBytes, size_t* totalBytes) {
  Device& d = currentDevice();
  *totalBytes = d.memory->capacity();
  *freeBytes = d.memory->capacity() - d.memory->used();
  return cudaSuccess;
}

void SimulatedRuntime::drain(Device& device) {
  for (Stream* s : streamsOf(device)) s->waitFor(s->lastTicket());
  std::lock_guard lock(device.legacyMutex);
  if (device.legacyStream) device.legacyStream->waitFor(device.legacyStream->lastTicket());
}

void SimulatedRuntime::allocationSynchronizes(Device* device) {
  if (!m_options.allocationsSynchronize) return;
  std::chrono::microseconds delay{0};
  if (m_options.jitter) {
    std::lock_guard lock(m_mutex);
    delay = std::chrono::microseconds(m_allocationRandom() % 2000);
  }
  if (device) {
    drain(*device);
  } else {
    for (auto& d : m_devices) drain(*d);
  }
  std::this_thread::sleep_for(delay);
}

cudaError_t SimulatedRuntime::malloc(void** pointer, size_t bytes) {
  if (const cudaError_t e = refuseDuringCapture("cudaMalloc"); e != cudaSuccess) return e;
  Device& d = currentDevice();
  if (const cudaError_t e = checkDevice(d); e != cudaSuccess) return e;
  allocationSynchronizes(&d);
  std::string why;
  *pointer = d.memory->allocate(bytes, &why);
  if (!*pointer) return fail(cudaErrorMemoryAllocation, why);
  return cudaSuccess;
}

cudaError_t SimulatedRuntime::free(void* pointer) {
  if (!pointer) return cudaSuccess;
  if (const cudaError_t e = refuseDuringCapture("cudaFree"); e != cudaSuccess) return e;
  Device* d = deviceOf(pointer);
  if (!d) return fail(cudaErrorInvalidValue, format("cudaFree({}): not device memory", pointer));
  // cudaFree waits for the device: nothing queued may still use the block.
  drain(*d);
  std::string why;
  if (!d->memory->release(pointer, &why)) return fail(cudaErrorInvalidValue, "cudaFree: " + why);
  return cudaSuccess;
}

cudaError_t SimulatedRuntime::hostAlloc(void** pointer, size_t bytes) {
  if (const cudaError_t e = refuseDuringCapture("cudaHostAlloc"); e != cudaSuccess) return e;
  allocationSynchronizes(nullptr);
  *pointer = std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
  if (!*pointer) return fail(cudaErrorMemoryAllocation, format("cudaHostAlloc: {} bytes", bytes));
  std::lock_guard lock(m_mutex);
  m_pinned.insert(*pointer);
  return cudaSuccess;
}

cudaError_t SimulatedRuntime::freeHost(void* pointer) {
  if (const cudaError_t e = refuseDuringCapture("cudaFreeHost"); e != cudaSuccess) return e;
  {
    std::lock_guard lock(m_mutex);
    if (!m_pinned.erase(pointer)) return fail(cudaErrorInvalidValue, format("cudaFreeHost({}): not from cudaHostAlloc", pointer));
  }
  // cudaFreeHost synchronises: every device finishes what is queued (a copy from or to the block
  // among it) before the block goes. Code that frees pinned memory while a collective waits for a
  // peer that waits for this thread hangs here, as on a GPU.
  for (auto& d : m_devices) drain(*d);
  std::free(pointer);
  return cudaSuccess;
}

std::vector<Stream*> SimulatedRuntime::streamsOf(const Device& device) {
  std::lock_guard lock(m_mutex);
  std::vector<Stream*> streams;
  for (void* s : m_streams)
    if (&reinterpret_cast<Stream*>(s)->device() == &device) streams.push_back(reinterpret_cast<Stream*>(s));
  return streams;
}

cudaError_t SimulatedRuntime::streamCreate(cudaStream_t* handle) {
  Device& device = currentDevice();
  const uint64_t seed = nextStreamSeed();
  auto* s = new Stream(device, static_cast<int>(seed & 0xffff), m_options.jitter, seed, m_options.lag);
  std::lock_guard lock(m_mutex);
  m_streams.insert(s);
  *handle = reinterpret_cast<cudaStream_t>(s);
  return cudaSuccess;
}

cudaError_t SimulatedRuntime::streamDestroy(cudaStream_t handle) {
  Stream* s = stream(handle, "cudaStreamDestroy");
  if (!s) return cudaErrorInvalidResourceHandle;
  m_nccl.flush();  // a collective the proxy has yet to queue on it
  {
    std::lock_guard lock(m_mutex);
    m_streams.erase(s);
  }
  delete s;  // runs what is queued, then ends the thread
  return cudaSuccess;
}

cudaError_t SimulatedRuntime::streamSynchronize(cudaStream_t handle) {
  Stream* s = stream(handle, "cudaStreamSynchronize");
  if (!s) return cudaErrorInvalidResourceHandle;
  if (const cudaError_t e = refuseDuringCapture("cudaStreamSynchronize"); e != cudaSuccess) return e;
  s->waitFor(s->lastTicket());
  return checkDevice(s->device());
}

cudaError_t SimulatedRuntime::eventCreate(cudaEvent_t* handle) {
  auto* e = new Event();
  e->device = &currentDevice();
  std::lock_guard lock(m_mutex);
  m_events.insert(e);
  *handle = reinterpret_cast<cudaEvent_t>(e);
  return cudaSuccess;
}

cudaError_t SimulatedRuntime::eventCreateTimed(cudaEvent_t* handle) {
  const cudaError_t status = eventCreate(handle);
  if (status == cudaSuccess) reinterpret_cast<Event*>(*handle)->timed = true;
  return status;
}

cudaError_t SimulatedRuntime::eventDestroy(cudaEvent_t handle) {
  std::lock_guard lock(m_mutex);
  if (!m_events.erase(handle))
    return fail(cudaErrorInvalidResourceHandle, format("cudaEventDestroy: {} is not a live event", static_cast<void*>(handle)));
  // Kept (leaked): a queued record or wait may still hold it; a GPU also frees it only later.
  return cudaSuccess;
}

static Event* liveEvent(std::set<void*>& events, std::mutex& mutex, cudaEvent_t handle) {
  std::lock_guard lock(mutex);
  return events.count(static_cast<void*>(handle)) ? reinterpret_cast<Event*>(handle) : nullptr;
}

cudaError_t SimulatedRuntime::eventRecord(cudaEvent_t handle, cudaStream_t streamHandle) {
  Event* e = liveEvent(m_events, m_mutex, handle);
  if (!e) return fail(cudaErrorInvalidResourceHandle, format("cudaEventRecord: {} is not a live event", static_cast<void*>(handle)));
  Stream* s = stream(streamHandle, "cudaEventRecord");
  if (!s) return cudaErrorInvalidResourceHandle;
  if (&s->device() != e->device)
    return fail(cudaErrorInvalidResourceHandle, format("cudaEventRecord: the event belongs to cuda:{}, the stream to cuda:{}",
                                                       e->device->ordinal, s->device().ordinal));
  // The ticket is set under the event's lock taken before the enqueue, so eventSynchronize sees
  // the recording and its ticket together.
  std::lock_guard recordLock(e->mutex);
  if (s->capturing()) {
    // Note [Simulated CUDA graphs]: a dependency inside the graph; no launch records the event.
    e->capturedIn = s;
    s->enqueue({"cudaEventRecord (captured)", [] {}, true, false});
    return cudaSuccess;
  }
  e->capturedIn = nullptr;
  const uint64_t generation = ++e->recorded;
  Stream::Op op;
  op.what = "cudaEventRecord";
  op.marker = true;
  op.busy = false;
  op.run = [e, generation] {
    {
      std::lock_guard lock(e->mutex);
      e->completed = std::max(e->completed, generation);
      e->completedAt = std::chrono::steady_clock::now();
    }
    e->completedChanged.notify_all();
  };
  e->stream = s;
  e->ticket = s->enqueue(std::move(op));
  return cudaSuccess;
}

cudaError_t SimulatedRuntime::eventSynchronize(cudaEvent_t handle) {
  Event* e = liveEvent(m_events, m_mutex, handle);
  if (!e) return fail(cudaErrorInvalidResourceHandle, format("cudaEventSynchronize: {} is not a live event", static_cast<void*>(handle)));
  if (Stream* captured = e->capturedIn; captured && captured->capturing()) {
    captured->invalidateCapture();
    return fail(cudaErrorStreamCaptureUnsupported, "cudaEventSynchronize on an event recorded in a capture under way");
  }
  {
    std::unique_lock lock(e->mutex);
    // Note [Draining waits]: waiting for an event the host recorded last leaves the device idle.
    if (e->stream && e->ticket >= e->stream->lastTicket()) ++e->device->drainingWaits;
    const uint64_t generation = e->recorded;
    e->completedChanged.wait(lock, [&] { return e->completed >= generation || e->device->faulted.load(); });
  }
  return checkDevice(*e->device);
}

cudaError_t SimulatedRuntime::eventQuery(cudaEvent_t handle) {
  Event* e = liveEvent(m_events, m_mutex, handle);
  if (!e) return fail(cudaErrorInvalidResourceHandle, format("cudaEventQuery: {} is not a live event", static_cast<void*>(handle)));
  if (Stream* captured = e->capturedIn; captured && captured->capturing()) {
    captured->invalidateCapture();
    return fail(cudaErrorStreamCaptureUnsupported, "cudaEventQuery on an event recorded in a capture under way");
  }
  if (const cudaError_t err = checkDevice(*e->device); err != cudaSuccess) return err;
  std::lock_guard lock(e->mutex);
  return e->completed >= e->recorded ? cudaSuccess : cudaErrorNotReady;
}

// As CUDA: both events timed, recorded and completed.
cudaError_t SimulatedRuntime::eventElapsedTime(float* ms, cudaEvent_t startHandle, cudaEvent_t endHandle) {
  Event* start = liveEvent(m_events, m_mutex, startHandle);
  Event* end = liveEvent(m_events, m_mutex, endHandle);
  if (!start || !end) return fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: not a live event");
  if (!start->timed || !end->timed)
    return fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: an event was created with cudaEventDisableTiming");
  std::chrono::steady_clock::time_point a, b;
  for (auto [e, at] : {std::pair{start, &a}, std::pair{end, &b}}) {
    std::lock_guard lock(e->mutex);
    if (e->recorded == 0) return fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: an event was never recorded");
    if (e->completed < e->recorded) return cudaErrorNotReady;
    *at = e->completedAt;
  }
  *ms = std::chrono::duration<float, std::milli>(b - a).count();
  return cudaSuccess;
}

cudaError_t SimulatedRuntime::streamWaitEvent(cudaStream_t streamHandle, cudaEvent_t handle) {
  Event* e = liveEvent(m_events, m_mutex, handle);
  if (!e) return fail(cudaErrorInvalidResourceHandle, format("cudaStreamWaitEvent: {} is not a live event", static_cast<void*>(handle)));
  Stream* s = stream(streamHandle, "cudaStreamWaitEvent");
  if (!s) return cudaErrorInvalidResourceHandle;
  // Note [Simulated CUDA graphs]: inside one capture the order is the stream's own.
  if (Stream* captured = e->capturedIn; captured && captured->capturing()) {
    if (captured == s) return cudaSuccess;
    captured->invalidateCapture();
    return fail(cudaErrorStreamCaptureUnsupported,
                "cudaStreamWaitEvent: another stream waits for an event of a capture (joining streams into a capture is not simulated)");
  }
  if (s->capturing()) {
    s->invalidateCapture();
    return fail(cudaErrorStreamCaptureIsolation, "cudaStreamWaitEvent: a capturing stream waits for an event recorded outside the capture");
  }
  uint64_t generation;
  {
    std::lock_guard lock(e->mutex);
    generation = e->recorded;  // the recording made before this call; later ones do not count
  }
  Stream::Op op;
  op.what = "cudaStreamWaitEvent";
  op.marker = true;
  op.busy = false;
  op.run = [e, generation, s] {
    std::unique_lock lock(e->mutex);
    e->completedChanged.wait(lock, [&] { return e->completed >= generation || s->stopping(); });
  };
  s->enqueue(std::move(op));
  return cudaSuccess;
}

cudaError_t SimulatedRuntime::deviceSynchronize() {
  if (const cudaError_t e = refuseDuringCapture("cudaDeviceSynchronize"); e != cudaSuccess) return e;
  Device& device = currentDevice();
  drain(device);
  return checkDevice(device);
}

cudaError_t SimulatedRuntime::getLastError() {
  const cudaError_t e = t_lastError;
  t_lastError = cudaSuccess;
  return e;
}

const char* SimulatedRuntime::errorName(cudaError_t status) {
  switch (status) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
    default: return "cudaError(other)";
  }
}

const char* SimulatedRuntime::errorString(cudaError_t status) {
  switch (status) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorNotSupported: return "operation not supported";
    default: return "error";
  }
}

cudaError_t SimulatedRuntime::launchHost(cudaStream_t handle, const char* kernel, HostKernel body) {
  Stream* s = stream(handle, kernel);
  if (!s) return cudaErrorInvalidResourceHandle;
  Device& device = s->device();
  if (const cudaError_t e = checkDevice(device); e != cudaSuccess) return e;
  if (device.ordinal != t_current)
    return fail(cudaErrorInvalidResourceHandle,
                format("kernel {} launched into a stream of cuda:{} while this thread's current device is cuda:{} "
                       "(cudaSetDevice missing)",
                       kernel, device.ordinal, t_current));
  Stream::Op op;
  op.what = format("kernel {}", kernel);
  op.run = [this, &device, body = std::move(body), name = std::string(kernel)] {
    StreamMemory memory(*this, device, name);
    body(memory);
  };
  s->enqueue(std::move(op));
  return cudaSuccess;
}

ncclResult_t SimulatedRuntime::commInitRank(ncclComm_t* comm, int ranks, ncclUniqueId id, int rank,
                                            ncclConfig_t* config) {
  return m_nccl.commInitRank(comm, ranks, id, rank, config ? config->blocking != 0 : true, currentDevice());
}

ncclResult_t SimulatedRuntime::allReduceSum(const float* send, float* recv, size_t count, ncclComm_t comm,
                                            cudaStream_t handle) {
  Stream* s = stream(handle, "ncclAllReduce");
  if (!s) return ncclInvalidArgument;
  return m_nccl.collective(SimNccl::Kind::AllReduce, send, recv, count, 0, comm, *s);
}

ncclResult_t SimulatedRuntime::broadcast(const float* send, float* recv, size_t count, int root, ncclComm_t comm,
                                         cudaStream_t handle) {
  Stream* s = stream(handle, "ncclBroadcast");
  if (!s) return ncclInvalidArgument;
  return m_nccl.collective(SimNccl::Kind::Broadcast, send, recv, count, root, comm, *s);
}

const char* SimulatedRuntime::ncclErrorString(ncclResult_t status) {
  switch (status) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error";
    case ncclSystemError: return "unhandled system error";
    case ncclInternalError: return "internal error";
    case ncclInvalidArgument: return "invalid argument";
    case ncclInvalidUsage: return "invalid usage";
    case ncclRemoteError: return "remote process exited or there was a network error";
    case ncclInProgress: return "NCCL operation in progress";
    default: return "unknown result code";
  }
}

}  // namespace netsmith::cuda::sim

namespace netsmith::cuda {
GpuRuntime* makeSimulatedRuntime(const SimulatorOptions& options) { return new sim::SimulatedRuntime(options); }
}  // namespace netsmith::cuda
