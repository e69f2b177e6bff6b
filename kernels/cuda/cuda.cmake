# CUDA suite: built when CMake finds a CUDA compiler and toolkit (option DASIM_CUDA, default ON in
# that case). cuDNN and NCCL parts are built only when their headers and libraries are found.
include(CheckLanguage)
if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
  set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
endif()
check_language(CUDA)
set(_dasim_cuda_default OFF)
if(CMAKE_CUDA_COMPILER AND EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/cuda/cuda_suite.cpp)
  set(_dasim_cuda_default ON)
endif()
option(DASIM_CUDA "Build the CUDA calibration suite (cuBLAS, cuDNN, NCCL)" ${_dasim_cuda_default})
if(NOT DASIM_CUDA)
  message(STATUS "kernels/: CUDA suite not built (no CUDA compiler found or DASIM_CUDA=OFF)")
  return()
endif()
# sm_80 (A100) and sm_90 (H100/H200) machine code plus compute_90 PTX the driver can JIT for newer
# GPUs, unless the command line names others. Set before enable_language, which would otherwise
# cache nvcc's own default (sm_75 for nvcc 13: every kernel JIT-compiled from PTX at start), and as
# a cache entry, so the executor's CUDA trainer (its own enable_language in executor/, for its loss
# kernel) compiles for the same ones. A build folder configured before this default keeps its cached
# value: configure afresh or pass -DCMAKE_CUDA_ARCHITECTURES.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES "80-real;90-real;90-virtual"
      CACHE STRING "CUDA architectures of the CUDA suite and trainer")
endif()
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)
set(CMAKE_CUDA_STANDARD 17)

add_library(dasim_kernels_cuda STATIC cuda/cuda_suite.cpp cuda/cuda_gemm.cpp cuda/cuda_memory.cpp cuda/cuda_kernels.cu
                                      cuda/cuda_conv.cpp cuda/cuda_bn_relu.cpp cuda/cuda_nccl.cpp
                                      cuda/cuda_interference.cpp)
target_include_directories(dasim_kernels_cuda PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(dasim_kernels_cuda PUBLIC dasim_kernels_common CUDA::cudart CUDA::cublas PRIVATE dasim_warnings)
# The legacy cudnnConvolution* / cudnnBatchNormalization* API is deprecated in cuDNN 9 (see
# cuda_conv.cpp and cuda_bn_relu.cpp for why it is used).
set_source_files_properties(cuda/cuda_conv.cpp cuda/cuda_bn_relu.cpp PROPERTIES COMPILE_OPTIONS
                                                                         -Wno-deprecated-declarations)
# dasim_warnings gives C++ sources their flags; nvcc takes host-compiler warnings through -Xcompiler.
target_compile_options(dasim_kernels_cuda PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall>)

find_path(CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
find_library(CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR})
if(CUDNN_INCLUDE_DIR AND CUDNN_LIBRARY)
  target_compile_definitions(dasim_kernels_cuda PRIVATE DASIM_HAVE_CUDNN)
  target_include_directories(dasim_kernels_cuda PRIVATE ${CUDNN_INCLUDE_DIR})
  target_link_libraries(dasim_kernels_cuda PRIVATE ${CUDNN_LIBRARY})
else()
  message(STATUS "kernels/: cuDNN not found, the CUDA suite is built without conv benchmarks")
endif()
find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
find_library(NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
  target_compile_definitions(dasim_kernels_cuda PRIVATE DASIM_HAVE_NCCL)
  target_include_directories(dasim_kernels_cuda PRIVATE ${NCCL_INCLUDE_DIR})
  target_link_libraries(dasim_kernels_cuda PRIVATE ${NCCL_LIBRARY})
else()
  message(STATUS "kernels/: NCCL not found, the CUDA suite is built without the allreduce benchmark")
endif()

# The calibration driver with the CUDA suite, for dasim-calibrate-cuda (app/CMakeLists.txt) only:
# dasim itself links no CUDA library (cuBLASLt's static initialisation alone costs every process
# that loads it about half a second) and execs that sibling for --device cuda.
add_library(dasim_kernels_with_cuda STATIC ${CMAKE_CURRENT_SOURCE_DIR}/calibrate.cpp)
target_include_directories(dasim_kernels_with_cuda PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(dasim_kernels_with_cuda PUBLIC dasim_kernels_cpu dasim_kernels_cuda PRIVATE dasim_warnings)
target_compile_definitions(dasim_kernels_with_cuda PRIVATE DASIM_HAVE_CUDA_SUITE)
