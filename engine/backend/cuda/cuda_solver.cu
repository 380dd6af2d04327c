// Note [Fused solver step]
// One launch updates every parameter: the parameters are cut into chunks of kChunk floats, and a
// table of chunks (value, gradient, state pointers, length) lives in device memory; block b
// updates chunk b. The table is rebuilt and uploaded only when the parameter or state pointers
// change (never, after the first step, in a run). Per-step scalars (Adam's α_t, AdamW's η_t·wd)
// are computed in double on the host by the solver's scalars(), as Optimizer::prepare does, and
// passed by value, so a step costs one launch and no copy. The element-wise update is the solver
// folder's body (Note [Solver folders]), the one the CPU optimizer runs; nvcc may contract a·b + c
// into an FMA, so results match the CPU within rounding (the tests allow 1e-6 relative per step),
// not bit for bit. LAMB's step is two kernels (Note [Trust ratio]): per-chunk partial sums into a
// table, then each chunk adds its tensor's partials in chunk order and updates.
//
// Half precision (dynamic loss scaling): Replica multiplies the loss gradient by lossScale();
// step() first divides every gradient by it in place and flags any non-finite value (one fused
// kernel), reads the flag (the one extra wait of a half step), and on overflow skips the update,
// halves the scale and counts the step as skipped; after kGrowthInterval good steps in a row it
// doubles the scale (PyTorch's GradScaler policy, initial scale 2^16).
//
// Then the global gradient norm (Note [Gradient clipping], engine/optim/gradient_clip.h): one
// block per chunk adds its squares (normSquaresKernel), and clipKernel adds the chunks' partials in
// chunk order in every block, records the norm in the device's GradientNorms, scales the chunk's
// gradient when the norm is above optimizer.clip_gradient_norm and, when the norm is not finite,
// sets the flag the solver kernels read to skip the update. All of it stays on the device: the
// host reads the record only when asked (gradientNorms()).
#include <cmath>
#include <map>
#include <vector>

#include "engine/backend/cuda/cuda_device.h"
#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/deterministic_reduction.cuh"
#include "engine/backend/cuda/cuda_solver.h"
#include "engine/backend/cuda/solver_update.h"
#include "engine/solvers/solver_list.h"
#include "engine/solvers/solver_table.h"

