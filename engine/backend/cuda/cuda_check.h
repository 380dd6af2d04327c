// NS_CUDA_CHECK, NS_CUDNN_CHECK, NS_CUBLAS_CHECK: throw netsmith::Error with the call, the
// library's name for the status and the source line, like NS_CHECK (STYLE.md, Errors).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include "engine/core/error.h"

namespace netsmith::cuda {

const char* cublasStatusName(cublasStatus_t status);

}  // namespace netsmith::cuda

#define NS_CUDA_CHECK(call)                                                                                       \
  do {                                                                                                            \
    const cudaError_t ns_status_ = (call);                                                                        \
    if (ns_status_ != cudaSuccess)                                                                                \
      NS_THROW("CUDA error {} ({}) in {} at {}:{}", cudaGetErrorName(ns_status_), cudaGetErrorString(ns_status_), \
               #call, __FILE__, __LINE__);                                                                        \
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
#define NS_CUDA_CHECK_LAUNCH() NS_CUDA_CHECK(cudaGetLastError())
