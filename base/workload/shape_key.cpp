// Formatting of the per-shape calibration keys (see shape_key.hpp).
#include "workload/shape_key.hpp"

#include <fmt/format.h>

namespace dasim::workload {

std::string conv_shape_key(const ConvShape& s) {
  return fmt::format("c{}_k{}_h{}_w{}_r{}_s{}_u{}_p{}_g{}", s.in_channels, s.out_channels, s.in_h, s.in_w,
                     s.kernel_h, s.kernel_w, s.stride, s.pad, s.groups);
}

std::string gemm_shape_key(const GemmShape& s) {
  return fmt::format("m{}_n{}_k{}", s.rows_per_sample, s.n, s.k);
}

}  // namespace dasim::workload