namespace netsmith::cuda {
namespace {

constexpr int64_t kChunk = 65536;
constexpr int kGrowthInterval = 2000;

using solver::Chunk;

// Note [Gradient clipping], first kernel: block b writes the sum of squares of chunk b's gradient
// to partials[b] (lanes, then the block's tree: solver::squaresBlockSum on the host).
__global__ void __launch_bounds__(kReduceThreads) normSquaresKernel(const Chunk* chunks, double* partials) {
  __shared__ double lanes[kReduceThreads];
  const Chunk c = chunks[blockIdx.x];
  const int lane = static_cast<int>(threadIdx.x);
  lanes[lane] = laneRun(solver::SquaresTerms{c.g}, 0, 0, c.n, lane);
  __syncthreads();
  for (int width = kReduceThreads / 2; width > 0; width /= 2) {
    treeStep(lanes, lane, width);
    __syncthreads();
  }
  if (lane == 0) partials[blockIdx.x] = lanes[0];
}

// Second kernel: every block computes the norm from all partials (the same bits), block 0 records
// it and the skip flag, and each block scales its chunk when the norm is above the clip.
__global__ void clipKernel(const Chunk* chunks, const double* partials, int64_t count, double maxNorm,
                           GradientNorms* record, int64_t step, int* skip) {
  __shared__ float scale;
  if (threadIdx.x == 0) {
    const double norm = solver::normOfPartials(partials, count);
    scale = clipScale(norm, maxNorm);
    if (blockIdx.x == 0) {
      record->observe(norm, scale != 1.0f, step);
      *skip = norm - norm == 0.0 ? 0 : 1;
    }
  }
  __syncthreads();
  if (scale == 1.0f) return;
  const Chunk c = chunks[blockIdx.x];
  for (int64_t i = threadIdx.x; i < c.n; i += blockDim.x) solver::scaleGradient(c, i, scale);
}

template <class S, bool kL2>
__global__ void solverKernel(const Chunk* chunks, typename S::Scalars step, float wd, const int* skip) {
  if (*skip) return;  // Note [Gradient clipping]: a non-finite gradient
  const Chunk c = chunks[blockIdx.x];
  const typename S::Scalars s = S::forSlot(step, c.lrMult);
  for (int64_t i = threadIdx.x; i < c.n; i += blockDim.x) solver::update<S, kL2>(c, i, s, wd);
}

// Note [Trust ratio], first kernel: block b updates chunk b's running means and writes its Σw²
// and Σd² to partials[2b], partials[2b + 1] (each thread's sums, then the block's tree; the
// simulated GPUs' solver::trustBlockSums adds in the same order).
template <class S>
__global__ void trustSumsKernel(const Chunk* chunks, typename S::Scalars s, double* partials, const int* skip) {
  if (*skip) return;  // Note [Gradient clipping]: a non-finite gradient
  __shared__ double sumW2[kThreads], sumD2[kThreads];
  const Chunk c = chunks[blockIdx.x];
  double w2 = 0, d2 = 0;
  for (int64_t i = threadIdx.x; i < c.n; i += blockDim.x) solver::trustMoments<S>(c, i, s, w2, d2);
  sumW2[threadIdx.x] = w2;
  sumD2[threadIdx.x] = d2;
  __syncthreads();
  for (unsigned h = blockDim.x / 2; h > 0; h /= 2) {
    if (threadIdx.x < h) {
      sumW2[threadIdx.x] += sumW2[threadIdx.x + h];
      sumD2[threadIdx.x] += sumD2[threadIdx.x + h];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    partials[2 * blockIdx.x] = sumW2[0];
    partials[2 * blockIdx.x + 1] = sumD2[0];
  }
}

// Second kernel: block b's tensor's scale from the partials (one thread adds them), then chunk
// b's update.
template <class S>
__global__ void trustApplyKernel(const Chunk* chunks, typename S::Scalars s, const double* partials, const int* skip) {
  if (*skip) return;
  __shared__ float scale;
  const Chunk c = chunks[blockIdx.x];
  if (threadIdx.x == 0) scale = solver::trustScale<S>(c, partials, s);
  __syncthreads();
  for (int64_t i = threadIdx.x; i < c.n; i += blockDim.x) solver::trustApply<S>(c, i, s, scale);
}

// g ← g / scale, in place over every chunk; *overflow = 1 if any result is not finite.
__global__ void unscaleKernel(const Chunk* chunks, float inverseScale, int* overflow) {
  const Chunk c = chunks[blockIdx.x];
  bool bad = false;
  for (int64_t i = threadIdx.x; i < c.n; i += blockDim.x) bad = !solver::unscale(c, i, inverseScale) || bad;
  if (__syncthreads_or(bad) && threadIdx.x == 0) *overflow = 1;
}

// The simulated GPUs' launch of the two kernels above: the chunk table is read from device
// memory as the GPU would, and every pointer in it is checked (a table read before its upload
// has run holds NaN bytes, which no allocation contains: Note [Simulated device memory]).
template <typename PerChunk>
void forEachChunk(DeviceMemoryAccess& m, const Chunk* table, unsigned blocks, PerChunk&& perChunk) {
  const Chunk* host = m.at(table, blocks);
  for (unsigned b = 0; b < blocks; ++b) {
    const Chunk& d = host[b];
    const Chunk c{m.at(d.w, d.n), m.at(d.g, d.n), m.at(d.s0, d.n), m.at(d.s1, d.n), d.n, d.lrMult, d.first, d.count};
    perChunk(c);
  }
}

class CudaSolver final : public DeviceSolver {
 public:
  CudaSolver(const Optimizer& config, CudaDeviceContext& device)
      : m_device(device),
        m_solver(config.solverName()),
        m_buffers(config.bufferNames()),
        m_hyper(config.hyperValues()) {
    const SolverRow* row = findSolver(m_solver);
    NS_CHECK(row, "the CUDA backend has no kernel for solver {}", m_solver);
    m_l2 = row->weightDecay == SolverWeightDecay::L2;
    m_trustRatio = row->trustRatio;
    m_weightDecay = config.weightDecay();
    m_baseLr = config.baseLearningRate();
    m_steps = config.steps();
    m_lossScale = precisionMath(device.options().precision).initialLossScale;
    device.makeCurrent();
    NS_CUDA_CHECK(gpuRuntime().malloc(reinterpret_cast<void**>(&m_overflow), sizeof(int)));
    NS_CUDA_CHECK(gpuRuntime().hostAlloc(reinterpret_cast<void**>(&m_overflowHost), sizeof(int)));
    NS_CUDA_CHECK(gpuRuntime().malloc(reinterpret_cast<void**>(&m_skip), sizeof(int)));
    NS_CUDA_CHECK(gpuRuntime().malloc(reinterpret_cast<void**>(&m_norms), sizeof(GradientNorms)));
    const GradientNorms none;
    NS_CUDA_CHECK(gpuRuntime().memcpyAsync(m_norms, &none, sizeof none, cudaMemcpyHostToDevice, device.stream()));
    // Read after a step without parameters too (Note [Weight averaging]): no skip until a norm says so.
    NS_CUDA_CHECK(gpuRuntime().memsetAsync(m_skip, 0, sizeof(int), device.stream()));
    NS_CUDA_CHECK(gpuRuntime().streamSynchronize(device.stream()));  // `none` goes out of scope
  }
  ~CudaSolver() override {
    GpuRuntime& runtime = gpuRuntime();
    runtime.setDevice(m_device.ordinal());
    runtime.streamSynchronize(m_device.stream());
    if (m_table) runtime.free(m_table);
    if (m_partials) runtime.free(m_partials);
    if (m_overflow) runtime.free(m_overflow);
    if (m_overflowHost) runtime.freeHost(m_overflowHost);
    if (m_skip) runtime.free(m_skip);
    if (m_norms) runtime.free(m_norms);
    if (m_normPartials) runtime.free(m_normPartials);
  }

  void setClipNorm(double maxNorm) override { m_clipNorm = maxNorm; }
  const int* skipFlag() const override { return m_skip; }

  GradientNorms gradientNorms() override {
    GradientNorms out;
    GpuRuntime& runtime = gpuRuntime();
    m_device.makeCurrent();
    NS_CUDA_CHECK(runtime.memcpyAsync(&out, m_norms, sizeof out, cudaMemcpyDeviceToHost, m_device.stream()));
    NS_CUDA_CHECK(runtime.streamSynchronize(m_device.stream()));
    return out;
  }

  float lossScale() const override { return m_lossScale; }
  int64_t skippedSteps() const override { return m_skipped; }

  void step(std::span<const ParamSlot> slots, double lr) override {
    NS_CHECK(std::isfinite(lr) && lr >= 0, "optimizer: the learning rate must be a finite number >= 0, got {}", lr);
    for (const auto& slot : slots)
      NS_CHECK(slot.value && slot.grad && slot.grad->shape() == slot.value->shape(),
               "optimizer: parameter '{}' has no gradient of its shape", slot.name);
    prepareTable(slots);
    ++m_calls;  // Note [Gradient clipping]: the record numbers steps by call, overflows included
    if (m_chunks.empty()) return;
    const cudaStream_t stream = m_device.stream();
    const unsigned blocks = static_cast<unsigned>(m_chunks.size());
    if (m_lossScale != 1.0f) {
      GpuRuntime& runtime = gpuRuntime();
      m_device.makeCurrent();
      NS_CUDA_CHECK(runtime.memsetAsync(m_overflow, 0, sizeof(int), stream));
      const float inverse = 1.0f / m_lossScale;
      if (runtime.simulated()) {
        int* flag = m_overflow;
        const Chunk* table = m_table;
        NS_CUDA_CHECK(runtime.launchHost(stream, "unscale", [=](DeviceMemoryAccess& m) {
          bool bad = false;
          forEachChunk(m, table, blocks, [&](const Chunk& c) {
            for (int64_t i = 0; i < c.n; ++i) bad = !solver::unscale(c, i, inverse) || bad;
          });
          if (bad) *m.at(flag, 1) = 1;
        }));
      } else {
        unscaleKernel<<<blocks, kThreads, 0, stream>>>(m_table, inverse, m_overflow);
        NS_CUDA_CHECK_LAUNCH();
      }
      NS_CUDA_CHECK(runtime.memcpyAsync(m_overflowHost, m_overflow, sizeof(int), cudaMemcpyDeviceToHost, stream));
      NS_CUDA_CHECK(runtime.streamSynchronize(stream));
      if (*m_overflowHost) {
        m_lossScale = std::max(1.0f, m_lossScale * 0.5f);
        m_goodSteps = 0;
        ++m_skipped;
        return;
      }
      if (++m_goodSteps == kGrowthInterval) {
        m_lossScale *= 2.0f;
        m_goodSteps = 0;
      }
    }
    queueNormAndClip(blocks, m_calls);
    const bool l2 = m_l2 && m_weightDecay != 0;
    const solvers::StepInput in{m_hyper, lr, m_baseLr, m_weightDecay, m_steps + 1};
    const bool known = solvers::All::with(m_solver, [&](auto solverTag) {
      using S = decltype(solverTag);
      if constexpr (solvers::hasTrustRatio<S>())
        launchTrustRatio<S>(blocks, S::scalars(in));
      else if (l2)
        launch<S, true>(blocks, S::scalars(in));
      else
        launch<S, false>(blocks, S::scalars(in));
    });
    NS_CHECK(known, "the CUDA backend has no kernel for solver {}", m_solver);
    ++m_steps;
  }

  void pullState(Optimizer& host) override {
    Optimizer::StateList list;
    for (auto& [name, state] : m_state)
      for (size_t b = 0; b < m_buffers.size(); ++b) {
        Tensor& h = state.host[b];
        h.resize(state.device[b].shape());
        m_device.download(h.data(), state.device[b].data(), h.size());
        list.emplace_back(name + "/" + m_buffers[b], &h);
      }
    host.restoreState(list, m_steps);
  }

  void pushState(const Optimizer& host) override {
    std::map<std::string, SlotState> state;
    for (const auto& [fullName, tensor] : host.stateTensors()) {
      const auto slash = fullName.rfind('/');
      const std::string name = fullName.substr(0, slash), buffer = fullName.substr(slash + 1);
      size_t b = 0;
      while (b < m_buffers.size() && m_buffers[b] != buffer) ++b;
      NS_CHECK(b < m_buffers.size(), "optimizer state '{}' is not a state tensor of {}", fullName, m_solver);
      SlotState& s = state[name];
      if (s.device.empty()) s.resize(m_buffers.size(), &m_device);
      s.device[b].resize(tensor->shape());
      m_device.upload(s.device[b].data(), tensor->data(), tensor->size());
    }
    m_device.synchronize();  // the host tensors may go once this returns
    m_state = std::move(state);
    m_steps = host.steps();
    m_tablePointers.clear();  // state pointers changed
  }

 private:
  struct SlotState {
    std::vector<Tensor> device;  // bufferNames order, the parameter's shape
    std::vector<Tensor> host;    // pullState's copies
    void resize(size_t buffers, CudaDeviceContext* d) {
      for (size_t b = 0; b < buffers; ++b) {
        device.emplace_back(d->deviceAllocator());
        host.emplace_back();
      }
    }
  };

  void prepareTable(std::span<const ParamSlot> slots) {
    std::vector<const void*> pointers;
    for (const auto& slot : slots) {
      if (!m_buffers.empty()) {
        auto [it, inserted] = m_state.try_emplace(slot.name);
        if (inserted) {
          NS_CHECK(m_steps == 0, "optimizer: parameter '{}' has no {} state after {} steps", slot.name, m_solver, m_steps);
          it->second.resize(m_buffers.size(), &m_device);
        }
        for (Tensor& t : it->second.device) {
          if (t.shape() != slot.value->shape()) {
            t.resize(slot.value->shape());
            m_device.fill(t.data(), t.size(), 0.0f);
          }
          pointers.push_back(t.data());
        }
      }
      pointers.push_back(slot.value->data());
      pointers.push_back(slot.grad->data());
    }
    if (pointers == m_tablePointers) return;
    m_chunks.clear();
    for (const auto& slot : slots) {
      const int32_t first = static_cast<int32_t>(m_chunks.size());
      float* s[2] = {nullptr, nullptr};
      if (!m_buffers.empty()) {
        auto& st = m_state.at(slot.name);
        for (size_t b = 0; b < m_buffers.size(); ++b) s[b] = st.device[b].data();
      }
      const int64_t n = slot.value->size();
      for (int64_t begin = 0; begin < n; begin += kChunk)
        m_chunks.push_back({slot.value->data() + begin, slot.grad->data() + begin, s[0] ? s[0] + begin : nullptr,
                            s[1] ? s[1] + begin : nullptr, std::min(kChunk, n - begin), slot.lrMult, first, 0});
      for (size_t k = static_cast<size_t>(first); k < m_chunks.size(); ++k)
        m_chunks[k].count = static_cast<int32_t>(m_chunks.size()) - first;
    }
    GpuRuntime& runtime = gpuRuntime();
    m_device.makeCurrent();
    if (m_table) NS_CUDA_CHECK(runtime.streamSynchronize(m_device.stream()));  // the old table may be in use
    if (m_table) NS_CUDA_CHECK(runtime.free(m_table));
    if (m_partials) NS_CUDA_CHECK(runtime.free(m_partials));
    if (m_normPartials) NS_CUDA_CHECK(runtime.free(m_normPartials));
    m_table = nullptr;
    m_partials = nullptr;
    m_normPartials = nullptr;
    if (!m_chunks.empty()) {
      NS_CUDA_CHECK(runtime.malloc(reinterpret_cast<void**>(&m_table), m_chunks.size() * sizeof(Chunk)));
      if (m_trustRatio)
        NS_CUDA_CHECK(runtime.malloc(reinterpret_cast<void**>(&m_partials), m_chunks.size() * 2 * sizeof(double)));
      NS_CUDA_CHECK(runtime.malloc(reinterpret_cast<void**>(&m_normPartials), m_chunks.size() * sizeof(double)));
      // On the compute stream, where the kernels that read the table are queued: a cudaMemcpy on
      // the legacy default stream is not ordered before them (the streams are non-blocking), and
      // from pageable memory it may return before its copy has run.
      NS_CUDA_CHECK(runtime.memcpyAsync(m_table, m_chunks.data(), m_chunks.size() * sizeof(Chunk),
                                        cudaMemcpyHostToDevice, m_device.stream()));
    }
    m_tablePointers = std::move(pointers);
  }

  // Note [Gradient clipping]: the two kernels (or their bodies on the simulated GPUs' host).
  void queueNormAndClip(unsigned blocks, int64_t step) {
    const cudaStream_t st = m_device.stream();
    GpuRuntime& runtime = gpuRuntime();
    m_device.makeCurrent();
    const Chunk* table = m_table;
    double* partials = m_normPartials;
    GradientNorms* record = m_norms;
    int* skip = m_skip;
    const double maxNorm = m_clipNorm;
    if (runtime.simulated()) {
      NS_CUDA_CHECK(runtime.launchHost(st, "gradient norm", [=](DeviceMemoryAccess& m) {
        double* out = m.at(partials, blocks);
        std::vector<double> lanes(kReduceThreads);
        unsigned b = 0;
        forEachChunk(m, table, blocks, [&](const Chunk& c) { out[b++] = solver::squaresBlockSum(c, lanes.data()); });
      }));
      NS_CUDA_CHECK(runtime.launchHost(st, "gradient clip", [=](DeviceMemoryAccess& m) {
        const double norm = solver::normOfPartials(m.at(partials, blocks), blocks);
        const float scale = clipScale(norm, maxNorm);
        m.at(record, 1)->observe(norm, scale != 1.0f, step);
        *m.at(skip, 1) = std::isfinite(norm) ? 0 : 1;
        if (scale != 1.0f)
          forEachChunk(m, table, blocks, [&](const Chunk& c) {
            for (int64_t i = 0; i < c.n; ++i) solver::scaleGradient(c, i, scale);
          });
      }));
      return;
    }
    normSquaresKernel<<<blocks, kReduceThreads, 0, st>>>(table, partials);
    NS_CUDA_CHECK_LAUNCH();
    clipKernel<<<blocks, kThreads, 0, st>>>(table, partials, blocks, maxNorm, record, step, skip);
    NS_CUDA_CHECK_LAUNCH();
  }

  template <class S, bool kL2>
  void launch(unsigned blocks, const typename S::Scalars& s) {
    const cudaStream_t st = m_device.stream();
    const float wd = float(m_weightDecay);
    if (GpuRuntime& runtime = gpuRuntime(); runtime.simulated()) {
      const Chunk* table = m_table;
      const int* skip = m_skip;
      NS_CUDA_CHECK(runtime.launchHost(st, "solver step", [=](DeviceMemoryAccess& m) {
        if (*m.at(skip, 1)) return;  // Note [Gradient clipping]: a non-finite gradient
        forEachChunk(m, table, blocks, [&](const Chunk& c) {
          const typename S::Scalars chunkScalars = S::forSlot(s, c.lrMult);
          for (int64_t i = 0; i < c.n; ++i) solver::update<S, kL2>(c, i, chunkScalars, wd);
        });
      }));
      return;
    }
    solverKernel<S, kL2><<<blocks, kThreads, 0, st>>>(m_table, s, wd, m_skip);
    NS_CUDA_CHECK_LAUNCH();
  }

  // Note [Trust ratio]: the two kernels, or their bodies on the simulated GPUs' host.
  template <class S>
  void launchTrustRatio(unsigned blocks, const typename S::Scalars& s) {
    const cudaStream_t st = m_device.stream();
    if (GpuRuntime& runtime = gpuRuntime(); runtime.simulated()) {
      const Chunk* table = m_table;
      double* partials = m_partials;
      const int* skip = m_skip;
      NS_CUDA_CHECK(runtime.launchHost(st, "solver trust sums", [=](DeviceMemoryAccess& m) {
        if (*m.at(skip, 1)) return;  // Note [Gradient clipping]: a non-finite gradient
        double* out = m.at(partials, size_t(blocks) * 2);
        std::vector<double> sums(size_t(kThreads) * 2);
        unsigned b = 0;
        forEachChunk(m, table, blocks, [&](const Chunk& c) {
          solver::trustBlockSums<S>(c, s, kThreads, sums.data(), out + 2 * b);
          ++b;
        });
      }));
      NS_CUDA_CHECK(runtime.launchHost(st, "solver trust step", [=](DeviceMemoryAccess& m) {
        if (*m.at(skip, 1)) return;
        const double* in = m.at(partials, size_t(blocks) * 2);
        forEachChunk(m, table, blocks, [&](const Chunk& c) {
          const float scale = solver::trustScale<S>(c, in, s);
          for (int64_t i = 0; i < c.n; ++i) solver::trustApply<S>(c, i, s, scale);
        });
      }));
      return;
    }
    trustSumsKernel<S><<<blocks, kThreads, 0, st>>>(m_table, s, m_partials, m_skip);
    NS_CUDA_CHECK_LAUNCH();
    trustApplyKernel<S><<<blocks, kThreads, 0, st>>>(m_table, s, m_partials, m_skip);
    NS_CUDA_CHECK_LAUNCH();
  }

  CudaDeviceContext& m_device;
  std::string m_solver;
  std::vector<std::string> m_buffers;
  solvers::HyperValues m_hyper;  // the optimizer's (Optimizer::hyperValues)
  bool m_l2 = true;              // optimizer.weight_decay is L2 (not the solver's own decoupled decay)
  bool m_trustRatio = false;     // two kernels (Note [Trust ratio])
  double m_weightDecay = 0, m_baseLr = 0;
  int64_t m_steps = 0;
  std::map<std::string, SlotState> m_state;
  std::vector<Chunk> m_chunks;
  std::vector<const void*> m_tablePointers;
  Chunk* m_table = nullptr;
  double* m_partials = nullptr;  // Note [Trust ratio]: Σw², Σd² per chunk
  int* m_overflow = nullptr;
  int* m_overflowHost = nullptr;  // pinned: the flag's asynchronous copy lands here
  // Note [Gradient clipping]: the clip (0: off), each chunk's Σg², the record of the norms and the
  // flag that skips the update of a non-finite gradient (device memory).
  double m_clipNorm = 0;
  int64_t m_calls = 0;  // step() calls of this session: the record's step numbers
  double* m_normPartials = nullptr;
  GradientNorms* m_norms = nullptr;
  int* m_skip = nullptr;
  float m_lossScale = 1.0f;
  int m_goodSteps = 0;
  int64_t m_skipped = 0;
};

}  // namespace

std::unique_ptr<DeviceSolver> makeCudaSolver(const Optimizer& config, CudaDeviceContext& device) {
  return std::make_unique<CudaSolver>(config, device);
}

}  // namespace netsmith::cuda
