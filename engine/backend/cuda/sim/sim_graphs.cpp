// Note [Simulated CUDA graphs]
// Stream capture and graph launch as CUDA does them, with the rules that break real captures:
// - cudaStreamBeginCapture (thread-local mode) makes the stream record what is queued on it
//   instead of running it: kernels, copies, memsets run later, at each launch, with the arguments
//   they were given at capture (a per-step value passed by value is frozen in the graph; one read
//   from memory, pinned host memory included, is read at each launch).
// - A call that waits for the device or allocates, made by the capturing thread — a stream or
//   device synchronize, a copy from or to pageable memory, cudaMalloc, cudaHostAlloc, cudaFree,
//   waiting for or querying an event recorded in the capture — fails with
//   cudaErrorStreamCaptureUnsupported and invalidates the capture: cudaStreamEndCapture then
//   fails with cudaErrorStreamCaptureInvalidated and gives no graph.
// - An event recorded during the capture is a dependency inside the graph, not a recording: a
//   launch does not record it, so the host cannot wait for a launched graph through it (record an
//   event after cudaGraphLaunch instead). A capturing stream cannot wait for an event recorded
//   outside the capture (cudaErrorStreamCaptureIsolation), and another stream cannot wait for one
//   recorded inside it (that would join it to the capture: not simulated,
//   cudaErrorStreamCaptureUnsupported).
// - cudaGraphLaunch queues the graph's operations on the launch stream in capture order (a capture
//   of one stream is a chain); the graph may be launched any number of times.
#include <memory>
#include <vector>

#include "engine/backend/cuda/sim/simulated_runtime.h"
#include "engine/core/error.h"

namespace netsmith::cuda::sim {
namespace {

thread_local Stream* t_capturing = nullptr;

struct Graph {
  std::vector<Stream::Op> ops;
  bool instantiated = false;  // a cudaGraphExec_t
};

}  // namespace

Stream* SimulatedRuntime::capturingStream() { return t_capturing; }

cudaError_t SimulatedRuntime::refuseDuringCapture(const char* call) {
  if (!t_capturing) return cudaSuccess;
  t_capturing->invalidateCapture();
  return fail(cudaErrorStreamCaptureUnsupported,
              format("{} while this thread captures a stream into a CUDA graph: the capture is invalidated", call));
}

cudaError_t SimulatedRuntime::streamBeginCapture(cudaStream_t handle) {
  Stream* s = stream(handle, "cudaStreamBeginCapture");
  if (!s) return cudaErrorInvalidResourceHandle;
  if (s->capturing() || t_capturing)
    return fail(cudaErrorIllegalState, "cudaStreamBeginCapture: a capture is already under way on this thread");
  s->beginCapture();
  t_capturing = s;
  return cudaSuccess;
}

cudaError_t SimulatedRuntime::streamEndCapture(cudaStream_t handle, cudaGraph_t* graph) {
  *graph = nullptr;
  Stream* s = stream(handle, "cudaStreamEndCapture");
  if (!s) return cudaErrorInvalidResourceHandle;
  if (!s->capturing()) return fail(cudaErrorIllegalState, "cudaStreamEndCapture: the stream is not capturing");
  if (t_capturing != s)
    return fail(cudaErrorStreamCaptureWrongThread, "cudaStreamEndCapture: the capture began on another thread");
  t_capturing = nullptr;
  auto g = std::make_unique<Graph>();
  if (!s->endCapture(g->ops))
    return fail(cudaErrorStreamCaptureInvalidated, "cudaStreamEndCapture: a call during the capture invalidated it");
  std::lock_guard lock(m_mutex);
  *graph = reinterpret_cast<cudaGraph_t>(g.get());
  m_graphs.insert(g.release());
  return cudaSuccess;
}

cudaError_t SimulatedRuntime::graphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph) {
  std::lock_guard lock(m_mutex);
  auto* g = reinterpret_cast<Graph*>(graph);
  if (!m_graphs.count(g) || g->instantiated)
    return fail(cudaErrorInvalidValue, "cudaGraphInstantiate: not a live graph");
  auto e = std::make_unique<Graph>(Graph{g->ops, true});
  *exec = reinterpret_cast<cudaGraphExec_t>(e.get());
  m_graphs.insert(e.release());
  return cudaSuccess;
}

cudaError_t SimulatedRuntime::graphLaunch(cudaGraphExec_t exec, cudaStream_t handle) {
  Graph* g = nullptr;
  {
    std::lock_guard lock(m_mutex);
    g = reinterpret_cast<Graph*>(exec);
    if (!m_graphs.count(g) || !g->instantiated)
      return fail(cudaErrorInvalidValue, "cudaGraphLaunch: not an instantiated graph");
  }
  Stream* s = stream(handle, "cudaGraphLaunch");
  if (!s) return cudaErrorInvalidResourceHandle;
  if (const cudaError_t e = checkDevice(s->device()); e != cudaSuccess) return e;
  ++s->device().graphLaunches;
  for (const Stream::Op& op : g->ops) {
    if (op.atQueue) op.atQueue();
    s->enqueue(op);
  }
  return cudaSuccess;
}

cudaError_t SimulatedRuntime::graphExecDestroy(cudaGraphExec_t exec) {
  std::lock_guard lock(m_mutex);
  auto* g = reinterpret_cast<Graph*>(exec);
  if (!m_graphs.count(g) || !g->instantiated) return fail(cudaErrorInvalidValue, "cudaGraphExecDestroy: not an instantiated graph");
  // A launch queued before holds copies of the operations: the graph itself can go.
  m_graphs.erase(g);
  delete g;
  return cudaSuccess;
}

cudaError_t SimulatedRuntime::graphDestroy(cudaGraph_t graph) {
  std::lock_guard lock(m_mutex);
  auto* g = reinterpret_cast<Graph*>(graph);
  if (!m_graphs.count(g) || g->instantiated) return fail(cudaErrorInvalidValue, "cudaGraphDestroy: not a live graph");
  m_graphs.erase(g);
  delete g;
  return cudaSuccess;
}

}  // namespace netsmith::cuda::sim
