// DeviceContext: what a kernel needs to run on one device (a CPU worker or, later, a GPU).
// One context per worker thread; only that thread uses it. Kernels of a backend static_cast it
// to their backend's context type (CpuDeviceContext, ...), chosen by the backend key.
#pragma once

#include <string>

namespace netsmith {

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
  virtual int parallelism() const = 0;
};

}  // namespace netsmith
