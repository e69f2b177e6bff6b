// Formatting of the per-shape calibration keys (see shape_key.hpp).
#include "workload/shape_key.hpp"

#include <fmt/format.h>

namespace dasim::workload {

std::string conv_shape_key(const ConvShape& s) {
  // Symmetric shapes keep the historical text, so calibration files measured before asymmetric
  // shapes existed still match; only an asymmetric one names both directions.
  if (!conv_is_symmetric(s))
    return fmt::format("c{}_k{}_h{}_w{}_r{}_s{}_u{}_v{}_p{}_q{}_g{}", s.in_channels, s.out_channels, s.in_h,
                       s.in_w, s.kernel_h, s.kernel_w, s.stride, conv_stride_w(s), s.pad, conv_pad_w(s),
                       s.groups);
  return fmt::format("c{}_k{}_h{}_w{}_r{}_s{}_u{}_p{}_g{}", s.in_channels, s.out_channels, s.in_h, s.in_w,
                     s.kernel_h, s.kernel_w, s.stride, s.pad, s.groups);
}

std::string gemm_shape_key(const GemmShape& s) {
  return fmt::format("m{}_n{}_k{}", s.rows_per_sample, s.n, s.k);
}

}  // namespace dasim::workload
