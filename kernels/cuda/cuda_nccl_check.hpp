// NCCL's error check for the CUDA suite's collective benchmarks (cuda_nccl.cpp,
// cuda_interference.cpp): a failed call becomes a RuntimeFailure naming it, as cuda_common.hpp's
// checks do for CUDA and cuBLAS. A header of its own because only builds with NCCL include it.
#pragma once

#include "common/errors.hpp"

#include <fmt/format.h>
#include <nccl.h>

namespace dasim::kernels::cuda {

inline void check_nccl(ncclResult_t status, const char* what) {
  if (status != ncclSuccess)
    throw RuntimeFailure(fmt::format("NCCL: {}: {}", what, ncclGetErrorString(status)));
}

}  // namespace dasim::kernels::cuda
