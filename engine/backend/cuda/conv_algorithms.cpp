// Note [cuDNN convolution algorithms]
// cuDNN's heuristics (cudnnGet*Algorithm_v7, what PyTorch uses without cudnn.benchmark) often
// pick a slower algorithm than the GPU's fastest for a shape, and the gap is widest on tensor
// cores. So the first time a shape (batch size included) is met in the process, each of the three
// passes is measured: cudnnFind*AlgorithmEx runs every algorithm on scratch buffers of the device
// and ranks them by time (as cudnn.benchmark does); the first that succeeded, fits the workspace
// limit (1 GiB) and, in reproducible mode (config.deterministic), is deterministic is kept. The
// choice is cached by a key naming the problem completely and the GPU (cuda:N), so replicas on one
// GPU, layers of one shape and later epochs measure nothing, and a different batch size (the
// epoch's last, validation) is measured once. The measurement costs milliseconds per shape at
// the start and uses the device's memory pool for its scratch buffers (they return to the pool).
// If a measurement fails, or NETSMITH_CUDNN_ALGORITHMS=heuristic is set (to compare the two),
// the heuristics choose. Math type by precision: Note [Precision] (precision_math.h).
#include "engine/backend/cuda/conv_algorithms.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>

#include "engine/backend/cuda/cuda_op.h"

namespace netsmith::cuda {
namespace {

constexpr int kMaxAlgorithms = 16;

template <typename Perf>
bool acceptableAlgorithm(const Perf& p, bool deterministic) {
  return p.status == CUDNN_STATUS_SUCCESS && p.memory <= kConvWorkspaceLimit &&
         (!deterministic || p.determinism == CUDNN_DETERMINISTIC);
}

template <typename Perf>
const Perf& firstAcceptable(const Perf* perf, int found, const ConvProblem& p, const char* pass) {
  for (int i = 0; i < found; ++i)
    if (acceptableAlgorithm(perf[i], p.deterministic)) return perf[i];
  NS_THROW("cuDNN offers no {}{} convolution algorithm for {}: lower the batch size or turn off config.deterministic",
           p.deterministic ? "deterministic " : "", pass, p.shapes);
}

ConvAlgorithms heuristicAlgorithms(CudaDeviceContext& c, const ConvProblem& p) {
  ConvAlgorithms a;
  int found = 0;
  cudnnConvolutionFwdAlgoPerf_t fwd[kMaxAlgorithms];
  NS_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(c.cudnn(), p.x, p.w, p.conv, p.y, kMaxAlgorithms, &found, fwd));
  a.forward = firstAcceptable(fwd, found, p, "forward").algo;
  cudnnConvolutionBwdDataAlgoPerf_t data[kMaxAlgorithms];
  NS_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(c.cudnn(), p.w, p.y, p.conv, p.x, kMaxAlgorithms, &found, data));
  a.backwardData = firstAcceptable(data, found, p, "backward data").algo;
  cudnnConvolutionBwdFilterAlgoPerf_t filter[kMaxAlgorithms];
  NS_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(c.cudnn(), p.x, p.y, p.conv, p.w, kMaxAlgorithms, &found, filter));
  a.backwardFilter = firstAcceptable(filter, found, p, "backward filter").algo;
  return a;
}

// cudnnFind*AlgorithmEx on scratch tensors: the inputs zero, the outputs written by the trials.
// Returns false when cuDNN could not measure (the caller falls back to the heuristics).
bool measuredAlgorithms(CudaDeviceContext& c, const ConvProblem& p, ConvAlgorithms& a) {
  Tensor x({p.xCount}, &c.pool()), w({p.wCount}, &c.pool()), y({p.yCount}, &c.pool());
  c.fill(x.data(), x.size(), 0.0f);
  c.fill(w.data(), w.size(), 0.0f);
  c.fill(y.data(), y.size(), 0.0f);
  Tensor dx({p.xCount}, &c.pool()), dw({p.wCount}, &c.pool());
  // The trials' workspace: up to the limit, within half of what the device has free.
  size_t freeBytes = 0, totalBytes = 0;
  NS_CUDA_CHECK(gpuRuntime().memGetInfo(&freeBytes, &totalBytes));
  const size_t workspaceBytes = std::min(kConvWorkspaceLimit, freeBytes / 2);
  Tensor scratch({static_cast<int64_t>(workspaceBytes / sizeof(float))}, &c.pool());
  void* workspace = scratch.data();
  int found = 0;
  cudnnConvolutionFwdAlgoPerf_t fwd[kMaxAlgorithms];
  if (cudnnFindConvolutionForwardAlgorithmEx(c.cudnn(), p.x, x.data(), p.w, w.data(), p.conv, p.y, y.data(), kMaxAlgorithms,
                                             &found, fwd, workspace, workspaceBytes) != CUDNN_STATUS_SUCCESS)
    return false;
  a.forward = firstAcceptable(fwd, found, p, "forward").algo;
  cudnnConvolutionBwdDataAlgoPerf_t data[kMaxAlgorithms];
  if (cudnnFindConvolutionBackwardDataAlgorithmEx(c.cudnn(), p.w, w.data(), p.y, y.data(), p.conv, p.x, dx.data(),
                                                  kMaxAlgorithms, &found, data, workspace, workspaceBytes) != CUDNN_STATUS_SUCCESS)
    return false;
  a.backwardData = firstAcceptable(data, found, p, "backward data").algo;
  cudnnConvolutionBwdFilterAlgoPerf_t filter[kMaxAlgorithms];
  if (cudnnFindConvolutionBackwardFilterAlgorithmEx(c.cudnn(), p.x, x.data(), p.y, y.data(), p.conv, p.w, dw.data(),
                                                    kMaxAlgorithms, &found, filter, workspace, workspaceBytes) != CUDNN_STATUS_SUCCESS)
    return false;
  a.backwardFilter = firstAcceptable(filter, found, p, "backward filter").algo;
  // The scratch tensors go back to the pool once the trials that use them have run.
  c.synchronize();
  return true;
}

bool heuristicsAsked() {
  const char* v = std::getenv("NETSMITH_CUDNN_ALGORITHMS");
  return v && std::string(v) == "heuristic";
}

}  // namespace

ConvAlgorithms convAlgorithms(CudaDeviceContext& c, const ConvProblem& p, const std::string& key) {
  static std::mutex mutex;
  static std::map<std::string, ConvAlgorithms> chosen;
  const std::string fullKey = c.id() + " " + key;
  {
    std::lock_guard lock(mutex);
    if (const auto it = chosen.find(fullKey); it != chosen.end()) return it->second;
  }
  ConvAlgorithms a;
  bool measured = false;
  if (!heuristicsAsked()) {
    try {
      measured = measuredAlgorithms(c, p, a);
    } catch (const Error&) {
      measured = false;  // no memory for the trials, or no acceptable algorithm among them
    }
  }
  if (!measured) a = heuristicAlgorithms(c, p);
  NS_CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(c.cudnn(), p.x, p.w, p.conv, p.y, a.forward, &a.forwardBytes));
  NS_CUDNN_CHECK(cudnnGetConvolutionBackwardDataWorkspaceSize(c.cudnn(), p.w, p.y, p.conv, p.x, a.backwardData,
                                                              &a.backwardDataBytes));
  NS_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterWorkspaceSize(c.cudnn(), p.x, p.y, p.conv, p.w, a.backwardFilter,
                                                                &a.backwardFilterBytes));
  std::lock_guard lock(mutex);
  return chosen.emplace(fullKey, a).first->second;
}

}  // namespace netsmith::cuda
