// How a training loop clears the gradients between steps, which decides what backward does with
// each parameter's new gradient (torch.optim.Optimizer.zero_grad, torch/csrc/autograd AccumulateGrad):
//   set_to_none  the gradients are dropped (PyTorch 2.x's default, `param.grad = None`): backward
//                stores each new gradient as it is, no kernel. What dasim charged before this
//                option existed, and what frameworks without accumulation (TensorFlow) do.
//   zero         the gradients are kept and filled with zeros (PyTorch 1.x's default
//                `zero_grad()`, apex amp O2's patched zero_grad on the model's gradients): one
//                fill kernel per parameter tensor writing its gradient, and backward then adds
//                each new gradient into the zeroed one, one kernel per tensor reading both and
//                writing one. PyTorch's performance tuning guide names both costs ("does not zero
//                the memory of each individual parameter ... assignment instead of addition").
#pragma once

#include "common/enum_names.hpp"

#include <string>

namespace dasim::workload {

enum class ZeroGrad { set_to_none, zero };
inline constexpr EnumNames<ZeroGrad, 2> kZeroGradNames{{{
    {ZeroGrad::set_to_none, "set_to_none"},
    {ZeroGrad::zero, "zero"},
}}};

// Gradient-sized streams per parameter tensor: the fill with zeros (charged with the update)
// and backward's accumulation into the zeroed gradient (charged with the layer's backward).
int zero_fill_streams(ZeroGrad mode);   // 0 or 1
int accumulate_streams(ZeroGrad mode);  // 0 or 3

std::string to_string(ZeroGrad mode);
ZeroGrad parse_zero_grad(const std::string& text, const std::string& file = "",
                         const std::string& json_path = "");

}  // namespace dasim::workload
