// How a training loop clears the gradients between steps, which decides what backward does with
// each parameter's new gradient (torch.optim.Optimizer.zero_grad, torch/csrc/autograd AccumulateGrad):
//   set_to_none  the gradients are dropped (PyTorch 2.x's default, `param.grad = None`): backward
//                stores each new gradient as it is, no kernel. What dasim charged before this
//                option existed, and what frameworks without accumulation (TensorFlow) do.
//   zero         the gradients are kept and filled with zeros (PyTorch 1.x's default
//                `zero_grad()`): one fill kernel per parameter tensor writing its gradient, and
//                backward then adds each new gradient into the zeroed one, one kernel per tensor
//                reading both and writing one. PyTorch's performance tuning guide names both
//                costs ("does not zero the memory of each individual parameter ... assignment
//                instead of addition").
//   fill_only    the fills without the additions: apex amp's zero_grad fills the gradients
//                with zeros, then its backward hook sets them to None to elide the copy
//                (apex/amp/_process_optimizer.py, prepare_backward_with_master_weights and
//                prepare_backward_no_master_weights), so backward stores each new gradient.
#pragma once

#include "common/enum_names.hpp"

#include <string>

namespace dasim::workload {

enum class ZeroGrad { set_to_none, zero, fill_only };
inline constexpr EnumNames<ZeroGrad, 3> kZeroGradNames{{{
    {ZeroGrad::set_to_none, "set_to_none"},
    {ZeroGrad::zero, "zero"},
    {ZeroGrad::fill_only, "fill_only"},
}}};

// Gradient-sized streams per parameter tensor: the fill with zeros (charged with the update)
// and backward's accumulation into the zeroed gradient (charged with the layer's backward).
int zero_fill_streams(ZeroGrad mode);   // 1 for zero and fill_only, else 0
int accumulate_streams(ZeroGrad mode);  // 3 for zero, else 0

std::string to_string(ZeroGrad mode);
ZeroGrad parse_zero_grad(const std::string& text, const std::string& file = "",
                         const std::string& json_path = "");

}  // namespace dasim::workload
