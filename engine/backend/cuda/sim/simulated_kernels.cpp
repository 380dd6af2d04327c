// Note [Simulated kernels]
// cuDNN and cuBLAS cannot be simulated, so on simulated GPUs every op runs its CPU kernel: the
// "cuda" kernel of an op is a SimulatedKernel that, when the network calls it on the worker's
// thread, records the call (tensor pointers and shapes, the sample ids) and queues it on the
// device's compute stream; the stream's thread then runs the CPU kernel over views of the host
// memory behind each pointer, each one checked (Note [Simulated device memory]). Everything
// around the kernels — allocation, copies, ordering, the solver, NCCL — is the CUDA backend's own
// host code. The backend's own small kernels (fill, scale, the fused solver step) are not CPU
// kernels: the simulator runs their __host__ __device__ bodies in a host loop (cuda_elementwise.cu,
// cuda_solver.cu). A simulated GPU computes in float32 with one thread. Activations it stores in
// 16 bits (Note [16-bit activations], engine/model/network.cpp) reach the CPU kernel widened to
// float32, and what the kernel writes is rounded back as it is stored: the bits a GPU stores.
// Activations it keeps channels last (Note [Channels last]) reach it in NCHW order the same way.
#include <vector>

#include "engine/backend/cuda/cuda_check.h"
#include "engine/backend/cuda/cuda_device.h"
#include "engine/op_interface/op_registry.h"

namespace netsmith::cuda {
namespace {

struct TensorRef {
  void* data = nullptr;  // null: no tensor in this slot
  Shape shape;
  TensorFormat format;
};

TensorRef refOf(const Tensor* t) {
  return t ? TensorRef{const_cast<void*>(t->raw()), t->shape(), t->format()} : TensorRef{};
}

// Position i of the NCHW tensor the CPU kernel sees, in the slot's memory order.
LayoutMap toSlot(const TensorRef& ref, bool slotIsDestination) {
  if (ref.format.layout == Layout::ChannelsFirst) return {};
  const int64_t C = ref.shape.at(1), S = ref.shape.at(2) * ref.shape.at(3);
  return slotIsDestination ? LayoutMap{C, S, true, false} : LayoutMap{C, S, false, true};
}

// The CPU kernel's tensor for a slot: a view of float32 NCHW memory, else an NCHW float32 copy of
// its values (`read`: widened and reordered from them; else left to the kernel to write).
Tensor hostTensor(const TensorRef& ref, DeviceMemoryAccess& m, bool read) {
  const int64_t n = numel(ref.shape);
  if (ref.format == TensorFormat{}) return Tensor::view(m.at(static_cast<float*>(ref.data), n), ref.shape);
  Tensor wide(ref.shape);
  if (!read) return wide;
  const LayoutMap from = toSlot(ref, false);
  withFormat(ref.format.storage, [&](auto format) {
    using F = decltype(format);
    const auto* values = m.at(static_cast<const typename F::Bits*>(ref.data), n);
    for (int64_t i = 0; i < n; ++i) wide[i] = F::load(values[from.source(i)]);
  });
  return wide;
}

// What the kernel wrote into a copy made by hostTensor, rounded and reordered into the slot.
void storeWritten(const TensorRef& ref, const Tensor& wide, DeviceMemoryAccess& m) {
  if (!ref.data || ref.format == TensorFormat{}) return;
  const int64_t n = numel(ref.shape);
  const LayoutMap from = toSlot(ref, true);
  withFormat(ref.format.storage, [&](auto format) {
    using F = decltype(format);
    auto* values = m.at(static_cast<typename F::Bits*>(ref.data), n);
    for (int64_t j = 0; j < n; ++j) values[j] = F::store(wide[from.source(j)]);
  });
}

class SimulatedKernel final : public Kernel {
 public:
  SimulatedKernel(std::string op, std::unique_ptr<Kernel> cpu, CudaDeviceContext& device)
      : m_op(std::move(op)), m_cpu(std::move(cpu)), m_device(device) {}
  // Queued calls use this kernel: let them finish first.
  ~SimulatedKernel() override {
    try {
      m_device.synchronize();
    } catch (...) {  // a faulted device: nothing more runs on it
    }
  }

  void forward(KernelCall& call) override { queue(call, false); }
  void backward(KernelCall& call) override { queue(call, true); }

 private:
  struct Recorded {
    std::vector<TensorRef> inputs, params, inputGrads, paramGrads;
    TensorRef output, target, outputGrad;
    bool training = false;
    RandomKey random;
    std::vector<int64_t> sampleIds;
  };

