// Shape keys shared by the kernel microbenchmarks (which write per-shape times into a calibration
// file) and the compute model (which looks them up). Both sides must build the key from the same
// function, so it lives here, next to the shapes.
//   conv: "c{in}_k{out}_h{in_h}_w{in_w}_r{kernel_h}_s{kernel_w}_u{stride}_p{pad}_g{groups}"
//   asymmetric conv (stride or pad differs between height and width; cuDNN's u/v, p/q names):
//         "c{in}_k{out}_h{in_h}_w{in_w}_r{kernel_h}_s{kernel_w}_u{stride_h}_v{stride_w}_p{pad_h}_q{pad_w}_g{groups}"
//   gemm: "m{rows_per_sample}_n{n}_k{k}"
#pragma once

#include "workload/layer.hpp"

#include <string>

namespace dasim::workload {

std::string conv_shape_key(const ConvShape& shape);
std::string gemm_shape_key(const GemmShape& shape);

}  // namespace dasim::workload
