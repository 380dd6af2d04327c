# Detects the CUDA toolkit with cuBLAS, cuDNN and NCCL beside it, and says what it found. With all
# of them, NETSMITH_HAVE_CUDA is ON and engine/CMakeLists.txt builds netsmith_engine_cuda for the
# architectures of Note [CUDA architectures]. Without them the build is the CPU backend only;
# nothing else changes.
#
# Note [CUDA architectures]
# CUDA 13 supports Turing (sm_75) and newer. Every build carries compute_75 PTX, which the driver
# compiles (once, into its cache) for any of them, so a binary loads on every GPU CUDA 13 runs.
# NETSMITH_CUDA_ARCHITECTURES chooses the SASS (ready machine code) beside it:
#   native (the default): SASS for the GPUs this machine has (nvidia-smi), none on a machine
#                         without one: developer builds and CI compile each kernel once or twice;
#   all:                  SASS for sm_75, 80, 86, 89, 90, 100 and 120 (T4, A100, RTX 3090,
#                         RTX 4090/L4, H100/H200, B200, RTX 5090): the Debian package
#                         (docs/install.md), so no GPU waits for the JIT;
#   a list such as 80;90: SASS for those.
# -DCMAKE_CUDA_ARCHITECTURES=... overrides all of this. The list built is compiled into the engine
# (NETSMITH_CUDA_ARCHITECTURES_BUILT) so that a GPU with no code for it is named with the command
# that rebuilds for it (cuda_device.cpp) instead of a CUDA error at the first kernel.
set(NETSMITH_HAVE_CUDA OFF)
# Note [CUDA where it runs] (CMakeLists.txt): AUTO asks for a driver first. The kernel module's
# version file is there wherever the driver is loaded; libcuda.so.1 where it is installed.
set(netsmith_cuda_wanted ${NETSMITH_WITH_CUDA})
if(NETSMITH_WITH_CUDA STREQUAL "AUTO")
  find_library(NETSMITH_CUDA_DRIVER_LIBRARY NAMES libcuda.so.1)
  if(EXISTS /proc/driver/nvidia/version OR NETSMITH_CUDA_DRIVER_LIBRARY)
    set(netsmith_cuda_wanted ON)
  else()
    set(netsmith_cuda_wanted OFF)
    message(STATUS "netsmith: no NVIDIA driver on this machine: building the CPU backend only "
                   "(-DNETSMITH_WITH_CUDA=ON builds the CUDA backend anyway, e.g. for simulated GPUs)")
  endif()
endif()
if(netsmith_cuda_wanted)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    find_package(CUDAToolkit QUIET)
  endif()
  if(CUDAToolkit_FOUND)
    find_library(NETSMITH_CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR})
    find_library(NETSMITH_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
    find_path(NETSMITH_CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
    find_path(NETSMITH_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
    message(STATUS "netsmith: CUDA toolkit ${CUDAToolkit_VERSION} at ${CUDAToolkit_BIN_DIR}")
    message(STATUS "netsmith:   cuBLAS: ${CUDA_cublas_LIBRARY}")
    message(STATUS "netsmith:   cuDNN:  ${NETSMITH_CUDNN_LIBRARY} (${NETSMITH_CUDNN_INCLUDE_DIR})")
    message(STATUS "netsmith:   NCCL:   ${NETSMITH_NCCL_LIBRARY} (${NETSMITH_NCCL_INCLUDE_DIR})")
    if(TARGET CUDA::cublas AND NETSMITH_CUDNN_LIBRARY AND NETSMITH_NCCL_LIBRARY AND NETSMITH_CUDNN_INCLUDE_DIR
       AND NETSMITH_NCCL_INCLUDE_DIR)
      set(NETSMITH_CUDA_ARCHITECTURES "native" CACHE STRING
          "SASS beside compute_75 PTX: native (this machine's GPUs), all, or a list such as 80;90")
      if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
        set(sass "")
        if(NETSMITH_CUDA_ARCHITECTURES STREQUAL "all")
          set(sass 75 80 86 89 90 100 120)
        elseif(NETSMITH_CUDA_ARCHITECTURES STREQUAL "native")
          find_program(NETSMITH_NVIDIA_SMI nvidia-smi)
          if(NETSMITH_NVIDIA_SMI)
            execute_process(COMMAND ${NETSMITH_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                            OUTPUT_VARIABLE caps RESULT_VARIABLE smi_status ERROR_QUIET)
            if(smi_status EQUAL 0)
              string(REPLACE "." "" caps "${caps}")
              string(REGEX MATCHALL "[0-9]+" sass "${caps}")
            endif()
          endif()
        else()
          set(sass ${NETSMITH_CUDA_ARCHITECTURES})
        endif()
        list(REMOVE_DUPLICATES sass)
        set(archs "75-virtual")
        foreach(a IN LISTS sass)
          list(APPEND archs "${a}-real")
        endforeach()
        set(CMAKE_CUDA_ARCHITECTURES "${archs}")
      endif()
      enable_language(CUDA)
      # CMake 3.25 does not know nvcc's C++20 flag; nvcc 12+ accepts it (the engine's headers are C++20).
      if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
        set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
        set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
      endif()
      set(NETSMITH_HAVE_CUDA ON)
      message(STATUS "netsmith: building the CUDA backend (netsmith_engine_cuda) for ${CMAKE_CUDA_ARCHITECTURES}")
    else()
      message(STATUS "netsmith: cuBLAS, cuDNN or NCCL missing (see above): building the CPU backend only")
    endif()
  else()
    message(STATUS "netsmith: CUDA toolkit not found; building the CPU backend only")
  endif()
else()
  if(NOT NETSMITH_WITH_CUDA STREQUAL "AUTO")
    message(STATUS "netsmith: CUDA disabled (NETSMITH_WITH_CUDA=OFF)")
  endif()
endif()
