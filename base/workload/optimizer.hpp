// The optimizer whose update step the compute model charges: how many parameter-sized streams one
// fused (multi-tensor) update reads and writes, and in how many kernels.
//   sgd_momentum  reads w, g, m; writes w, m                                   5 streams, 1 kernel
//   adam          reads w, g, m, v; writes w, m, v (Kingma & Ba, Algorithm 1)  7 streams, 1 kernel
//   lamb          stage 1 reads g, m, v, w and writes m, v, the update u; stage 2 reads w, u and
//                 writes w after the per-tensor trust ratio (You et al. 2019, Algorithm 2; NVIDIA's
//                 FusedLAMB runs the two stages as two kernels)           10 streams, 2 kernels
#pragma once

#include "common/enum_names.hpp"

#include <string>

namespace dasim::workload {

enum class Optimizer { sgd_momentum, adam, lamb };
inline constexpr EnumNames<Optimizer, 3> kOptimizerNames{{{
    {Optimizer::sgd_momentum, "sgd_momentum"},
    {Optimizer::adam, "adam"},
    {Optimizer::lamb, "lamb"},
}}};

int update_streams(Optimizer optimizer);
int update_kernels(Optimizer optimizer);
int optimizer_states(Optimizer optimizer);  // parameter-sized state buffers (momentum; m and v)

std::string to_string(Optimizer optimizer);
Optimizer parse_optimizer(const std::string& text, const std::string& file = "",
                          const std::string& json_path = "");

}  // namespace dasim::workload
