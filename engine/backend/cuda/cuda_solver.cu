// Note [Fused solver step]
// One launch updates every parameter: the parameters are cut into chunks of kChunk floats, and a
// table of chunks (value, gradient, state pointers, length) lives in device memory; block b
// updates chunk b. The table is rebuilt and uploaded only when the parameter or state pointers
// change (never, after the first step, in a run). Per-step scalars (Adam's α_t, AdamW's η_t·wd)
// are computed in double on the host and rounded to float once, as Optimizer::prepare does, and
// passed by value, so a step costs one launch and no copy. The element-wise update is Optimizer's
// (Note [Solver kernels]); nvcc may contract a·b + c into an FMA, so results match the CPU within
// rounding (the tests allow 1e-6 relative per step), not bit for bit.
//
// Half precision (dynamic loss scaling): Replica multiplies the loss gradient by lossScale();
// step() first divides every gradient by it in place and flags any non-finite value (one fused
// kernel), reads the flag (the one extra wait of a half step), and on overflow skips the update,
// halves the scale and counts the step as skipped; after kGrowthInterval good steps in a row it
// doubles the scale (PyTorch's GradScaler policy, initial scale 2^16).
#include <cmath>
#include <map>
#include <vector>

#include "engine/backend/cuda/cuda_device.h"
#include "engine/backend/cuda/cuda_kernels.cuh"
#include "engine/backend/cuda/cuda_solver.h"
#include "engine/backend/cuda/solver_update.h"

namespace netsmith::cuda {
namespace {

constexpr int64_t kChunk = 65536;
constexpr int kGrowthInterval = 2000;

using solver::Chunk;
using solver::Kind;
using solver::StepScalars;

template <Kind K, bool kL2>
__global__ void solverKernel(const Chunk* chunks, StepScalars s) {
  const Chunk c = chunks[blockIdx.x];
  for (int64_t i = threadIdx.x; i < c.n; i += blockDim.x) solver::update<K, kL2>(c, i, s);
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
    const Chunk c{m.at(d.w, d.n), m.at(d.g, d.n), m.at(d.s0, d.n), m.at(d.s1, d.n), d.n, d.lrMult};
    perChunk(c);
  }
}

class CudaSolver final : public DeviceSolver {
 public:
  CudaSolver(const Optimizer& config, CudaDeviceContext& device)
      : m_device(device), m_solver(config.solverName()), m_buffers(config.bufferNames()) {
    const Json h = config.hyperParameters();
    const auto get = [&](const char* k, double d) { return h.contains(k) ? h[k].get<double>() : d; };
    static const std::map<std::string, Kind> kinds{{"Sgd", Kind::Sgd},         {"Momentum", Kind::Momentum},
                                                   {"Nesterov", Kind::Nesterov}, {"Adagrad", Kind::Adagrad},
                                                   {"RMSprop", Kind::RmsProp}, {"Adam", Kind::Adam},
                                                   {"AdamW", Kind::AdamW}};
    const auto it = kinds.find(m_solver);
    NS_CHECK(it != kinds.end(), "the CUDA backend has no kernel for solver {}", m_solver);
    m_kind = it->second;
    m_weightDecay = config.weightDecay();
    m_baseLr = config.baseLearningRate();
    m_mu = get("momentum", 0.9);
    m_eps = get("eps", 1e-8);
    m_rho = get("decay", 0.9);
    m_beta1 = get("beta1", 0.9);
    m_beta2 = get("beta2", 0.999);
    m_steps = config.steps();
    m_lossScale = precisionMath(device.options().precision).initialLossScale;
    device.makeCurrent();
    NS_CUDA_CHECK(gpuRuntime().malloc(reinterpret_cast<void**>(&m_overflow), sizeof(int)));
    NS_CUDA_CHECK(gpuRuntime().hostAlloc(reinterpret_cast<void**>(&m_overflowHost), sizeof(int)));
  }
  ~CudaSolver() override {
    GpuRuntime& runtime = gpuRuntime();
    runtime.setDevice(m_device.ordinal());
    runtime.streamSynchronize(m_device.stream());
    if (m_table) runtime.free(m_table);
    if (m_overflow) runtime.free(m_overflow);
    if (m_overflowHost) runtime.freeHost(m_overflowHost);
  }

  float lossScale() const override { return m_lossScale; }
  int64_t skippedSteps() const override { return m_skipped; }

