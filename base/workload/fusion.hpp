// Kernel fusion the framework applies to a workload's memory-bound layers. Unfused (eager
// PyTorch), a BatchNorm and the ReLU after it are two kernels that each read and write the
// activation tensor; fused (cuDNN's BN + activation, XLA, channels-last AMP paths) they are one
// kernel that reads the input and writes the output once, forward and backward.
#pragma once

#include "common/enum_names.hpp"
#include "workload/workload.hpp"

#include <string>

namespace dasim::workload {

enum class Fusion { none, bn_relu };
inline constexpr EnumNames<Fusion, 2> kFusionNames{{{
    {Fusion::none, "none"},
    {Fusion::bn_relu, "bn_relu"},
}}};

// With bn_relu, every element-wise layer without parameters that directly follows a norm layer
// and streams exactly the bytes that norm streams (it reads the tensor the norm wrote and writes
// one of the same size: a ReLU, not a residual add, which reads two) is merged into the norm:
// one layer "bn+relu" with the FLOPs of both and the bytes of the norm alone.
void apply_fusion(Workload& workload, Fusion fusion);

std::string to_string(Fusion fusion);
Fusion parse_fusion(const std::string& text, const std::string& file = "", const std::string& json_path = "");

}  // namespace dasim::workload
