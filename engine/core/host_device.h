// NS_HOST_DEVICE: marks a kernel's per-element body, which nvcc compiles for the GPU (called by
// the __global__ kernel) and every compiler for the host (the simulated GPUs' host loop, and the
// unit tests that compare it with the CPU op: Note [Simulated kernels]).
#pragma once

#ifdef __CUDACC__
#define NS_HOST_DEVICE __host__ __device__
#else
#define NS_HOST_DEVICE
#endif