  void step(std::span<const ParamSlot> slots, double lr) override {
    NS_CHECK(std::isfinite(lr) && lr >= 0, "optimizer: the learning rate must be a finite number >= 0, got {}", lr);
    for (const auto& slot : slots)
      NS_CHECK(slot.value && slot.grad && slot.grad->shape() == slot.value->shape(),
               "optimizer: parameter '{}' has no gradient of its shape", slot.name);
    prepareTable(slots);
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
    const double t = static_cast<double>(m_steps + 1);
    StepScalars s{};
    s.lr = float(lr);
    s.wd = float(m_weightDecay);
    s.mu = float(m_mu);
    s.onePlusMu = 1.0f + float(m_mu);
    s.eps = float(m_eps);
    s.rho = float(m_rho);
    s.oneMinusRho = float(1.0 - m_rho);
    s.b1 = float(m_beta1);
    s.b2 = float(m_beta2);
    s.oneMinusB1 = float(1.0 - m_beta1);
    s.oneMinusB2 = float(1.0 - m_beta2);
    s.alphaT = float(lr * std::sqrt(1.0 - std::pow(m_beta2, t)) / (1.0 - std::pow(m_beta1, t)));
    s.etaWd = m_kind == Kind::AdamW ? float(lr / m_baseLr * m_weightDecay) : 0.0f;
    const bool l2 = m_weightDecay != 0 && m_kind != Kind::AdamW;
    launch(blocks, s, l2);
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
      float* s[2] = {nullptr, nullptr};
      if (!m_buffers.empty()) {
        auto& st = m_state.at(slot.name);
        for (size_t b = 0; b < m_buffers.size(); ++b) s[b] = st.device[b].data();
      }
      const int64_t n = slot.value->size();
      for (int64_t begin = 0; begin < n; begin += kChunk)
        m_chunks.push_back({slot.value->data() + begin, slot.grad->data() + begin, s[0] ? s[0] + begin : nullptr,
                            s[1] ? s[1] + begin : nullptr, std::min(kChunk, n - begin), slot.lrMult});
    }
    GpuRuntime& runtime = gpuRuntime();
    m_device.makeCurrent();
    if (m_table) NS_CUDA_CHECK(runtime.streamSynchronize(m_device.stream()));  // the old table may be in use
    if (m_table) NS_CUDA_CHECK(runtime.free(m_table));
    m_table = nullptr;
    if (!m_chunks.empty()) {
      NS_CUDA_CHECK(runtime.malloc(reinterpret_cast<void**>(&m_table), m_chunks.size() * sizeof(Chunk)));
      // On the compute stream, where the kernels that read the table are queued: a cudaMemcpy on
      // the legacy default stream is not ordered before them (the streams are non-blocking), and
      // from pageable memory it may return before its copy has run.
      NS_CUDA_CHECK(runtime.memcpyAsync(m_table, m_chunks.data(), m_chunks.size() * sizeof(Chunk),
                                        cudaMemcpyHostToDevice, m_device.stream()));
    }
    m_tablePointers = std::move(pointers);
  }

  void launch(unsigned blocks, const StepScalars& s, bool l2) {
    const cudaStream_t st = m_device.stream();
    if (GpuRuntime& runtime = gpuRuntime(); runtime.simulated()) {
      const Chunk* table = m_table;
      const Kind kind = m_kind;
      NS_CUDA_CHECK(runtime.launchHost(st, "solver step", [=](DeviceMemoryAccess& m) {
        forEachChunk(m, table, blocks, [&](const Chunk& c) {
          solver::withUpdate(kind, l2, [&](auto k, auto withL2) {
            for (int64_t i = 0; i < c.n; ++i) solver::update<decltype(k)::value, decltype(withL2)::value>(c, i, s);
          });
        });
      }));
      return;
    }
    solver::withUpdate(m_kind, l2, [&](auto k, auto withL2) {
      solverKernel<decltype(k)::value, decltype(withL2)::value><<<blocks, kThreads, 0, st>>>(m_table, s);
    });
    NS_CUDA_CHECK_LAUNCH();
  }

  CudaDeviceContext& m_device;
  std::string m_solver;
  std::vector<std::string> m_buffers;
  Kind m_kind = Kind::Sgd;
  double m_weightDecay = 0, m_baseLr = 0, m_mu = 0, m_eps = 0, m_rho = 0, m_beta1 = 0, m_beta2 = 0;
  int64_t m_steps = 0;
  std::map<std::string, SlotState> m_state;
  std::vector<Chunk> m_chunks;
  std::vector<const void*> m_tablePointers;
  Chunk* m_table = nullptr;
  int* m_overflow = nullptr;
  int* m_overflowHost = nullptr;  // pinned: the flag's asynchronous copy lands here
  float m_lossScale = 1.0f;
  int m_goodSteps = 0;
  int64_t m_skipped = 0;
};

}  // namespace

std::unique_ptr<DeviceSolver> makeCudaSolver(const Optimizer& config, CudaDeviceContext& device) {
  return std::make_unique<CudaSolver>(config, device);
}

}  // namespace netsmith::cuda
