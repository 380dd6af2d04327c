// CpuDeviceContext: a oneDNN CPU engine and stream, the number of OpenMP threads the worker
// owning it may use (Note [CPU threads per worker]) and the precision its convolutions and inner
// products compute in (Note [CPU bfloat16]).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>
#include <string>

#include "engine/core/device_context.h"
#include "engine/core/precision.h"

namespace netsmith {

class CpuDeviceContext final : public DeviceContext {
 public:
  // threads <= 0 means all cores of the machine. The precision must have passed
  // cpu::checkCpuPrecision (the training plan does that).
  CpuDeviceContext(std::string id, int threads, Precision precision = Precision::Float);

  const std::string& backend() const override;
  const std::string& id() const override { return m_id; }
  void synchronize() override { m_stream.wait(); }
  // CPU seconds of the calling worker's OpenMP team (its threads persist between regions).
  double busySeconds() const override;
  int parallelism() const override { return m_threads; }
  // The default's loop, without a parallel region on a one-thread worker (Note [One-thread
  // regions], parallel_for.h): the same sums, bit for bit.
  void accumulate(float* acc, const float* x, int64_t n) override;
  // Note [Weight averaging]: the host-device body in a plain loop (element-wise: the same bits on
  // any thread count). A CPU worker's solver decides on the host, so `skip` is a host int here.
  void averageToward(float* average, const float* value, int64_t n, float decay, float weight, const int* skip) override;
  void exchange(float* a, float* b, int64_t n) override;

  // Must be called on the thread that runs this device's kernels, before the first kernel:
  // it sets that thread's OpenMP team size, which oneDNN and the hand-written loops use.
  void bindToCurrentThread() const;

  int threads() const { return m_threads; }
  Precision precision() const { return m_precision; }
  dnnl::engine& engine() { return m_engine; }
  dnnl::stream& stream() { return m_stream; }

 private:
  std::string m_id;
  int m_threads;
  Precision m_precision;
  dnnl::engine m_engine;
  dnnl::stream m_stream;
};

// Number of hardware threads available to this process.
int availableCores();

}  // namespace netsmith