  void queue(KernelCall& call, bool backward) {
    auto r = std::make_shared<Recorded>();
    for (const Tensor* t : call.inputs) r->inputs.push_back(refOf(t));
    for (const Tensor* t : call.params) r->params.push_back(refOf(t));
    for (const Tensor* t : call.inputGrads) r->inputGrads.push_back(refOf(t));
    for (const Tensor* t : call.paramGrads) r->paramGrads.push_back(refOf(t));
    r->output = refOf(&call.output);
    r->target = refOf(call.target);
    r->outputGrad = refOf(call.outputGrad);
    r->training = call.training;
    r->random = call.random;
    if (call.random.sampleIds) {  // host memory the caller may reuse once this returns
      const int64_t rows = call.output.rank() ? call.output.dim(0) : 0;
      r->sampleIds.assign(call.random.sampleIds, call.random.sampleIds + rows);
    }
    m_device.makeCurrent();
    const std::string name = m_op + (backward ? " backward" : " forward");
    NS_CUDA_CHECK(gpuRuntime().launchHost(m_device.stream(), name.c_str(), [this, r, backward](DeviceMemoryAccess& m) {
      run(*r, backward, m);
    }));
  }

  // On the stream's thread.
  void run(Recorded& r, bool backward, DeviceMemoryAccess& m) {
    auto views = [&](const std::vector<TensorRef>& refs, std::vector<Tensor>& out, std::vector<Tensor*>& pointers,
                     bool read) {
      out.reserve(refs.size());
      for (const TensorRef& ref : refs) {
        out.push_back(ref.data ? hostTensor(ref, m, read) : Tensor());
        pointers.push_back(ref.data ? &out.back() : nullptr);
      }
    };
    std::vector<Tensor> inputs, params, inputGrads, paramGrads;
    std::vector<Tensor*> inputPtrs, paramPtrs, inputGradPtrs, paramGradPtrs;
    views(r.inputs, inputs, inputPtrs, true);
    views(r.params, params, paramPtrs, true);
    views(r.inputGrads, inputGrads, inputGradPtrs, false);
    views(r.paramGrads, paramGrads, paramGradPtrs, false);
    std::vector<const Tensor*> constInputs(inputPtrs.begin(), inputPtrs.end());
    Tensor output = hostTensor(r.output, m, backward);  // backward reads the forward's output
    Tensor target = r.target.data ? hostTensor(r.target, m, true) : Tensor();
    Tensor outputGrad = r.outputGrad.data ? hostTensor(r.outputGrad, m, true) : Tensor();
    KernelCall call{*m_device.hostKernelContext(), constInputs, paramPtrs, output};
    call.target = r.target.data ? &target : nullptr;
    call.training = r.training;
    call.random = r.random;
    call.random.sampleIds = r.sampleIds.empty() ? nullptr : r.sampleIds.data();
    if (backward) {
      call.outputGrad = r.outputGrad.data ? &outputGrad : nullptr;
      call.inputGrads = inputGradPtrs;
      call.paramGrads = paramGradPtrs;
      m_cpu->backward(call);
      for (size_t i = 0; i < r.inputGrads.size(); ++i) storeWritten(r.inputGrads[i], inputGrads[i], m);
    } else {
      m_cpu->forward(call);
      storeWritten(r.output, output, m);
    }
  }

  std::string m_op;
  std::unique_ptr<Kernel> m_cpu;  // used on the compute stream's thread only
  CudaDeviceContext& m_device;
};

}  // namespace

void registerSimulatedKernels(OpRegistry& registry) {
  for (const OpSchema* schema : registry.all()) {
    const auto cpu = schema->kernels.find("cpu");
    if (cpu == schema->kernels.end()) continue;
    KernelFactory makeCpu = cpu->second;
    registry.findMutable(schema->name)->kernels["cuda"] = [makeCpu, op = schema->name](const KernelSetup& setup) {
      CudaDeviceContext& device = cudaContext(setup.device);
      DeviceContext* host = device.hostKernelContext();
      NS_CHECK(host, "{}: the simulated kernels need a simulated GPU, and {} is a real one", op, device.id());
      std::unique_ptr<Kernel> kernel = makeCpu(KernelSetup{*host, setup.inputShapes, setup.outputShape, setup.params});
      return std::make_unique<SimulatedKernel>(op, std::move(kernel), device);
    };
  }
}

}  // namespace netsmith::cuda
