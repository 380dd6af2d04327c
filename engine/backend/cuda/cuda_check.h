// NS_CUDA_CHECK, NS_CUDNN_CHECK, NS_CUBLAS_CHECK, NS_NCCL_CHECK: throw netsmith::Error with the
// call, the library's name for the status, what the runtime knows more (the simulator names the
// pointer, the allocation or the kernel) and the source line, like NS_CHECK (STYLE.md, Errors).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include "engine/backend/cuda/gpu_runtime.h"
#include "engine/core/error.h"

namespace netsmith::cuda {

const char* cublasStatusName(cublasStatus_t status);

}  // namespace netsmith::cuda

namespace netsmith::cuda {
[[noreturn]] void throwCudaError(cudaError_t status, const char* call, const char* file, int line);
[[noreturn]] void throwNcclError(ncclResult_t status, const char* call, const char* file, int line);
}  // namespace netsmith::cuda

#define NS_CUDA_CHECK(call)                                                                 \
  do {                                                                                      \
    const cudaError_t ns_status_ = (call);                                                  \
    if (ns_status_ != cudaSuccess) ::netsmith::cuda::throwCudaError(ns_status_, #call, __FILE__, __LINE__); \
  } while (false)

// ncclInProgress is not an error: a non-blocking communicator's call was accepted and completes
// later (the caller waits for it: Note [NCCL collectives]).
#define NS_NCCL_CHECK(call)                                                                 \
  do {                                                                                      \
    const ncclResult_t ns_status_ = (call);                                                 \
    if (ns_status_ != ncclSuccess && ns_status_ != ncclInProgress)                          \
      ::netsmith::cuda::throwNcclError(ns_status_, #call, __FILE__, __LINE__);              \
  } while (false)

#define NS_CUDNN_CHECK(call)                                                                                     \
  do {                                                                                                           \
    const cudnnStatus_t ns_status_ = (call);                                                                     \
    if (ns_status_ != CUDNN_STATUS_SUCCESS)                                                                      \
      NS_THROW("cuDNN error {} in {} at {}:{}", cudnnGetErrorString(ns_status_), #call, __FILE__, __LINE__);     \
  } while (false)

#define NS_CUBLAS_CHECK(call)                                                                                      \
  do {                                                                                                             \
    const cublasStatus_t ns_status_ = (call);                                                                      \
    if (ns_status_ != CUBLAS_STATUS_SUCCESS)                                                                       \
      NS_THROW("cuBLAS error {} in {} at {}:{}", ::netsmith::cuda::cublasStatusName(ns_status_), #call, __FILE__, \
               __LINE__);                                                                                          \
  } while (false)

// After a kernel launch: a bad configuration is reported at once, not by a later call.
#define NS_CUDA_CHECK_LAUNCH() NS_CUDA_CHECK(::netsmith::cuda::gpuRuntime().getLastError())
