// What GPU code this build carries and whether a GPU can run it (Note [CUDA architectures] in
// cmake/CudaDetection.cmake): the rule the CUDA driver applies, written out so that the simulator
// follows it too and a GPU without code is named with what to rebuild with.
#pragma once

#include <string>
#include <vector>

namespace netsmith::cuda {

// One entry of CMAKE_CUDA_ARCHITECTURES: "90-real" (SASS for sm_90), "75-virtual" (compute_75
// PTX), "86" (both).
struct CudaArchitecture {
  int number = 0;  // 75, 86, 90, 100, ...
  bool sass = false;
  bool ptx = false;
};

// The list this build was compiled for, as CMake gave it ("75-virtual 90-real").
const std::string& builtArchitectures();
std::vector<CudaArchitecture> parseArchitectures(const std::string& list);

// True when a GPU of compute capability `cc` (major * 10 + minor) can load code from `built`:
// SASS of the same major and a minor not above the GPU's (sm_80 code runs on sm_86), or PTX of a
// virtual architecture not above it (the driver compiles it).
bool architecturesRun(const std::vector<CudaArchitecture>& built, int cc);

// "cuda:0 (NVIDIA GeForce GTX 1080, compute capability 6.1) cannot run this build's kernels: ..."
// naming what the build carries and what to do: rebuild with its architecture, or, below 7.5,
// that CUDA 13 does not support it.
std::string noKernelImageMessage(const std::string& id, const std::string& name, int cc, const std::string& built);

// "compute_75 PTX and sm_90" for "75-virtual 90-real".
std::string describeArchitectures(const std::string& built);

// "7.5" for 75.
std::string computeCapabilityText(int cc);

}  // namespace netsmith::cuda
